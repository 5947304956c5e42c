/**
 * The Python SDK's low-level conversation access and stream chunks
 * (docs/reference/design-sources.md#seed-003-the-python-sdk): `conversation.send()` / `conversation.steps()`
 * (Python `send` / `receive_steps`), `response.chunks()` (`StreamChunk`: `Text`, `Thought`), `ToolContext.isIdle`
 * and `conversation.compactionIndices`, on the in-memory connection.
 */
import { describe, expect, it } from 'vitest';
import { Agent, hooks, type Step, TurnError } from '../../src/index.js';
import { InMemoryConnection } from '../../src/testing/index.js';
import { createToolContext, StateStore } from '../../src/tools/tool-context.js';

async function take<T>(it: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  while (out.length < n) {
    const next = await it.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('conversation.send() and conversation.steps()', () => {
  it('steps() sees every step of every turn from now on, trigger-started ones included', async () => {
    const conn = new InMemoryConnection({
      turns: [
        { steps: [{ type: 'agent_response', stepIndex: 1, textDelta: 'one' }] },
        { steps: [{ type: 'agent_response', stepIndex: 2, textDelta: 'two' }] },
      ],
    });
    const agent = new Agent({
      connection: conn.connect,
      triggers: [
        async (ctx) => {
          await ctx.send('from a trigger');
        },
      ],
    });
    await agent.start();
    const steps = agent.conversation.steps();
    const firstTwo = take(steps, 2);
    await agent.conversation.send('hello');
    const got: Step[] = await firstTwo;
    expect(got.map((s) => s.textDelta).sort()).toEqual(['one', 'two']);
    expect(conn.requests.map((r) => r.text[0]).sort()).toEqual(['from a trigger', 'hello']);
    // Closing ends the iterator.
    const rest = take(steps, 1);
    await agent.close();
    expect(await rest).toEqual([]);
  });

  it('send() resolves once the prompt is handed over, before the turn ends', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'working' }], hang: true }],
    });
    await using agent = new Agent({ connection: conn.connect });
    await agent.start();
    const steps = agent.conversation.steps();
    await agent.conversation.send('go');
    expect(conn.requests).toHaveLength(1);
    const [step] = await take(steps, 1);
    expect(step?.textDelta).toBe('working');
    // The turn still runs (it hangs until interrupted): send() did not wait for its end.
    expect(agent.conversation.isRunning).toBe(true);
    await agent.interrupt();
  });

  it('return() ends a steps() iterator, even one never iterated', async () => {
    const conn = new InMemoryConnection({ turns: [{ steps: [{ type: 'agent_response', textDelta: 'x' }] }] });
    await using agent = new Agent({ connection: conn.connect });
    await agent.start();
    const steps = agent.conversation.steps();
    await steps.return?.();
    await (await agent.chat('go')).result();
    expect(await steps.next()).toEqual({ done: true, value: undefined });
  });

  it('send() rejects with a TurnError when the turn ends unsent (a preTurn deny)', async () => {
    const conn = new InMemoryConnection();
    await using agent = new Agent({
      connection: conn.connect,
      hooks: [hooks.preTurn(() => ({ allow: false, message: 'not now' }))],
    });
    await agent.start();
    const err = await agent.conversation.send('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TurnError);
    expect((err as TurnError).result.status).toBe('denied');
    expect(conn.requests).toHaveLength(0);
  });
});

describe('response.chunks()', () => {
  it('yields text and thought deltas in order with their step index', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'agent_response', stepIndex: 3, state: 'ACTIVE', thoughtDelta: 'hmm' },
            { type: 'agent_response', stepIndex: 3, state: 'ACTIVE', textDelta: 'Hel' },
            { type: 'agent_response', stepIndex: 3, textDelta: 'lo' },
            { type: 'agent_response', stepIndex: 5, textDelta: '!' },
          ],
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const response = await agent.chat('hi');
    const chunks = [];
    for await (const chunk of response.chunks()) chunks.push(chunk);
    expect(chunks).toEqual([
      { type: 'thought', text: 'hmm', stepIndex: 3 },
      { type: 'text', text: 'Hel', stepIndex: 3 },
      { type: 'text', text: 'lo', stepIndex: 3 },
      { type: 'text', text: '!', stepIndex: 5 },
    ]);
  });
});

describe('compactionIndices and ToolContext.isIdle', () => {
  it('compactionIndices marks DONE compaction steps by their position', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'user_input', stepIndex: 0 },
            { type: 'compaction', stepIndex: 1, state: 'ACTIVE' },
            { type: 'compaction', stepIndex: 1, state: 'DONE' },
            { type: 'agent_response', stepIndex: 2, textDelta: 'ok' },
          ],
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    await (await agent.chat('go')).result();
    expect(agent.conversation.compactionIndices).toEqual([2]);
    expect(agent.conversation.history[2]?.type).toBe('compaction');
  });

  it('isIdle follows the conversation: false while a turn runs, true after', async () => {
    const conn = new InMemoryConnection({ turns: [{ hang: true }] });
    await using agent = new Agent({ connection: conn.connect });
    await agent.start();
    const ctx = createToolContext(
      conn.host!.toolContext ?? {},
      new StateStore(),
      new AbortController().signal,
    );
    expect(ctx.isIdle).toBe(true);
    const response = await agent.chat('go');
    await expect.poll(() => conn.requests.length, { timeout: 30_000 }).toBe(1);
    expect(ctx.isIdle).toBe(false);
    await agent.interrupt();
    await response.result();
    // The queue's pump lets go right after the response settles.
    await expect.poll(() => ctx.isIdle, { timeout: 30_000 }).toBe(true);
  });
});
