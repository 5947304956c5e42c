/**
 * Layer-2 behaviours that used to start the simulator although no process takes part in
 * them: the conversation queue, ChatResponse cursors and history, pre/post-turn and session hooks, compaction
 * hooks, token budgets, 'next-turn' and 'now' steering, triggers, and structured-output validation (the Agent
 * validates what the backend returned). They run here on the in-memory connection of `agy-sdk/testing`, with the
 * same assertions. What needs agy (its hooks through the relay, `--json-schema` in argv, signals) stays in
 * the `*.process.test.ts` files beside the code it tests.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  ContentError,
  hooks,
  onFileChange,
  type Step,
  StructuredOutputError,
  type ToolCall,
  TurnError,
} from '../../src/index.js';
import { InMemoryConnection, type ScriptedStep } from '../../src/testing/index.js';
import { collect } from '../helpers/agents.js';

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  thinkingTokens: 0,
  cacheReadTokens: 0,
  totalTokens: input + output,
});

function toolStep(stepIndex: number, state: Step['state'], extra: Partial<ToolCall> = {}): ScriptedStep {
  return {
    type: 'tool',
    stepIndex,
    state,
    tool: {
      id: `mem-conversation:${stepIndex}`,
      name: 'view_file',
      args: { AbsolutePath: '/wd/a' },
      stepIndex,
      state,
      ...extra,
    },
  };
}

describe('chat (was test/agent/agent.process.test.ts)', () => {
  it('queues a chat sent while a turn runs and runs it next, in order', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: ['s', 'l', 'o', 'w'].map(
            (textDelta) => ({ type: 'agent_response', textDelta }) as ScriptedStep,
          ),
        },
        { steps: [{ type: 'agent_response', textDelta: 'next' }] },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const order: string[] = [];
    const [a, b] = await Promise.all([agent.chat('a'), agent.chat('b')]);
    const record = (name: string) => (t: string) => {
      order.push(name);
      return t;
    };
    const [ta, tb] = await Promise.all([a.text().then(record('a')), b.text().then(record('b'))]);
    expect([ta, tb]).toEqual(['slow', 'next']);
    expect(order).toEqual(['a', 'b']);
    expect(conn.requests.map((r) => r.text)).toEqual([['a'], ['b']]);
  });

  it('gives every iterator an independent cursor over the whole turn, even when started late', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'user_input', stepIndex: 0 },
            toolStep(1, 'ACTIVE'),
            toolStep(1, 'DONE', { output: 'a\nb' }),
            { type: 'agent_response', stepIndex: 2, state: 'ACTIVE', textDelta: 'hello' },
            { type: 'agent_response', stepIndex: 2, state: 'ACTIVE', textDelta: ' wor' },
            { type: 'agent_response', stepIndex: 2, textDelta: 'ld' },
          ],
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const r = await agent.chat('go');
    const [early1, early2] = await Promise.all([collect(r), collect(r)]);
    await r.result();
    const late = await collect(r);
    expect(early1.join('')).toBe('hello world');
    expect(early2).toEqual(early1);
    expect(late).toEqual(early1);
    expect(early1.length).toBe(3);
    const calls = await collect(r.toolCalls());
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'view_file', args: { AbsolutePath: '/wd/a' } });
    const results = await collect(r.toolResults());
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ state: 'DONE', output: 'a\nb' });
    expect(await collect(r.thoughts())).toEqual([]);
    const steps = await collect(r.steps());
    expect(steps.map((s) => s.type)).toEqual(
      expect.arrayContaining(['user_input', 'tool', 'agent_response']),
    );
    expect(agent.conversation.history.length).toBe(steps.length);
    agent.conversation.clearHistory();
    expect(agent.conversation.history).toHaveLength(0);
  });

  it('rejects an empty prompt with ContentError, before anything reaches the backend', async () => {
    const conn = new InMemoryConnection();
    await using agent = new Agent({ connection: conn.connect });
    await expect(agent.chat('')).rejects.toBeInstanceOf(ContentError);
    await expect(agent.chat('   ')).rejects.toBeInstanceOf(ContentError);
    await expect(agent.chat([])).rejects.toBeInstanceOf(ContentError);
    expect(conn.requests).toEqual([]);
  });

  it('a prompt given to the conversation directly that does not parse fails its own turn, in order', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'ok' }] }],
    });
    await using agent = new Agent({ connection: conn.connect });
    await agent.start();
    const bad = agent.conversation.chat('   ');
    const good = agent.conversation.chat('fine');
    const result = await bad.result();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(ContentError);
    expect(await good.text()).toBe('ok');
    expect(conn.requests.map((r) => r.text)).toEqual([['fine']]);
    expect(agent.conversation.turnCount).toBe(2);
  });

  it("a turn's own schema travels with that turn only: the turn queued behind it is checked against the agent's", async () => {
    const Schema = z.object({ summary: z.string() });
    const Own = z.object({ n: z.number() });
    const conn = new InMemoryConnection({
      turns: [
        { steps: [{ type: 'agent_response', textDelta: 'a' }], result: { structuredOutput: { n: 1 } } },
        { result: { structuredOutput: { summary: 's' } } },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, responseSchema: Schema });
    const own = await agent.chat('first', { responseSchema: Own });
    const agents = await agent.chat('second');
    expect(await own.structuredOutput()).toEqual({ n: 1 });
    expect(await agents.structuredOutput()).toEqual({ summary: 's' });
    // Only a schema other than the agent's goes with the request (the agent's went in at start).
    expect(conn.requests[0]?.jsonSchema).toMatchObject({ properties: { n: { type: 'number' } } });
    expect(conn.requests[1]?.jsonSchema).toBeUndefined();
  });
});

describe('turn and session hooks (was test/agent/control-plane.process.test.ts)', () => {
  it('preTurn deny stops the prompt before the backend sees it; postTurn sees the text', async () => {
    const texts: string[] = [];
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'allowed answer' }] }],
    });
    await using agent = new Agent({
      connection: conn.connect,
      hooks: [
        hooks.preTurn((prompt) =>
          prompt.includes('secret') ? { allow: false, message: 'no secrets' } : true,
        ),
        hooks.postTurn((text) => void texts.push(text)),
      ],
    });
    const denied = await (await agent.chat('tell me the secret')).result();
    expect(denied).toMatchObject({
      status: 'denied',
      errorMessage: "turn denied by hook 'preTurn' (no secrets)",
    });
    expect(agent.conversation.history).toHaveLength(0);
    expect(await (await agent.chat('hello')).text()).toBe('allowed answer');
    expect(texts).toEqual(['allowed answer']);
    expect(conn.requests.map((r) => r.text)).toEqual([['hello']]);
  });

  it('session hooks run on start and close', async () => {
    const events: string[] = [];
    const conn = new InMemoryConnection();
    const agent = new Agent({
      connection: conn.connect,
      hooks: [
        hooks.onSessionStart((s) => void events.push(`start:${s.conversationId ? 'id' : 'none'}`)),
        hooks.onSessionEnd(() => void events.push('end')),
      ],
    });
    await agent.start();
    expect(events).toEqual(['start:id']);
    await agent.close();
    expect(events).toEqual(['start:id', 'end']);
    expect(conn.closed).toBe(true);
  });

  it('onCompaction runs on a compaction step, if the backend streams one', async () => {
    const seen: number[] = [];
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'user_input', stepIndex: 0 },
            { type: 'compaction', stepIndex: 1 },
            { type: 'agent_response', stepIndex: 2, textDelta: 'ok' },
          ],
        },
      ],
    });
    await using agent = new Agent({
      connection: conn.connect,
      hooks: [hooks.onCompaction((event) => void seen.push(event.stepIndex ?? -1))],
    });
    expect(await (await agent.chat('x')).text()).toBe('ok');
    expect(seen).toEqual([1]);
  });
});

describe('budgets and steering (was test/agent/control-plane.process.test.ts)', () => {
  it('counts tokens from DONE model steps only', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          // An ACTIVE update's usage is not counted; the DONE one crosses the budget.
          steps: [
            { type: 'agent_response', stepIndex: 1, state: 'ACTIVE', usage: usage(500, 50), textDelta: 'a' },
            { type: 'agent_response', stepIndex: 1, state: 'DONE', usage: usage(500, 50) },
          ],
          hang: true,
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, budget: { maxTotalTokens: 100 } });
    const r = await agent.chat('x');
    const result = await r.result();
    expect(result).toMatchObject({ status: 'budget_exceeded', budget: 'maxTotalTokens' });
    // Stopped on the DONE update, not the ACTIVE one before it.
    expect((await collect(r.steps())).map((s) => s.state)).toEqual(['ACTIVE', 'DONE']);
  });

  it("'next-turn' queues the message as the next turn", async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: ['o', 'n', 'e'].map((textDelta) => ({ type: 'agent_response', textDelta }) as ScriptedStep),
        },
        (request) => ({
          steps: [
            { type: 'agent_response', textDelta: request.text.join('') === 'also do B' ? 'two' : 'wrong' },
          ],
        }),
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const r1 = await agent.chat('do A');
    const r2 = await agent.steer('also do B', { when: 'next-turn' });
    expect(await r1.text()).toBe('one');
    expect(await r2?.text()).toBe('two');
    expect((await r1.result()).status).toBe('success');
  });

  it("'now' re-prompts on the same conversation first; a turn queued before it is not canceled", async () => {
    const conn = new InMemoryConnection({
      turns: [
        { steps: [{ type: 'agent_response', textDelta: 'working' }], hang: true },
        { steps: [{ type: 'agent_response', textDelta: 'replanned' }] },
        { steps: [{ type: 'agent_response', textDelta: 'later' }] },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const r1 = await agent.chat('long job');
    for await (const d of r1) if (d) break;
    const queued = await agent.chat('queued after');
    const id = agent.conversationId;
    const r2 = await agent.steer('change of plan', { when: 'now' });
    expect((await r1.result()).status).toBe('interrupted');
    expect(await r2?.text()).toBe('replanned');
    expect(agent.conversationId).toBe(id);
    expect((await queued.result()).status).toBe('success');
    expect(conn.requests.map((r) => r.text.join(''))).toEqual(['long job', 'change of plan', 'queued after']);
  });
});

describe('triggers (was test/agent/control-plane.process.test.ts)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agy-sdk-mem-trigger-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('onFileChange sends a message that runs as a turn; triggers stop on close', async () => {
    const watched = join(root, 'watched');
    mkdirSync(watched);
    let seen!: (text: string) => void;
    const turnText = new Promise<string>((resolve) => {
      seen = resolve;
    });
    const conn = new InMemoryConnection({
      turns: [
        (request) => ({ steps: [{ type: 'agent_response', textDelta: `echo: ${request.text.join('')}` }] }),
      ],
    });
    const agent = new Agent({
      connection: conn.connect,
      triggers: [
        onFileChange(watched, async (changes, ctx) =>
          ctx.send(`files changed: ${changes.map((c) => c.kind).join(',')}`),
        ),
      ],
      hooks: [hooks.postTurn((text) => void (text.includes('files changed') && seen(text)))],
    });
    await agent.start();
    writeFileSync(join(watched, 'new.txt'), 'x');
    expect(await turnText).toContain('files changed: added');
    // close() stops the watcher first (a live chokidar watcher would keep the file open past it).
    await agent.close();
    expect(conn.closed).toBe(true);
  });
});

describe('structured output validation (was test/content/content.process.test.ts)', () => {
  const Schema = z.object({ summary: z.string(), risk: z.enum(['low', 'high']) });

  it('a mismatch is a typed failure, never success', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [{ type: 'agent_response', textDelta: 'done' }],
          result: { structuredOutput: { summary: 1, risk: 'medium' } },
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, responseSchema: Schema });
    const r = await agent.chat('analyze');
    const result = await r.result();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(StructuredOutputError);
    expect((result.error as StructuredOutputError).issues.join()).toMatch(/summary/);
    await expect(r.structuredOutput()).rejects.toBeInstanceOf(TurnError);
  });

  it('a missing value is a typed failure', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'not json' }] }],
    });
    await using agent = new Agent({
      connection: conn.connect,
      responseSchema: { type: 'object', required: ['a'] },
    });
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('error');
    expect(result.errorMessage).toMatch(/no structured_output/);
  });

  it('validates against an agent-level plain JSON Schema too', async () => {
    const conn = new InMemoryConnection({ turns: [{ result: { structuredOutput: { a: 2 } } }] });
    await using agent = new Agent({
      connection: conn.connect,
      responseSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    });
    expect(await (await agent.chat('x')).structuredOutput()).toEqual({ a: 2 });
  });
});

describe('fail closed (was test/agent/failure-paths.process.test.ts)', () => {
  it('a budget crossed on the last model step still ends `budget_exceeded`, even though the backend said SUCCESS', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [{ type: 'agent_response', textDelta: 'long answer', usage: usage(10, 500) }],
          result: { result: { status: 'SUCCESS' } },
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, budget: { maxOutputTokens: 5 } });
    const result = await (await agent.chat('x')).result();
    expect(result.result?.status).toBe('SUCCESS');
    expect(result).toMatchObject({ status: 'budget_exceeded', budget: 'maxOutputTokens' });
  });

  it('cancel() while the turn is being prepared (a slow preTurn hook) means the message is never sent', async () => {
    let entered!: () => void;
    const inHook = new Promise<void>((r) => {
      entered = r;
    });
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'no' }] }],
    });
    await using agent = new Agent({
      connection: conn.connect,
      hooks: [
        hooks.preTurn(async () => {
          entered();
          await held;
          return true;
        }),
      ],
    });
    await agent.start();
    const r = await agent.chat('never sent');
    await inHook;
    await r.cancel();
    release();
    const result = await r.result();
    expect(result.status).toBe('canceled');
    expect(agent.conversation.history).toHaveLength(0);
    expect(conn.requests).toEqual([]);
  });
});
