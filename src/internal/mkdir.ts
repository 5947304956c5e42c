/**
 * `mkdir -p` that always settles. Node's own `mkdir(dir, { recursive: true })` never returns on a file system
 * that refuses new entries with ENOENT, such as /proc (it retries the parent forever): each level is made
 * here in turn, and the first failure other than "already there" is thrown.
 */

import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Creates `dir` and its missing parents with `mode`. */
export async function mkdirParents(dir: string, mode: number): Promise<void> {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    try {
      if ((await stat(at)).isDirectory()) break;
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
      await mkdir(level, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
