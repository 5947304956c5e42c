// Marks the package's executables as executable after tsc, which does not preserve modes.
import { chmodSync, existsSync } from 'node:fs';

for (const file of [
  'dist/testing/simulator/main.js',
  'dist/cli/main.js',
  'dist/process/supervisor.js',
  'dist/runtime/hook-relay.js',
  'dist/runtime/mcp-stdio-relay.js',
]) {
  if (existsSync(file)) chmodSync(file, 0o755);
}
