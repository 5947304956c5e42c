// What `import 'agy-sdk'` loads, read by a `resolve` hook in a fresh Node process on the built package: the
// backends, the provider gateway, telemetry, the cassette recorder, the MCP checks and the file watcher load when
// a config uses them (a dynamic `import()` in the Agent's start path or the trigger's start), never with the
// package, so a program that only imports it does not pay for them (bench/import.mjs measures the time); zod
// and the MCP SDK's types load on first use (the first config checked, the first `isCallToolResult`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dist = join(root, 'dist');
const built = existsSync(join(dist, 'index.js'));
let base: string | undefined;

const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + '\\n');
  return result;
}
`;

/** The URLs a fresh process resolves while it imports `file` (and runs `then`, if given). */
function resolved(file: string, then = ''): Set<string> {
  base ??= mkdtempSync(join(tmpdir(), 'agy-sdk-import-graph-'));
  const hooks = join(base, 'hooks.mjs');
  const log = join(base, `resolved-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(hooks, HOOKS);
  writeFileSync(log, '');
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: ${JSON.stringify(log)} });`;
  const out = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(file).href)});\n${then}`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  return new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
}

/** Modules of ours that only a feature in use may load (paths under dist/, as tsc writes them). */
const HEAVY = [
  'connection/acp/acp-connection.js',
  'connection/agy/agy-connection.js',
  'connection/agy/session/session-runtime.js',
  'connection/tool-server/listener.js',
  'connection/mcp-check/check-server.js',
  'gateway/gateway.js',
  'telemetry/create-tracing.js',
  'cassette/recorder.js',
];
/** Packages only one feature uses. */
const FEATURE_PACKAGES = ['@agentclientprotocol/sdk', 'chokidar', 'eventsource-parser'];

/**
 * The build bundles the entry points (scripts/postbuild.mjs): a loaded file is an entry or a chunk, and the
 * manifest it writes says which of tsc's modules each one holds.
 */
const manifest = (): Record<string, string[]> =>
  JSON.parse(readFileSync(join(dist, '_chunks/modules.json'), 'utf8'));

/** The files of ours under dist/ (relative, `/`-separated) among `urls`. */
const ourFiles = (urls: Set<string>) => {
  const prefix = `${pathToFileURL(dist).href}/`;
  return [...urls].filter((u) => u.startsWith(prefix)).map((u) => u.slice(prefix.length));
};
/** The modules of ours (tsc's paths under dist/) that the files among `urls` hold. */
const ourModules = (urls: Set<string>) => {
  const files = manifest();
  return ourFiles(urls).flatMap((f) => files[f] ?? [`(not in the bundle) ${f}`]);
};
const loadedOurs = (urls: Set<string>) => HEAVY.filter((m) => ourModules(urls).includes(m));
const loadedPackages = (urls: Set<string>) =>
  FEATURE_PACKAGES.filter((p) => [...urls].some((u) => u.includes(`/node_modules/${p}/`)));

afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.skipIf(!built)('what importing the package loads', () => {
  it('the root loads no backend, gateway, telemetry, recorder, MCP check or watcher, and no package at all (zod and the MCP SDK load on first use)', () => {
    const urls = resolved(join(dist, 'index.js'));
    expect(loadedOurs(urls)).toEqual([]);
    expect([...urls].filter((u) => u.includes('/node_modules/'))).toEqual([]);
    // Node's crypto modules cost a fresh process ~3 ms; the first tool-name hash loads them.
    expect(urls.has('node:crypto')).toBe(false);
  });

  it('constructing an Agent (config validation) still loads none of them; they load at start()', () => {
    const urls = resolved(
      join(dist, 'index.js'),
      `new m.Agent({ backend: { kind: 'acp', command: process.execPath } });
new m.Agent({ systemInstructions: 'be brief', notes: 'n', subagents: [{ name: 'a', description: 'd', instructions: 'i' }] });
m.onFileChange('.', () => {});`,
    );
    expect(loadedOurs(urls)).toEqual([]);
    expect(loadedPackages(urls)).toEqual([]);
  });

  it('the root loads no pool code (agy-sdk/pool does), and agy-sdk/connection loads neither backend nor the Agent', () => {
    const under = (urls: Set<string>, folder: string) => ourModules(urls).filter((m) => m.startsWith(folder));
    expect(under(resolved(join(dist, 'index.js')), 'pool/')).toEqual([]);
    expect(under(resolved(join(dist, 'pool/index.js')), 'pool/').length).toBeGreaterThan(0);
    const connection = resolved(join(dist, 'connection/index.js'));
    expect(loadedOurs(connection)).toEqual([]);
    expect(under(connection, 'agent/')).toEqual([]);
    expect([...connection].filter((u) => u.includes('/node_modules/'))).toEqual([]);
  });

  it('the root reads its entry and the two chunks of what it loads statically (plus the bundler runtime), all from the bundle', () => {
    const files = ourFiles(resolved(join(dist, 'index.js')));
    expect(files.every((f) => f in manifest())).toBe(true);
    expect(
      files
        .filter((f) => f !== 'index.js' && !/^_chunks\/rolldown-runtime-/.test(f))
        .map((f) => f.replace(/-[\w-]{8}\.js$/, ''))
        .sort(),
    ).toEqual(['_chunks/base', '_chunks/core']);
    // The backends, the gateway, telemetry and the pool are in chunks of their own, outside the root's.
    const rootModules = ourModules(resolved(join(dist, 'index.js')));
    for (const folder of [
      'connection/acp/',
      'connection/agy/session/session-',
      'gateway/',
      'pool/',
      'fleet/',
      'telemetry/create-',
    ])
      expect(rootModules.filter((m) => m.startsWith(folder))).toEqual([]);
  });

  it("one module, one copy: each of tsc's modules is in exactly one file of the bundle, so classes are shared by every entry", async () => {
    const seen = new Map<string, string>();
    for (const [file, modules] of Object.entries(manifest()))
      for (const m of modules) {
        expect(seen.get(m), `${m} in ${file}`).toBeUndefined();
        seen.set(m, file);
      }
    const root = await import(pathToFileURL(join(dist, 'index.js')).href);
    const testing = await import(pathToFileURL(join(dist, 'testing/index.js')).href);
    const error = new testing.CassetteError('c.jsonl', 1, 'field', 'bad');
    expect(error instanceof root.AgySdkError).toBe(true);
    expect(testing.CassetteError).toBe(root.CassetteError ?? testing.CassetteError);
    expect(root.Agent.name).toBe('Agent');
  });
});
