// After tsc: bundles the simulator into one file, and marks the package's executables as executable (tsc does
// not preserve modes).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

// The simulator is started once per agent; as one module instead of ~33 it boots ~15 ms sooner, which is most
// of what an Agent start costs beyond agy's own boot (bench/startup.mjs). Without rolldown (a build with
// --omit=dev) there is no bundle and `simulatorPath()` uses main.js.
//
// The MCP SDK's client (loaded lazily, right after `init`, by every simulator with an MCP server configured:
// all of them with own tools) goes into a CommonJS bundle of its own, `mcp-client.cjs`, with its dependencies,
// and V8's code cache of it goes beside it (`mcp-client.code-cache`, testing/simulator/mcp-client-loader.ts).
// Loaded from node_modules it resolves and compiles some 300 files, ~230 ms of CPU per simulator (5x the
// simulator's whole boot); as one ES module ~106 ms, as this bundle with its cache ~69. Real agy is one Go
// binary and pays nothing like it, and in a start storm that artefact was most of the CPU on the machine
// (bench/many-agents.mjs). It is still the official SDK's code.
//
// That bundle's `Headers` is the simulator's own (testing/simulator/mcp-headers.ts), not the global: the MCP
// SDK's transport builds a `Headers` for every request, and touching Node's global one loads all of undici
// first (~28 ms of CPU per process; the simulator's fetch, http-fetch.ts, uses none of undici's globals).
//
// Its `validation/ajv-provider.js` is testing/simulator/lazy-ajv-provider.ts: the SDK's own validator, required
// from node_modules on the first schema compiled, so ajv is neither evaluated with the bundle nor built by every
// `new Client` (~30 ms of CPU per simulator; only tools with an `outputSchema` need it). Likewise its OAuth module
// `client/auth.js` is testing/simulator/lazy-client-auth.ts (its OAuth schemas ~7 ms, and through `pkce-challenge`
// Node's Web Crypto ~18 ms; only an `authProvider`, which the simulator never passes, calls it), its stdio
// transport's `cross-spawn` is testing/simulator/lazy-cross-spawn.ts (`node:child_process` and the package's helpers:
// ~3 ms; only stdio servers need it), and its Streamable HTTP transport's `eventsource-parser/stream` is
// testing/simulator/lazy-eventsource-parser-stream.ts (defined, its class extends `TransformStream`, which loads
// Node's web streams: ~3.7 ms; only SSE answers need it).
const MCP_CLIENT_MODULES = [
  '@modelcontextprotocol/sdk/client/index.js',
  '@modelcontextprotocol/sdk/client/stdio.js',
  '@modelcontextprotocol/sdk/client/streamableHttp.js',
];
const rolldown = await import('rolldown').catch(() => undefined);
if (rolldown) {
  const entry = '\0mcp-client-entry';
  const lazyAjvProvider = resolve('dist/testing/simulator/lazy-ajv-provider.js');
  const lazyClientAuth = resolve('dist/testing/simulator/lazy-client-auth.js');
  const lazyCrossSpawn = resolve('dist/testing/simulator/lazy-cross-spawn.js');
  const lazyEventSourceParserStream = resolve('dist/testing/simulator/lazy-eventsource-parser-stream.js');
  const client = await rolldown.rolldown({
    input: entry,
    platform: 'node',
    // Node's built-ins only: the SDK and what it imports are inlined.
    external: (id) => id.startsWith('node:'),
    transform: { inject: { Headers: [resolve('dist/testing/simulator/mcp-headers.js'), 'Headers'] } },
    plugins: [
      {
        name: 'mcp-client-entry',
        resolveId: (id, importer) => {
          if (id === entry) return entry;
          // The SDK's client imports its default validator relatively; nothing else of the SDK is replaced.
          if (id.endsWith('/validation/ajv-provider.js') && importer?.includes('@modelcontextprotocol/sdk/'))
            return lazyAjvProvider;
          if (id === './auth.js' && importer?.includes('@modelcontextprotocol/sdk/dist/esm/client/'))
            return lazyClientAuth;
          if (id === 'cross-spawn' && importer?.includes('@modelcontextprotocol/sdk/')) return lazyCrossSpawn;
          if (id === 'eventsource-parser/stream' && importer?.includes('@modelcontextprotocol/sdk/'))
            return lazyEventSourceParserStream;
          return undefined;
        },
        load: (id) =>
          id === entry ? MCP_CLIENT_MODULES.map((m) => `export * from '${m}';`).join('\n') : undefined,
      },
    ],
    logLevel: 'warn',
  });
  rmSync('dist/testing/simulator/mcp-client.mjs', { force: true }); // an older build's ES module bundle
  await client.write({ file: 'dist/testing/simulator/mcp-client.cjs', format: 'cjs', codeSplitting: false });
  await client.close();
  // The cache is made by a Node started as the simulator is (no flags but --no-memory-reducer, below, which V8
  // leaves out of its flag hash): V8 refuses a cache made under other flags.
  execFileSync(process.execPath, ['scripts/write-mcp-client-cache.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, NODE_OPTIONS: '' },
  });

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
// is one V8 leaves out of its flag hash, so Node's own code cache and the MCP client's are still taken (every
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
