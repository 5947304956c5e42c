// The MCP client's code cache holds what a session runs, not only what loading the client runs: the build
// writes it after its McpHub connected to a real session listener, listed and called a tool
// (scripts/write-mcp-client-cache.mjs), so each simulator compiles none of that again (~7 ms of CPU per session
// start, bench/many-agents.mjs). V8 says nothing about which functions a cache holds; a cache holding more
// compiled functions is larger, so the built cache must be larger than one written after the load alone.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const fixture = join(root, 'test/fixtures/simulator/mcp-client-cache.mjs');
const built = join(root, 'dist/testing/simulator/mcp-client.code-cache');
const dir = mkdtempSync(join(tmpdir(), 'agy-sdk-mcp-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function write(mode: 'exercise' | 'load only'): Promise<Record<string, unknown>> {
  const file = join(dir, `${mode === 'exercise' ? 'exercised' : 'loaded'}.code-cache`);
  // As the build runs it: no flags (V8 refuses a cache made under other flags).
  const { stdout } = await promisify(execFile)(process.execPath, [fixture, file, mode], {
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
}

describe("the MCP client's code cache", () => {
  it('is written after the exercise, which loadMcpClient() serves from the run being cached', async () => {
    const out = await write('exercise');
    expect(out).toMatchObject({ client: true, sameRun: true, load: 'bundle, no code cache' });
    expect(out.bytes).toBeGreaterThan(0);
  }, 60_000);

  it("the build's holds more than the load alone compiles", async () => {
    const loadOnly = await write('load only');
    expect(loadOnly.bytes as number).toBeGreaterThan(100_000);
    // The connect, list and call paths add tens of KB of bytecode (~55 KB on Node 20).
    expect(statSync(built).size).toBeGreaterThan((loadOnly.bytes as number) + 20_000);
  }, 60_000);
});
