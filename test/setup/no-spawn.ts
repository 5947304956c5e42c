/**
 * The `fast` project's guard (a vitest `setupFiles` entry): a test file there may not start a child process.
 * Any `node:child_process` call throws, naming the file, so a process-bound test cannot hide among the in-memory
 * ones and slow `npm run test:fast` down: such a file is named `*.process.test.ts` and runs in the `process`
 * project. The check looks at the running file, so it holds even if a worker were shared between projects.
 */
import cp from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { expect } from 'vitest';

const KEY = Symbol.for('agy-sdk.test.no-spawn');
const PATCHED = ['spawn', 'fork', 'exec', 'execFile', 'spawnSync', 'execSync', 'execFileSync'] as const;

function runningFile(): string | undefined {
  try {
    return expect.getState().testPath;
  } catch {
    return undefined;
  }
}

const g = globalThis as typeof globalThis & { [KEY]?: true };
if (!g[KEY]) {
  g[KEY] = true;
  const table = cp as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of PATCHED) {
    const original = table[name]!;
    table[name] = function guarded(this: unknown, ...args: unknown[]) {
      const file = runningFile();
      if (file === undefined || !file.endsWith('.process.test.ts')) {
        throw new Error(
          `${file ?? 'a fast test'} called child_process.${name}(${JSON.stringify(String(args[0]))}): ` +
            'a test that starts a process is named *.process.test.ts (it runs in the `process` project)',
        );
      }
      return original.apply(this, args);
    };
  }
  syncBuiltinESMExports();
}
