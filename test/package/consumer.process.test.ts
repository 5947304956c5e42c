// The published shape: a consumer project type-checks against the built declarations (no skipLibCheck, no DOM
// lib), the package resolves by name from its own root, and internals marked @internal are not in the
// declarations. The registry-backed checks (packed tarball, lowest and latest zod, a nested second zod copy)
// are the CI step `test/package/zod-matrix.mjs`.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRICT_CONSUMER_TSCONFIG } from './strict-tsconfig.js';

const root = resolve(import.meta.dirname, '../..');
const dist = join(root, 'dist');
const built = existsSync(join(dist, 'index.d.ts'));
// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agy-sdk-consumer-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Type-checking every declaration file (ours, zod's, @types/node) takes 10–90 s on a loaded 2-core machine.
const TSC_TIMEOUT_MS = 300_000;

/** Every declaration file reachable from `entry` through relative imports, with its bare imports. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);
    seen.set(
      file,
      specifiers.filter((s) => !s.startsWith('.')),
    );
    for (const s of specifiers) {
      if (s.startsWith('.')) queue.push(resolve(dirname(file), s.replace(/\.js$/, '.d.ts')));
    }
  }
  return seen;
}

describe.skipIf(!built)('package', () => {
  it(
    'type-checks a strict Node-only consumer (lib ES2022, types node, skipLibCheck off) against both entry points',
    () => {
      mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
      symlinkSync(root, join(dir, 'node_modules/agy-sdk'));
      for (const dep of ['zod', '@modelcontextprotocol', 'ajv'])
        symlinkSync(join(root, 'node_modules', dep), join(dir, 'node_modules', dep));
      symlinkSync(join(root, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
      writeFileSync(join(dir, 'tsconfig.json'), STRICT_CONSUMER_TSCONFIG);
      writeFileSync(
        join(dir, 'main.ts'),
        `import { Agent, type ChatResponse, hooks, policy, tool, type TurnResult } from 'agy-sdk';
import { InMemoryConnection, simulatorPath, type Scenario } from 'agy-sdk/testing';
import type { WireResult } from 'agy-sdk/wire';
import { z } from 'zod';
const scenario: Scenario = { turns: [{ actions: [{ text: 'hi' }] }] };
const echo = tool({ name: 'echo', description: 'echo', input: z.object({ a: z.string() }) }, ({ a }) => a.toUpperCase());
const typed = tool(
  { name: 'typed', description: 'typed', input: z.object({ n: z.number().default(1) }), output: z.object({ s: z.string() }) },
  ({ n }) => ({ s: n.toFixed(0) }),
);
const agent = new Agent({
  agyPath: simulatorPath(),
  tools: [echo, typed],
  responseSchema: z.object({ summary: z.string() }),
  policies: [policy.allowAll()],
  hooks: [hooks.postTurn(() => {})],
});
const served: string = agent.servedName(typed);
const names: ReadonlyMap<string, string> = agent.toolNames;
const response: ChatResponse = await agent.chat('hi');
const result: TurnResult = await response.result();
const wire = result.result as WireResult | null;
// @ts-expect-error ChatResponse is created by the SDK only: a type, not a constructor.
new ChatResponse();
const memory = new Agent({ connection: new InMemoryConnection({ turns: [{}] }).connect });
export { memory, names, result, scenario, served, wire };
`,
      );
      const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
        encoding: 'utf8',
      });
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it('public declarations import neither the MCP SDK nor DOM-only types', () => {
    const files = new Map([
      ...reachable(join(dist, 'index.d.ts')),
      ...reachable(join(dist, 'testing/index.d.ts')),
    ]);
    expect(files.size).toBeGreaterThan(20);
    const offenders = [...files]
      .filter(([, bare]) => bare.some((s) => s.startsWith('@modelcontextprotocol/')))
      .map(([file]) => file.slice(dist.length + 1));
    expect(offenders).toEqual([]);
    for (const file of files.keys()) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/\b(?:HeadersInit|RequestInit|lib="dom")\b/);
    }
  });

  it('resolves `agy-sdk`, `agy-sdk/testing` and `agy-sdk/wire` (types only) by name from the package root', () => {
    const out = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('agy-sdk'); const t = await import('agy-sdk/testing'); const w = await import('agy-sdk/wire'); console.log(typeof m.Agent, typeof t.simulatorPath, Object.keys(w).length);",
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(out.stdout.trim()).toBe('function function 0');
  });

  it('keeps @internal members out of the declarations', () => {
    const response = readFileSync(join(dist, 'conversation/chat-response.d.ts'), 'utf8');
    expect(response).not.toMatch(/pushStep|finish\(|static create/);
    // Not constructible by users, and the declarations say so (no public zero-argument constructor).
    expect(response).toMatch(/private constructor\(\);/);
    const conversation = readFileSync(join(dist, 'conversation/conversation.d.ts'), 'utf8');
    expect(conversation).toMatch(/private constructor\(\);/);
    expect(conversation).not.toMatch(/static create/);
    const index = readFileSync(join(dist, 'index.d.ts'), 'utf8');
    expect(index).toMatch(/export type \{ ChatResponse, StreamChunk \}/);
    expect(index).toMatch(/export type \{ Conversation \}/);
    const agent = readFileSync(join(dist, 'agent/agent.d.ts'), 'utf8');
    expect(agent).not.toMatch(/get runtime|get connection/);
  });
});
