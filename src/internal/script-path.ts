/**
 * Locates the package's own files that are not modules of the running process: the executable scripts started
 * as processes of their own (supervisor, relays, simulator), the wire-fact catalogue, package.json.
 *
 * They are named by their path under the package's `dist/`, never relative to the calling module: the build
 * bundles the entry points, so a caller's code sits in a shared chunk (`dist/_chunks/`), not beside the file
 * tsc compiled it to. The package root is the first directory above this module holding a `package.json`
 * (the installed package's own, from `dist/` or a chunk in it; the checkout's, when this runs from `src/`,
 * as tests do, where `dist/` must have been built).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package's root directory (where its package.json is), found once. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`agy-sdk: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  root = dir;
  return root;
}

/** The absolute path of `relative` (e.g. `connection/process/supervisor.js`) under the package's `dist/`. */
export function distPath(relative: string): string {
  return join(packageRoot(), 'dist', relative);
}

/** Like `distPath`, but the script must exist. */
export function scriptPath(relative: string): string {
  const path = distPath(relative);
  if (existsSync(path)) return path;
  throw new Error(
    `agy-sdk: script not found: ${path} (run \`npm run build\` when using the SDK from source)`,
  );
}
