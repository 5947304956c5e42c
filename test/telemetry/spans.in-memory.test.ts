/**
 * The span tree and metrics of turns on the in-memory connection (no process): a plain turn, an interrupted
 * one, a failed one, a subagent, content capture on and off, and the metric points. Span names and
 * attributes follow docs/reference/observability.md#genai-semantic-conventions.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WatchdogTimeoutError } from '../../src/connection/index.js';
import { Agent, type AgentConfig, hooks, type Usage } from '../../src/index.js';
import { InMemoryConnection, type ScriptedTurn } from '../../src/testing/index.js';
import { childrenOf, names, nanos, one, otelKit, parentOf, point } from '../helpers/otel-kit.js';

const kit = otelKit();
afterAll(() => kit.shutdown());

const usage = (input: number, output: number, extra: Partial<Usage> = {}): Usage => ({
  inputTokens: input,
  outputTokens: output,
  thinkingTokens: 0,
  cacheReadTokens: 0,
  totalTokens: input + output,
  ...extra,
});

/** Runs `turns` on a fresh agent traced into the kit; returns the spans of that agent's session only. */
async function traced(
  turns: ScriptedTurn[],
  extra: Partial<AgentConfig> = {},
  drive?: (agent: Agent) => Promise<void>,
) {
  kit.exporter.reset();
  const conn = new InMemoryConnection({ turns, conversationId: 'conv-1' });
  const agent = new Agent({
    connection: conn.connect,
    telemetry: { tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider },
    ...extra,
  });
  const results = [];
  try {
    if (drive) await drive(agent);
    else
      for (let i = 0; i < turns.length; i++) results.push(await (await agent.chat(`prompt ${i}`)).result());
  } finally {
    await agent.close();
  }
  return { spans: kit.spans(), results, agent };
}

describe('spans of a turn (in-memory connection)', () => {
  it('a plain turn: session → invoke_agent → chat, usage on both equal to the TurnResult, cost at the known model', async () => {
    const { spans, results } = await traced(
      [
        {
          steps: [
            { type: 'agent_response', state: 'ACTIVE', stepIndex: 1, textDelta: 'Hel' },
            {
              type: 'agent_response',
              state: 'DONE',
              stepIndex: 1,
              textDelta: 'lo',
              usage: usage(1000, 200, { cacheReadTokens: 500 }),
            },
          ],
          result: { usage: usage(1000, 200, { cacheReadTokens: 500 }) },
        },
      ],
      { model: 'gemini-2.5-flash' },
    );
    const [result] = results;
    expect(result?.status).toBe('success');
    // prices.json: gemini-2.5-flash $0.30 in, $2.50 out, $0.03 cache read per 1M tokens.
    const cost = (1000 * 0.3 + 200 * 2.5 + 500 * 0.03) / 1e6;
    expect(result?.usage?.costUsd).toBeCloseTo(cost, 12);
    expect(result?.model).toBe('gemini-2.5-flash');

    const session = one(spans, 'agy_sdk.session');
    const turn = one(spans, 'invoke_agent agy');
    const chat = one(spans, 'chat gemini-2.5-flash');
    expect(parentOf(spans, session)).toBeUndefined();
    expect(parentOf(spans, turn)).toBe(session);
    expect(parentOf(spans, chat)).toBe(turn);
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': 'conv-1',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'agy_sdk.turn.status': 'success',
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 200,
      'gen_ai.usage.cache_read.input_tokens': 500,
      'gen_ai.usage.cache_creation.input_tokens': 0,
      'gen_ai.usage.reasoning.output_tokens': 0,
    });
    expect(turn.attributes['agy_sdk.usage.cost_usd']).toBeCloseTo(cost, 12);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 200,
      'agy_sdk.step.index': 1,
    });
    // Timed from the ACTIVE update to DONE: it cannot start before its turn or end after it.
    expect(nanos(chat).start <= nanos(chat).end).toBe(true);
    // No content unless captureContent.
    for (const span of spans) {
      expect(
        Object.keys(span.attributes).filter((k) => k.includes('messages') || k.endsWith('.arguments')),
      ).toEqual([]);
    }
    expect(session.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 1000 });
  });

  it('an unknown model: costUsd null and no cost attribute (never 0)', async () => {
    const { spans, results } = await traced([
      { steps: [{ type: 'agent_response', usage: usage(10, 1) }], result: { usage: usage(10, 1) } },
    ]);
    expect(results[0]?.usage?.costUsd).toBeNull();
    const turn = one(spans, 'invoke_agent agy');
    expect(turn.attributes['gen_ai.usage.input_tokens']).toBe(10);
    expect(turn.attributes).not.toHaveProperty('agy_sdk.usage.cost_usd');
    expect(one(spans, 'chat default').attributes).not.toHaveProperty('gen_ai.request.model');
  });

  it('captureContent: the prompt, the answer and tool arguments are recorded', async () => {
    const { spans } = await traced(
      [
        {
          steps: [
            {
              type: 'tool',
              state: 'DONE',
              tool: {
                id: 'conv-1:0',
                name: 'view_file',
                args: { AbsolutePath: '/x' },
                stepIndex: 0,
                state: 'DONE',
                output: 'data',
              },
            },
            { type: 'agent_response', textDelta: 'secret answer' },
          ],
        },
      ],
      { telemetry: { tracerProvider: kit.tracerProvider, captureContent: true } },
    );
    const turn = one(spans, 'invoke_agent agy');
    expect(String(turn.attributes['gen_ai.input.messages'])).toContain('prompt 0');
    expect(String(turn.attributes['gen_ai.output.messages'])).toContain('secret answer');
    const tool = one(spans, 'execute_tool view_file');
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ AbsolutePath: '/x' });
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('"data"');
  });

  it('an interrupted turn: status interrupted, error.type, the running model step shown incomplete', async () => {
    const { spans } = await traced(
      [{ steps: [{ type: 'agent_response', state: 'ACTIVE', textDelta: 'work' }], hang: true }],
      {},
      async (agent) => {
        const response = await agent.chat('long');
        for await (const _ of response) break; // the step arrived: the turn is running
        await agent.interrupt();
        expect((await response.result()).status).toBe('interrupted');
      },
    );
    const turn = one(spans, 'invoke_agent agy');
    expect(turn.attributes).toMatchObject({
      'agy_sdk.turn.status': 'interrupted',
      'error.type': 'interrupted',
    });
    expect(turn.status.code).toBe(2); // SpanStatusCode.ERROR
    const chat = one(spans, 'chat default');
    expect(chat.attributes['agy_sdk.incomplete']).toBe(true);
    expect(parentOf(spans, chat)).toBe(turn);
  });

  it('a failed turn: status error with its message; a preTurn-denied turn still gets its span', async () => {
    const { spans } = await traced(
      [{ result: { status: 'error', errorMessage: 'the model returned an error' } }, {}],
      {
        // The second prompt is denied before anything is sent.
        hooks: [hooks.preTurn((text) => ({ allow: !text.includes('1') }))],
      },
    );
    const turns = spans.filter((s) => s.name === 'invoke_agent agy');
    expect(turns.map((s) => s.attributes['agy_sdk.turn.status'])).toEqual(['error', 'denied']);
    expect(turns[0]?.status).toMatchObject({ code: 2, message: 'the model returned an error' });
  });

  it('a subagent: its own invoke_agent span under the turn, linked to it, with its steps and usage', async () => {
    const sub = { conversationId: 'sub-1', typeName: 'research', role: 'find things' };
    const { spans, results } = await traced([
      {
        steps: [
          { type: 'agent_response', stepIndex: 1, usage: usage(50, 5) },
          { conversationId: 'sub-1', subagent: sub, type: 'agent_response', stepIndex: 0, state: 'ACTIVE' },
          {
            conversationId: 'sub-1',
            subagent: sub,
            type: 'agent_response',
            stepIndex: 0,
            usage: usage(30, 3),
          },
          { type: 'agent_response', stepIndex: 2, textDelta: 'done', usage: usage(20, 2) },
        ],
        result: { usage: usage(70, 7), subagentUsage: { 'sub-1': usage(30, 3) } },
      },
    ]);
    const turn = one(spans, 'invoke_agent agy');
    const subagent = one(spans, 'invoke_agent research');
    expect(parentOf(spans, subagent)).toBe(turn);
    expect(subagent.links.map((l) => l.context.spanId)).toEqual([turn.spanContext().spanId]);
    expect(subagent.attributes).toMatchObject({
      'gen_ai.conversation.id': 'sub-1',
      'agy_sdk.subagent.role': 'find things',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 3,
    });
    const subChats = childrenOf(spans, subagent);
    expect(subChats.map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([30]);
    // The turn's own model steps sum to its usage; the subagent's are apart, as in TurnResult.
    const ownChats = childrenOf(spans, turn).filter((s) => s.name.startsWith('chat'));
    expect(ownChats.reduce((n, s) => n + Number(s.attributes['gen_ai.usage.input_tokens'] ?? 0), 0)).toBe(
      results[0]?.usage?.inputTokens,
    );
    expect(results[0]?.subagentUsage?.['sub-1']).toMatchObject({ inputTokens: 30, costUsd: null });
  });

  it('usageByModel and subagentUsage sum the turns, by the model each ran on', async () => {
    await traced(
      [
        { result: { usage: usage(100, 10) } },
        { result: { usage: usage(200, 20), subagentUsage: { s: usage(5, 1) } } },
        { result: { usage: usage(1, 1) } },
      ],
      { model: 'gemini-2.5-pro', pricing: { 'other-model': { input: 1, output: 2 } } },
      async (agent) => {
        await (await agent.chat('a')).result();
        await (await agent.chat('b')).result();
        await agent.setModel('other-model');
        await (await agent.chat('c')).result();
        const byModel = agent.conversation.usageByModel;
        expect(Object.keys(byModel)).toEqual(['gemini-2.5-pro', 'other-model']);
        expect(byModel['gemini-2.5-pro']).toMatchObject({
          inputTokens: 300,
          outputTokens: 30,
          totalTokens: 330,
        });
        // gemini-2.5-pro: $1.25 in, $10 out per 1M (prices.json); other-model: the user's override.
        expect(byModel['gemini-2.5-pro']?.costUsd).toBeCloseTo((300 * 1.25 + 30 * 10) / 1e6, 12);
        expect(byModel['other-model']?.costUsd).toBeCloseTo((1 * 1 + 1 * 2) / 1e6, 12);
        expect(agent.conversation.subagentUsage.s).toMatchObject({ inputTokens: 5, outputTokens: 1 });
      },
    );
  });

  it('metrics: turns by status, operation duration and token usage histograms', async () => {
    await traced([
      { steps: [{ type: 'agent_response', usage: usage(7, 3) }], result: { usage: usage(7, 3) } },
      { result: { status: 'error', errorMessage: 'x' } },
    ]);
    const collected = await kit.collect();
    expect(
      point(collected, 'agy_sdk.turns', { 'agy_sdk.turn.status': 'success' })?.sum,
    ).toBeGreaterThanOrEqual(1);
    expect(point(collected, 'agy_sdk.turns', { 'agy_sdk.turn.status': 'error' })?.sum).toBeGreaterThanOrEqual(
      1,
    );
    const input = point(collected, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'input' });
    expect(input?.sum).toBeGreaterThanOrEqual(7);
    const duration = point(collected, 'gen_ai.client.operation.duration', {
      'gen_ai.operation.name': 'invoke_agent',
    });
    expect(duration?.count).toBeGreaterThanOrEqual(2);
  });

  it('hooks that took time get a span under their turn (preTurn, postTurn)', async () => {
    const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 20));
    const { spans } = await traced([{ steps: [{ type: 'agent_response', textDelta: 'x' }] }], {
      hooks: [
        hooks.preTurn(async () => {
          await slow();
          return { allow: true };
        }),
        hooks.postTurn(async () => {
          await slow();
        }),
      ],
    });
    const turn = one(spans, 'invoke_agent agy');
    for (const name of ['agy_sdk.hook preTurn', 'agy_sdk.hook postTurn']) {
      const hook = one(spans, name);
      expect(parentOf(spans, hook)).toBe(turn);
      expect((hook.duration[0] * 1e9 + hook.duration[1]) / 1e6).toBeGreaterThanOrEqual(15);
    }
  });

  it('metrics: a watchdog timeout is counted by kind', async () => {
    await traced([
      { result: { status: 'timeout', error: new WatchdogTimeoutError('idle', 100, 150, undefined, '') } },
    ]);
    const collected = await kit.collect();
    expect(point(collected, 'agy_sdk.watchdog.timeouts', { 'agy_sdk.watchdog.kind': 'idle' })?.sum).toBe(1);
  });

  it('a tracer that throws never breaks a turn: the failure is logged', async () => {
    const warnings: string[] = [];
    const broken = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('exporter on fire');
        },
      }),
    };
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'fine' }] }],
    });
    await using agent = new Agent({
      connection: conn.connect,
      telemetry: { tracerProvider: broken },
      logger: { debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
    expect(await (await agent.chat('x')).text()).toBe('fine');
    expect(warnings.some((w) => w.includes('telemetry') && w.includes('exporter on fire'))).toBe(true);
  });

  it('telemetry: { enabled: false } records nothing', async () => {
    const { spans } = await traced([{ steps: [{ type: 'agent_response', textDelta: 'x' }] }], {
      telemetry: { enabled: false, tracerProvider: kit.tracerProvider },
    });
    expect(spans, names(spans)).toEqual([]);
  });
});
