/**
 * Finds the agy binary. Order: the `agyPath` option, then `AGY_PATH`, then every directory on `PATH`. The error
 * lists every path tried. Apart from the version probe (`binary.ts`), so the package root's `resolveAgyBinary`
 * does not load the process code.
 */
import { isAbsolute, resolve } from 'node:path';
import { AgyNotFoundError } from '../../../errors.js';
import { findOnPath, isExecutableFile } from '../../../internal/which.js';

/** Where to look. */
export interface BinaryLookup {
  /** Explicit path (the `agyPath` option). */
  agyPath?: string | undefined;
  /** Environment to read `AGY_PATH` and `PATH` from. */
  env: NodeJS.ProcessEnv;
}

/** Resolves the agy binary, or throws `AgyNotFoundError` listing every path tried. */
export function resolveAgyBinary(lookup: BinaryLookup): string {
  const tried: string[] = [];
  const explicit = [lookup.agyPath, lookup.env.AGY_PATH].filter((p): p is string => !!p);
  for (const candidate of explicit) {
    const path = isAbsolute(candidate) ? candidate : resolve(candidate);
    if (tried.includes(path)) continue;
    tried.push(path);
    if (isExecutableFile(path)) return path;
  }
  // An explicit path that is wrong is a configuration error: do not silently fall back to PATH.
  if (explicit.length > 0) throw new AgyNotFoundError(tried);
  const names = process.platform === 'win32' ? ['agy.exe', 'agy.cmd', 'agy'] : ['agy'];
  const onPath = findOnPath(names, lookup.env);
  if (onPath.found) return onPath.found;
  throw new AgyNotFoundError([...tried, ...onPath.tried]);
}
