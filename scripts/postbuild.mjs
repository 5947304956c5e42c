// After tsc: bundles the package's entry points and the simulator, and marks the package's executables as
// executable (tsc does not preserve modes).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const rolldown = await import('rolldown').catch(() => undefined);

// The entry points (package.json `exports` and the CLI bin), bundled in ONE build so that each module, and so each
// class, exists once across them (`instanceof` holds between `agy-sdk` and `agy-sdk/testing`). Loading ~80 small
// modules costs a fresh process more than reading the same code from a few files (bench/import.mjs). tsc's
// declarations stay as they are; its other JS files stay too: the scripts started as processes of their own
// (supervisor, relays, simulator) run from them, found under dist/ by src/internal/script-path.ts.
const ENTRIES = {
  index: 'dist/index.js',
  wire: 'dist/wire.js',
  'testing/index': 'dist/testing/index.js',
  'gateway/index': 'dist/gateway/index.js',
  'fleet/index': 'dist/fleet/index.js',
  'connection/index': 'dist/connection/index.js',
  'pool/index': 'dist/pool/index.js',
  'ai-sdk/index': 'dist/ai-sdk/index.js',
  'ag-ui/index': 'dist/ag-ui/index.js',
  'cli/main': 'dist/cli/main.js',
};
/** Which source modules each emitted file holds (paths under dist/): for stack traces, and the import-graph test. */
const MANIFEST = 'dist/_chunks/modules.json';
/** The entries that load without the Agent: what the root shares with them goes in a chunk of its own. */
const LIGHT = ['dist/connection/index.js', 'dist/fleet/index.js'];

/** The modules `entry` loads statically (dynamic `import()` targets, and what only they import, excluded). */
function staticClosure(entry, ctx) {
  const seen = new Set();
  const walk = (id) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const dep of ctx.getModuleInfo(id)?.importedIds ?? []) walk(dep);
  };
  walk(resolve(entry));
  return seen;
}

/**
 * Chunk groups: everything the root loads statically goes in two chunks, `base` (what the light entries share
 * with it) and `core` (the rest), so `import('agy-sdk')` reads index.js and those two (and rolldown's tiny
 * runtime) whatever rolldown's per-entry-set split would make of it. Every other module is split by rolldown
 * (by the set of entries and dynamic imports that reach it), so the backends, the gateway, telemetry and the
 * pool stay out of the root's files and load with their `import()`.
 */
function groupOf() {
  let root;
  let light;
  return (id, ctx) => {
    root ??= staticClosure(ENTRIES.index, ctx);
    light ??= new Set(LIGHT.flatMap((e) => [...staticClosure(e, ctx)]));
    if (!root.has(id)) return null;
    return light.has(id) ? 'base' : 'core';
  };
}

async function bundleEntries() {
  // Bundling bundled output would be wrong and silent: the entries must be tsc's.
  if (readFileSync(ENTRIES.index, 'utf8').includes('./_chunks/'))
    throw new Error('dist/index.js is already bundled: run `npm run build` (tsc, then this script)');
  const bundle = await rolldown.rolldown({
    input: ENTRIES,
    platform: 'node',
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    logLevel: 'warn',
  });
  const out = 'dist/.bundle';
  rmSync(out, { recursive: true, force: true });
  const { output } = await bundle.write({
    dir: out,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '_chunks/[name]-[hash].js',
    // Comments and dead code go; names and line breaks stay, so a stack trace's names and lines stay readable
    // (taking the line breaks out too saves no measurable load time).
    minify: { compress: true, mangle: false, codegen: { removeWhitespace: false } },
    // The TSDoc is in the .d.ts files; each module's code is headed by its path (`// dist/errors.js`).
    comments: { legal: true, annotation: false, jsdoc: false },
    keepNames: true,
    codeSplitting: { groups: [{ name: groupOf(), debugName: 'root' }] },
  });
  await bundle.close();
  rmSync('dist/_chunks', { recursive: true, force: true });
  const manifest = {};
  for (const file of output) {
    if (file.type !== 'chunk') continue;
    const target = join('dist', file.fileName);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(out, file.fileName), target);
    manifest[file.fileName] = file.moduleIds
      .filter((id) => id.startsWith(resolve('dist')))
      .map((id) => relative(resolve('dist'), id).split('\\').join('/'));
  }
  rmSync(out, { recursive: true, force: true });
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 1)}\n`);
}

if (rolldown) await bundleEntries();

// The simulator is started once per agent; as one module instead of ~33 it boots ~15 ms sooner, which is most
// of what an Agent start costs beyond agy's own boot (bench/startup.mjs). Without rolldown (a build with
// --omit=dev) there is no bundle and `simulatorPath()` uses main.js.

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
