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

/** Modules of ours that only a feature in use may load. */
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

const loadedOurs = (urls: Set<string>) => HEAVY.filter((m) => urls.has(pathToFileURL(join(dist, m)).href));
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
    const ours = (urls: Set<string>, folder: string) =>
      [...urls].filter((u) => u.startsWith(pathToFileURL(join(dist, folder)).href));
    expect(ours(resolved(join(dist, 'index.js')), 'pool/')).toEqual([]);
    expect(ours(resolved(join(dist, 'pool/index.js')), 'pool/').length).toBeGreaterThan(0);
    const connection = resolved(join(dist, 'connection/index.js'));
    expect(loadedOurs(connection)).toEqual([]);
    expect(ours(connection, 'agent/')).toEqual([]);
    expect([...connection].filter((u) => u.includes('/node_modules/'))).toEqual([]);
  });
});
