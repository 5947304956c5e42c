/** Finds executables on a PATH. */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** True for an existing regular file we may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Looks `names` up in every directory of `env.PATH` (or `Path`), in order. Returns the first hit and every
 * path tried (for error messages), each once: PATH often repeats a directory (shell profiles prepend the
 * same entry twice), and a repeated entry cannot change the outcome.
 */
export function findOnPath(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
): { found: string | undefined; tried: string[] } {
  const tried: string[] = [];
  const seen = new Set<string>();
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      // `join` normalizes `/usr/bin/` and `/usr/bin` to the same path.
      const path = join(dir, name);
      if (seen.has(path)) continue;
      seen.add(path);
      tried.push(path);
      if (isExecutableFile(path)) return { found: path, tried };
    }
  }
  return { found: undefined, tried };
}
