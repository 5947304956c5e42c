/**
 * The Agent, Conversation, ChatResponse, budgets, steering and pre-turn hooks on the in-memory connection of
 * `agy-sdk/testing`: no process, so these run in milliseconds. What needs agy itself (its hooks through the
 * relay, MCP over HTTP, signals, orphans) stays in the simulator-backed suites.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ControlPlane } from '../../src/agent/control-plane.js';
import { Agent, ContentError, hooks, Image } from '../../src/index.js';
import { InMemoryConnection } from '../../src/testing/index.js';

const usage = (total: number) => ({
  inputTokens: total,
  outputTokens: 0,
  thinkingTokens: 0,
  cacheReadTokens: 0,
  totalTokens: total,
});

describe('Agent on the in-memory connection', () => {
  it('runs queued turns in call order and streams each text to its own response', async () => {
    const conn = new InMemoryConnection({
      turns: [
        { steps: [{ type: 'agent_response', textDelta: 'one' }] },
        { steps: [{ type: 'agent_response', textDelta: 'two' }] },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const first = await agent.chat('a');
    const second = await agent.chat('b');
    expect(await second.text()).toBe('two');
    expect(await first.text()).toBe('one');
    expect(conn.requests.map((r) => r.text)).toEqual([['a'], ['b']]);
    expect(agent.conversationId).toBe('mem-conversation');
    expect(agent.conversation.turnCount).toBe(2);
  });

  it('gives every cursor of a response all steps, whenever it starts reading', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'agent_response', textDelta: 'x' },
            { type: 'agent_response', textDelta: 'y' },
          ],
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const response = await agent.chat('go');
    const early: string[] = [];
    for await (const chunk of response) early.push(chunk);
    const late: string[] = [];
    for await (const step of response.steps()) late.push(step.textDelta ?? '');
    expect(early).toEqual(['x', 'y']);
    expect(late).toEqual(['x', 'y']);
  });

  it('a preTurn deny ends the turn denied and nothing reaches the backend', async () => {
    const conn = new InMemoryConnection({ turns: [{ steps: [] }] });
    await using agent = new Agent({
      connection: conn.connect,
      hooks: [hooks.preTurn((prompt) => ({ allow: !prompt.includes('secret'), message: 'no secrets' }))],
    });
    const result = await (await agent.chat('the secret is 42')).result();
    expect(result.status).toBe('denied');
    expect(conn.requests).toEqual([]);
  });

  it('a token budget crossed by a step interrupts the turn: budget_exceeded, naming the budget', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'agent_response', usage: usage(80) },
            { type: 'agent_response', usage: usage(80) },
          ],
          hang: true,
        },
        { steps: [{ type: 'agent_response', textDelta: 'still here' }] },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, budget: { maxTotalTokens: 100 } });
    const result = await (await agent.chat('spend')).result();
    expect(result.status).toBe('budget_exceeded');
    expect(result.budget).toBe('maxTotalTokens');
    // The session survives: the next turn runs on the same connection.
    expect(await (await agent.chat('again')).text()).toBe('still here');
  });

  it("steer 'now' interrupts the running turn and runs first; the interrupted turn ends interrupted", async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'working' }], hang: true }, { steps: [] }, {}],
    });
    await using agent = new Agent({ connection: conn.connect });
    const running = await agent.chat('long task');
    const queued = await agent.chat('queued');
    for await (const _ of running) break; // the turn is running
    const steered = await agent.steer('stop that', { when: 'now' });
    expect((await running.result()).status).toBe('interrupted');
    expect((await steered!.result()).status).toBe('success');
    await queued.result();
    expect(conn.requests.map((r) => r.text.join(''))).toEqual(['long task', 'stop that', 'queued']);
  });

  it('validates structured output the backend returned; a mismatch ends the turn error', async () => {
    const conn = new InMemoryConnection({
      turns: [{ result: { structuredOutput: '{"n":1}' } }, { result: { structuredOutput: { n: 'one' } } }],
    });
    await using agent = new Agent({
      connection: conn.connect,
      responseSchema: z.object({ n: z.number() }),
    });
    expect(await (await agent.chat('a')).structuredOutput()).toEqual({ n: 1 });
    const bad = await (await agent.chat('b')).result();
    expect(bad.status).toBe('error');
    expect(bad.structuredOutput).toBeUndefined();
  });

  it('hides unvalidated structured output when no responseSchema is set', async () => {
    const conn = new InMemoryConnection({ turns: [{ result: { structuredOutput: { n: 1 } } }] });
    await using agent = new Agent({ connection: conn.connect });
    expect((await (await agent.chat('a')).result()).structuredOutput).toBeUndefined();
  });

  it('a media part fails with ContentError on a backend without an attachments directory', async () => {
    const conn = new InMemoryConnection({ turns: [{}] });
    await using agent = new Agent({ connection: conn.connect });
    const png = new Image({ data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), mimeType: 'image/png' });
    const result = await (await agent.chat(['look', png])).result();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(ContentError);
    expect(conn.requests).toEqual([]);
  });

  it('hands the backend one host interface, and close() closes the connection', async () => {
    const conn = new InMemoryConnection();
    const agent = new Agent({ connection: conn.connect });
    await agent.start();
    expect(typeof conn.host?.gateToolCall).toBe('function');
    // The control plane is the host, passed whole (no members copied into another object).
    expect(conn.host).toBeInstanceOf(ControlPlane);
    expect(typeof conn.host?.toolCallAnswered).toBe('function');
    expect(agent.pid).toBeUndefined();
    expect(agent.sessionDir).toBeUndefined();
    // A custom backend that reports no capabilities and is not agy: none, and no agy counters.
    expect(agent.capabilities).toBeUndefined();
    expect(agent.stats).toBeUndefined();
    await agent.close();
    expect(conn.closed).toBe(true);
  });
});

describe('chat({ signal })', () => {
  it('aborting a running turn ends it canceled and keeps the session', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'working' }], hang: true }, {}],
    });
    await using agent = new Agent({ connection: conn.connect });
    const controller = new AbortController();
    const running = await agent.chat('long', { signal: controller.signal });
    for await (const _ of running) break; // it is running
    controller.abort();
    expect((await running.result()).status).toBe('canceled');
    expect((await (await agent.chat('next')).result()).status).toBe('success');
  });

  it('an aborted queued turn is removed from the queue and never sent; an already aborted one too', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'on it' }], hang: true }, {}],
    });
    await using agent = new Agent({ connection: conn.connect });
    const first = await agent.chat('first');
    for await (const _ of first) break; // the first turn reached the backend
    const controller = new AbortController();
    const queued = await agent.chat('queued', { signal: controller.signal });
    const dead = await agent.chat('dead', { signal: AbortSignal.abort() });
    controller.abort();
    expect((await queued.result()).status).toBe('canceled');
    expect((await dead.result()).status).toBe('canceled');
    await agent.interrupt();
    expect((await first.result()).status).toBe('interrupted');
    expect(conn.requests.map((r) => r.text.join(''))).toEqual(['first']);
  });

  it('passes turnTimeoutMs to the backend with the request, and rejects bad options with ConfigError', async () => {
    const conn = new InMemoryConnection({ turns: [{}] });
    await using agent = new Agent({ connection: conn.connect });
    await (await agent.chat('a', { turnTimeoutMs: 1_234 })).result();
    expect(conn.requests[0]?.timeoutMs).toBe(1_234);
    await expect(agent.chat('b', { turnTimeoutMs: -1 })).rejects.toMatchObject({
      code: 'config_invalid',
      field: 'options.turnTimeoutMs',
    });
    await expect(agent.chat('b', { signal: 'no' as never })).rejects.toMatchObject({
      field: 'options.signal',
    });
  });
});

describe('per-turn responseSchema (ChatOptions.responseSchema)', () => {
  const Agentwide = z.object({ a: z.number() });
  const PerTurn = z.object({ verdict: z.enum(['yes', 'no']) });

  it('validates the turn against its own schema, sends it on the request, and later turns go back', async () => {
    const conn = new InMemoryConnection({
      turns: [
        { result: { structuredOutput: { verdict: 'yes' } } },
        { result: { structuredOutput: { a: 1 } } },
        { result: { structuredOutput: { a: 2 } } },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, responseSchema: Agentwide });
    const own = await agent.chat('judge', { responseSchema: PerTurn });
    expect(await own.structuredOutput<z.infer<typeof PerTurn>>()).toEqual({ verdict: 'yes' });
    expect(await (await agent.chat('count')).structuredOutput()).toEqual({ a: 1 });
    // The same schema as the agent's travels as nothing: the backend keeps its launch schema.
    expect(await (await agent.chat('again', { responseSchema: Agentwide })).structuredOutput()).toEqual({
      a: 2,
    });
    expect(conn.requests[0]?.jsonSchema).toMatchObject({ required: ['verdict'] });
    expect(conn.requests[1]?.jsonSchema).toBeUndefined();
    expect(conn.requests[2]?.jsonSchema).toBeUndefined();
  });

  it("a value that fits only the agent's schema fails the turn that has its own", async () => {
    const conn = new InMemoryConnection({
      turns: [{ result: { structuredOutput: { a: 1 } } }, { result: { structuredOutput: { a: 1 } } }],
    });
    await using agent = new Agent({ connection: conn.connect, responseSchema: Agentwide });
    const result = await (await agent.chat('judge', { responseSchema: PerTurn })).result();
    expect(result.status).toBe('error');
    expect(result.structuredOutput).toBeUndefined();
    expect(result.errorMessage).toMatch(/verdict/);
    expect((await (await agent.chat('count')).result()).status).toBe('success');
  });

  it('works without an agent-level schema (plain JSON Schema), and the next turn has none', async () => {
    const conn = new InMemoryConnection({
      turns: [{ result: { structuredOutput: { n: 3 } } }, { result: { structuredOutput: { n: 'x' } } }],
    });
    await using agent = new Agent({ connection: conn.connect });
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    expect(await (await agent.chat('x', { responseSchema: schema })).structuredOutput()).toEqual({ n: 3 });
    const next = await (await agent.chat('y')).result();
    expect(next.status).toBe('success');
    expect(next.structuredOutput).toBeUndefined();
    expect(conn.requests.map((r) => r.jsonSchema)).toEqual([schema, undefined]);
  });

  it('rejects a bad per-turn schema with a ConfigError naming options.responseSchema', async () => {
    const conn = new InMemoryConnection({ turns: [] });
    await using agent = new Agent({ connection: conn.connect });
    await expect(agent.chat('x', { responseSchema: 42 as never })).rejects.toThrow(/options\.responseSchema/);
    await expect(agent.chat('x', { responseSchema: { type: 'nonsense-type' } })).rejects.toMatchObject({
      code: 'config_invalid',
      field: 'options.responseSchema',
    });
    expect(conn.requests).toHaveLength(0);
  });
});
