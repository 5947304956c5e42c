/**
 * `session-update-check.ts` mirrors the ACP SDK's own `session/update` schema (the one its router parses with
 * before our handler, and reports failures of with `console.error`; docs/reference/acp.md#hostile-agents). The
 * mirror is only right if it takes exactly what the SDK takes: rejecting less lets a hostile update reach
 * `console.error`, rejecting more drops updates a real agent sends. This compares the two on Gemini CLI 0.61's
 * recorded updates (test/fixtures/acp/gemini-cli-0.61) and on samples of every kind, each mutated field by field.
 * The SDK's schema is not exported; the test loads its generated module next to the package's entry (a test may
 * lean on the installed SDK's layout: if the SDK moves it, this fails loudly, and the mirror needs a look anyway).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionUpdateProblem } from '../../../src/connection/acp/session-update-check.js';

interface SafeParser {
  safeParse(value: unknown): { success: boolean };
}

let sdkSchema: SafeParser;
beforeAll(async () => {
  const entry = import.meta.resolve('@agentclientprotocol/sdk');
  const generated = (await import(new URL('../schema/zod.gen.js', entry).href)) as {
    zSessionNotification: SafeParser;
  };
  sdkSchema = generated.zSessionNotification;
});

const CAPTURES = fileURLToPath(new URL('../../fixtures/acp/gemini-cli-0.61/', import.meta.url));

/** Every distinct `session/update`'s params the recorded Gemini CLI sent. */
function recordedUpdates(): unknown[] {
  const out = new Map<string, unknown>();
  for (const file of readdirSync(CAPTURES).filter((f) => f.endsWith('.jsonl')))
    for (const line of readFileSync(join(CAPTURES, file), 'utf8').split('\n').filter(Boolean)) {
      const { dir, msg } = JSON.parse(line) as { dir: string; msg: { method?: string; params?: unknown } };
      if (dir === 'in' && msg.method === 'session/update') out.set(JSON.stringify(msg.params), msg.params);
    }
  return [...out.values()];
}

const annotations = { audience: ['user'], lastModified: '2025-01-01', priority: 1, _meta: {} };
const blocks = [
  { type: 'text', text: 'hi', annotations },
  { type: 'image', data: 'AA==', mimeType: 'image/png', uri: 'file:///a.png' },
  { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
  {
    type: 'resource_link',
    name: 'a',
    uri: 'file:///a',
    size: 3,
    title: 't',
    description: 'd',
    mimeType: 'm',
  },
  { type: 'resource', resource: { uri: 'file:///a', text: 'x', mimeType: 'text/plain' } },
  { type: 'resource', resource: { uri: 'file:///b', blob: 'AA==' } },
];
const toolContent = [
  { type: 'content', content: { type: 'text', text: 'out' } },
  { type: 'diff', path: '/w/a', oldText: null, newText: 'x' },
  { type: 'terminal', terminalId: 'term-1' },
];
const configOption = {
  type: 'select',
  id: 'model',
  name: 'Model',
  category: 'model',
  currentValue: 'm1',
  options: [{ value: 'm1', name: 'M1' }],
};

/** One sample of every update kind the SDK knows, with its optional fields filled in. */
const samples: Record<string, unknown>[] = [
  ...blocks.map((content) => ({ sessionUpdate: 'agent_message_chunk', content, messageId: 'm' })),
  { sessionUpdate: 'user_message_chunk', content: blocks[0] },
  { sessionUpdate: 'agent_thought_chunk', content: blocks[0] },
  {
    sessionUpdate: 'tool_call',
    toolCallId: 't',
    title: 'Read',
    name: 'read_file',
    kind: 'read',
    status: 'pending',
    content: toolContent,
    locations: [{ path: '/w/a', line: 3 }],
    rawInput: { a: 1 },
    rawOutput: 'x',
  },
  {
    sessionUpdate: 'tool_call_update',
    toolCallId: 't',
    status: 'completed',
    content: toolContent,
    title: 'R',
  },
  { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'high', status: 'pending' }] },
  {
    sessionUpdate: 'available_commands_update',
    availableCommands: [{ name: 'c', description: 'd', input: { hint: 'h' } }],
  },
  { sessionUpdate: 'current_mode_update', currentModeId: 'default' },
  { sessionUpdate: 'config_option_update', configOptions: [configOption] },
  { sessionUpdate: 'session_info_update', title: 't', updatedAt: 'now' },
  { sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 0.5, currency: 'USD' } },
  { sessionUpdate: 'notice', severity: 'warning', title: 'Heads up', description: 'd' },
  { sessionUpdate: 'compaction_update', compactionId: 'c', status: 'completed', summary: [blocks[0]] },
  { sessionUpdate: 'compaction_summary_chunk', compactionId: 'c', content: blocks[0] },
];

/** Values a field is replaced with: wrong types, edge numbers, made-up tags. */
const REPLACEMENTS: unknown[] = [null, 42, -1, 1.5, 2 ** 60, '', 'x', 'made_up', true, [], {}, [1, 'a']];

/** `value` with the field at `path` replaced by `next` (undefined: deleted). */
function withField(value: unknown, path: (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = withField(copy[head as number], rest, next);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && next === undefined) delete copy[head as string];
  else copy[head as string] = withField(copy[head as string], rest, next);
  return copy;
}

/** Every field path inside `value` (objects and arrays, all depths). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => {
    const p = [...prefix, k];
    return [p, ...paths((value as Record<string | number, unknown>)[k], p)];
  });
}

/** Each params, then every one-field mutation of it (deleted, or replaced by each of `REPLACEMENTS`). */
function mutations(params: unknown): unknown[] {
  const out = [params];
  for (const p of paths(params))
    for (const next of [undefined, ...REPLACEMENTS]) out.push(withField(params, p, next));
  return out;
}

/** The params on which the mirror and the SDK disagree. */
function disagreements(corpus: unknown[]): { params: unknown; sdk: boolean; ours: boolean }[] {
  return corpus
    .map((params) => ({
      params,
      sdk: sdkSchema.safeParse(params).success,
      ours: sessionUpdateProblem(params) === undefined,
    }))
    .filter((r) => r.sdk !== r.ours);
}

describe("the session/update check mirrors the SDK's schema", () => {
  it("takes every update Gemini CLI 0.61 sent, as the SDK does, and agrees on each one's mutations", () => {
    const recorded = recordedUpdates();
    expect(recorded.length).toBeGreaterThan(10);
    for (const params of recorded) expect(sessionUpdateProblem(params)).toBeUndefined();
    const corpus = recorded.flatMap(mutations);
    expect(disagreements(corpus)).toEqual([]);
  });

  it('agrees with the SDK on a sample of every kind and on every one-field mutation of each', () => {
    const corpus = samples.flatMap((update) => mutations({ sessionId: 's', update }));
    // Both sides must see rejections and acceptances, or the comparison proves nothing.
    const sdkRejects = corpus.filter((p) => !sdkSchema.safeParse(p).success).length;
    expect(sdkRejects).toBeGreaterThan(100);
    expect(corpus.length - sdkRejects).toBeGreaterThan(100);
    expect(disagreements(corpus)).toEqual([]);
  });

  it('names the kind and the first bad field, both truncated', () => {
    expect(
      sessionUpdateProblem({
        sessionId: 's',
        update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 5 },
      }),
    ).toEqual({
      kind: 'tool_call',
      problem: 'update.title: Invalid input: expected string, received number',
    });
    const long = 'k'.repeat(10_000);
    const bad = sessionUpdateProblem({ sessionId: 's', update: { sessionUpdate: long } });
    expect(bad?.kind?.length).toBeLessThanOrEqual(81);
    expect(bad?.problem.length).toBeLessThan(120);
    expect(sessionUpdateProblem({ sessionId: 's', update: [] })).toEqual({
      kind: undefined,
      problem: 'update is not an object',
    });
  });
});
