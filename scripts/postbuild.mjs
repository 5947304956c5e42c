// Marks the package's executables as executable after tsc, which does not preserve modes.
import { chmodSync, existsSync } from 'node:fs';

for (const file of [
  'dist/testing/simulator/main.js',
  'dist/cli/main.js',
  'dist/connection/agy/process/supervisor.js',
  'dist/connection/agy/session/hook-relay.js',
  'dist/connection/agy/session/mcp-stdio-relay.js',
]) {
  if (existsSync(file)) chmodSync(file, 0o755);
}
