/**
 * `mkdir -p` that always settles. Node's own recursive `mkdir` never returns on a file system that refuses new
 * entries with ENOENT, such as /proc (it retries the parent forever): each level is made here in turn, and the
 * first failure other than "already there" is thrown.
 *
 * Synchronous: it runs on a session's start path, where each asynchronous file call is a round trip through
 * the thread pool (0.1–0.3 ms on a loaded 2-core machine) and the levels must be made one after the other.
 */

import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Creates `dir` and its missing parents with `mode`. */
export function mkdirParents(dir: string, mode: number): void {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    try {
      if (statSync(at).isDirectory()) break;
      const err = new Error(`${at} is not a directory`) as NodeJS.ErrnoException;
      err.code = 'ENOTDIR';
      throw err;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
