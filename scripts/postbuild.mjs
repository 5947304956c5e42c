// After tsc: bundles the simulator into one file, and marks the package's executables as executable (tsc does
// not preserve modes).
import { chmodSync, copyFileSync, existsSync } from 'node:fs';

// The simulator is started once per agent; as one module instead of ~33 it boots ~15 ms sooner, which is most
// of what an Agent start costs beyond agy's own boot (bench/startup.mjs). Packages stay external (the MCP SDK
// is imported lazily). Without rolldown (a build with --omit=dev) there is no bundle and `simulatorPath()`
// uses main.js.
const rolldown = await import('rolldown').catch(() => undefined);
if (rolldown) {
  const bundle = await rolldown.rolldown({
    input: 'dist/testing/simulator/main.js',
    platform: 'node',
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    logLevel: 'warn',
  });
  await bundle.write({ file: 'dist/testing/simulator/agy-sim.mjs', format: 'esm', codeSplitting: false });
  await bundle.close();
}

// The wire-fact catalogue lives beside docs/reference/; the conformance check reads it next to its code.
copyFileSync('docs/reference/wire-facts.json', 'dist/testing/cassette/wire-facts.json');

for (const file of [
  'dist/testing/simulator/main.js',
  'dist/testing/simulator/agy-sim.mjs',
  'dist/cli/main.js',
  'dist/connection/process/supervisor.js',
  'dist/connection/agy/session/hook-relay.js',
  'dist/connection/agy/session/mcp-stdio-relay.js',
]) {
  if (existsSync(file)) chmodSync(file, 0o755);
}
