/**
 * Resolves the path of one of the package's executable scripts (supervisor, relays, simulator).
 * From `dist/` the compiled script sits next to the module. When the SDK runs from source (tests), the
 * module is a `.ts` file under `src/`, so the compiled twin under `dist/` is used instead.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The script's path: next to the module, else its twin under `dist/` (which may not be built yet). */
export function locateScript(relative: string, importMetaUrl: string): string {
  const path = fileURLToPath(new URL(relative, importMetaUrl));
  if (existsSync(path)) return path;
  return path.replace(/([\\/])src([\\/])(?!.*[\\/]src[\\/])/, '$1dist$2');
}

/** Like `locateScript`, but the script must exist. */
export function scriptPath(relative: string, importMetaUrl: string): string {
  const path = locateScript(relative, importMetaUrl);
  if (existsSync(path)) return path;
  throw new Error(
    `agy-sdk: script not found: ${path} (run \`npm run build\` when using the SDK from source)`,
  );
}
