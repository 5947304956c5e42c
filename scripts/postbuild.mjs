// After tsc: bundles the simulator into one file, and marks the package's executables as executable (tsc does
// not preserve modes).
import { chmodSync, copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

// The simulator is started once per agent; as one module instead of ~33 it boots ~15 ms sooner, which is most
// of what an Agent start costs beyond agy's own boot (bench/startup.mjs). Without rolldown (a build with
// --omit=dev) there is no bundle and `simulatorPath()` uses main.js.

const rolldown = await import('rolldown').catch(() => undefined);
if (rolldown) {
  const bundle = await rolldown.rolldown({
    input: 'dist/testing/simulator/main.js',
    platform: 'node',
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    logLevel: 'warn',
  });
  await bundle.write({
    file: 'dist/testing/simulator/agy-sim.mjs',
    format: 'esm',
    codeSplitting: false,
  });
  await bundle.close();
}

// The simulator bundle's first lines start Node with `--no-memory-reducer`. Idle, a simulator's V8 otherwise
// runs up to three full collections some 8 s after its start work (its memory reducer): 40-90 ms of CPU for each
// one, most of what a start storm spends beyond each simulator's start work alone (bench/many-agents.mjs). The flag
// is one V8 leaves out of its flag hash, so Node's own code cache is still taken (every
// flag tried that shortens the boot is hashed, and costs ~35 ms more than it saves); set later, from the
// script, it is too late (the reducer is made with the heap). Not `env -S`: BusyBox's env (Alpine) lacks it.
// The second line is a no-op to Node (a string and a comment) and an exec to sh.
const SIMULATOR_LAUNCHER = `#!/bin/sh\n':' //; exec node --no-memory-reducer "$0" "$@"\n`;
// Only the bundle gets it, made anew from main.js above, which keeps Node's plain shebang (so the bundle never
// starts from a launcher, and a second run of this script does what the first did).
const SIMULATOR_BUNDLE = 'dist/testing/simulator/agy-sim.mjs';
if (existsSync(SIMULATOR_BUNDLE)) {
  const text = readFileSync(SIMULATOR_BUNDLE, 'utf8');
  if (!text.startsWith('#!/usr/bin/env node\n'))
    throw new Error(`${SIMULATOR_BUNDLE} does not start with Node's shebang`);
  writeFileSync(SIMULATOR_BUNDLE, SIMULATOR_LAUNCHER + text.slice(text.indexOf('\n') + 1));
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
