/**
 * Where the tests look for `../shared` (the real agy captures, the upstream recordings, the reference documents):
 * next to the repository, or wherever `AGY_SDK_SHARED_DIR` says. CI sets it to a path that does not exist to
 * check that the suite collects, and its fast project passes, on a clone without the shared folder
 * (`scripts/check-collection.mjs`). Every test and helper that reads the shared folder resolves it here, so that
 * one variable hides it from all of them.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The shared folder: `AGY_SDK_SHARED_DIR` (relative to the project root), else `../shared`. */
export const SHARED_DIR = resolve(ROOT, process.env.AGY_SDK_SHARED_DIR ?? '../shared');

/** A path inside the shared folder, e.g. `sharedPath('fixtures/agy-real')`. */
export function sharedPath(...parts: string[]): string {
  return join(SHARED_DIR, ...parts);
}

/** Whether the shared folder is here at all. */
export const HAVE_SHARED = existsSync(SHARED_DIR);
