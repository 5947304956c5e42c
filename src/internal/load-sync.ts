/**
 * Loads a package synchronously, on first use, for code that must stay synchronous (a constructor's config
 * check, `isCallToolResult`) but should not load the package with ours: `import 'agy-sdk'` then costs nothing
 * for zod or the MCP SDK's types, and the first `new Agent()` pays for them once.
 *
 * The package's ES module entry is `require`d (Node >= 20.19 requires ES modules), so it is the very instance a
 * later `import` of the same specifier gets: one zod, whose schemas and registry the user's code shares. A Node
 * run with `--no-experimental-require-module` gets the package's CommonJS entry instead.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The module `specifier` names (a bare package specifier), loaded synchronously. */
export function loadSync<T>(specifier: string): T {
  try {
    return require(fileURLToPath(import.meta.resolve(specifier))) as T;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
    return require(specifier) as T;
  }
}

/** zod 4 (`zod/v4`, also inside zod 3.25), loaded on first use. */
export function zod(): typeof import('zod/v4').z {
  zodModule ??= loadSync<typeof import('zod/v4')>('zod/v4');
  return zodModule.z;
}
let zodModule: typeof import('zod/v4') | undefined;
