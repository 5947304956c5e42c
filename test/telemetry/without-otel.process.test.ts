/**
 * The package works without its optional peer `@opentelemetry/api`: the built package (dist/) is imported from
 * a directory whose node_modules has every other dependency but no `@opentelemetry/*`, as a user's install
 * without the API would be, and runs a turn. A provider given without the API is a clear ConfigError.
 * Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const built = existsSync(join(root, 'dist/index.js'));

const SCRIPT = `
import { Agent, ConfigError } from 'agy-sdk';
import { AgentPool } from 'agy-sdk/pool';
import { InMemoryConnection } from 'agy-sdk/testing';
const out = {};
try { await import('@opentelemetry/api'); out.api = 'present'; } catch { out.api = 'absent'; }
const conn = new InMemoryConnection({ turns: [{ steps: [{ type: 'agent_response', textDelta: 'hi', usage: { inputTokens: 3, outputTokens: 1, thinkingTokens: 0, cacheReadTokens: 0, totalTokens: 4 } }], result: { usage: { inputTokens: 3, outputTokens: 1, thinkingTokens: 0, cacheReadTokens: 0, totalTokens: 4 } } }] });
const agent = new Agent({ connection: conn.connect, model: 'gemini-2.5-flash' });
const result = await (await agent.chat('hello')).result();
await agent.close();
out.status = result.status;
out.text = result.text;
out.costUsd = result.usage?.costUsd;
const withProvider = new Agent({ connection: new InMemoryConnection().connect, telemetry: { tracerProvider: { getTracer: () => ({}) } } });
try { await withProvider.start(); out.provider = 'started'; } catch (e) { out.provider = e instanceof ConfigError ? e.field + ': ' + e.message : String(e); }
// The pool without the API: it runs unchanged; a meter provider given to it is the same ConfigError.
const pool = new AgentPool({ size: 1, agent: { connection: new InMemoryConnection({ turns: [{ steps: [{ type: 'agent_response', textDelta: 'pooled' }] }] }).connect } });
await pool.start();
const pooled = await (await pool.run('k', 'hello')).result();
out.pool = { status: pooled.status, text: pooled.text, turns: pool.stats.turns, idle: pool.stats.idle };
await pool.close();
const meteredPool = new AgentPool({ size: 1, agent: { connection: new InMemoryConnection().connect }, telemetry: { meterProvider: { getMeter: () => ({}) } } });
try { await meteredPool.start(); out.poolProvider = 'started'; } catch (e) { out.poolProvider = e instanceof ConfigError ? e.field + ': ' + e.message : String(e); }
await meteredPool.close();
console.log(JSON.stringify(out));
`;

describe.skipIf(!built)(built ? 'without @opentelemetry/api' : 'skipped: run `npm run build` first', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agy-sdk-no-otel-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports and runs a turn, and a pool turn; a provider without the API is a ConfigError', () => {
    const pkg = join(dir, 'node_modules/agy-sdk');
    mkdirSync(pkg, { recursive: true });
    cpSync(join(root, 'dist'), join(pkg, 'dist'), { recursive: true });
    cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
    // Every installed package but @opentelemetry/*, linked next to the package (as npm would hoist them).
    for (const entry of readdirSync(join(root, 'node_modules'))) {
      if (entry.startsWith('.') || entry === '@opentelemetry') continue;
      symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry));
    }
    writeFileSync(join(dir, 'main.mjs'), SCRIPT);
    const run = spawnSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/opentelemetry/i);
    const out = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}');
    expect(out).toMatchObject({ api: 'absent', status: 'success', text: 'hi' });
    expect(out.costUsd).toBeCloseTo((3 * 0.3 + 1 * 2.5) / 1e6, 12);
    expect(out.provider).toMatch(/^telemetry: .*@opentelemetry\/api is not installed/);
    expect(out.pool).toEqual({ status: 'success', text: 'pooled', turns: 1, idle: 1 });
    expect(out.poolProvider).toMatch(/^telemetry: .*@opentelemetry\/api is not installed/);
  });
});

/** Every declaration file reachable from `entry` through relative imports, with the bare specifiers each names. */
function declarations(entry: string, seen = new Map<string, string[]>()): Map<string, string[]> {
  if (seen.has(entry) || !existsSync(entry)) return seen;
  const text = readFileSync(entry, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\()['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  seen.set(
    entry,
    specifiers.filter((s) => !s.startsWith('.')),
  );
  for (const s of specifiers.filter((x) => x.startsWith('.')))
    declarations(join(dirname(entry), s.replace(/\.js$/, '.d.ts')), seen);
  return seen;
}

describe.skipIf(!built)(built ? 'public declarations' : 'skipped: run `npm run build` first', () => {
  it('never name @opentelemetry/* (a consumer without the optional peer type-checks)', () => {
    const files = new Map<string, string[]>();
    for (const entry of ['index.d.ts', 'testing/index.d.ts', 'gateway/index.d.ts', 'wire.d.ts'])
      declarations(join(root, 'dist', entry), files);
    expect(files.size).toBeGreaterThan(20);
    const offenders = [...files].filter(([, bare]) => bare.some((s) => s.startsWith('@opentelemetry/')));
    expect(offenders.map(([f]) => f)).toEqual([]);
    // The telemetry implementation does name it (its options, through `tracing.d.ts`): this check would see it
    // if it were reachable.
    const implementation = declarations(join(root, 'dist/telemetry/tracing.d.ts'));
    expect([...implementation.values()].flat()).toContain('@opentelemetry/api');
  });
});
