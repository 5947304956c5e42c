/**
 * Google's `conversation_test.py` on agy-sdk's public API. Python builds a `Conversation` over a mocked
 * `Connection`; here the Agent's conversation runs over the in-memory connection of `agy-sdk/testing`, which plays
 * the scripted steps a mocked `receive_steps()` yields. Python's `receive_chunks()` is the response's `chunks()`
 * and `toolCalls()` here (a response per turn), its `last_response` the last result's text.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/conversation/conversation_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (8), not ported:
 * - ConversationLifecycleTest.test_wait_for_idle_delegates, test_wait_for_wakeup_delegates: Python's conversation
 *   exposes its connection's idle waits; here a turn's `result()` is awaited and triggers start their own turns.
 * - ConversationUsageMetadataTest.test_total_usage_ignores_none_fields: a per-step `UsageMetadata` with `None`
 *   fields; agy-sdk's `Usage` has numbers (or `null` where a backend reports none), never missing fields.
 * - ConversationUsageMetadataTest.test_initialization_with_history_usage: a conversation built over a loaded
 *   history; agy-sdk resumes through the backend (`conversationId`), which reports its own totals.
 * - ConversationSendDrainTest.test_send_falls_back_to_wait_for_idle_on_runtime_error: a race between two readers of
 *   Python's one step generator; every reader here has its own cursor.
 * - ConversationSendDrainTest.test_last_turn_stop_reason: a private attribute (`_last_turn_stop_reason`).
 * - ConversationReceiveChunksTest.test_receive_chunks_never_deduplicates_none_id_calls: a tool call with no id;
 *   every agy-sdk tool call has one (the stream's `<conversation>:<step>`).
 * - ConversationStateTest.test_conversation_id_empty_by_default: the `""` of Python's ABC default; ported as the
 *   `undefined` before start in test_conversation_id_delegates_to_connection.
 */
import { describe, expect, it } from 'vitest';
import {
  Agent,
  Document,
  Image,
  type Step,
  type StreamChunk,
  type ToolCall,
  type Usage,
} from '../../../src/index.js';
import { InMemoryConnection, type ScriptedStep, type ScriptedTurn } from '../../../src/testing/index.js';
import { mediaConnections, quietLogger } from './kit.js';

const mediaConnection = mediaConnections();

const text = (textDelta: string, stepIndex = 0): ScriptedStep => ({
  type: 'agent_response',
  textDelta,
  stepIndex,
});
const compaction = (stepIndex: number): ScriptedStep => ({ type: 'compaction', stepIndex });
const tool = (id: string, name: string, args: Record<string, unknown>, stepIndex: number): ScriptedStep => ({
  type: 'tool',
  stepIndex,
  tool: { id, name, args, stepIndex, state: 'DONE' } as ToolCall,
});
const usage = (input: number, output: number): Usage => ({
  inputTokens: input,
  outputTokens: output,
  thinkingTokens: 0,
  cacheReadTokens: 0,
  totalTokens: input + output,
});

async function agentWith(turns: ScriptedTurn[], extra: { historyLimit?: number } = {}) {
  const conn = mediaConnection({ turns });
  const agent = new Agent({ connection: conn.connect, logger: quietLogger, ...extra });
  await agent.start();
  return { agent, conn, conversation: agent.conversation };
}

/** Runs one turn to its end. */
async function turn(agent: Agent, prompt: Parameters<Agent['chat']>[0] = 'q') {
  return (await agent.chat(prompt)).result();
}

describe('ConversationCreateTest (conversation_test.py)', () => {
  it('ConversationCreateTest.test_create_delegates_to_strategy (conversation_test.py)', async () => {
    const conn = new InMemoryConnection();
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    expect(agent.isStarted).toBe(false);
    await agent.start();
    expect(conn.host).toBeDefined();
    expect(agent.conversation.conversationId).toBe('mem-conversation');
  });
});

describe('ConversationSendTest (conversation_test.py)', () => {
  it('ConversationSendTest.test_send_when_idle_delegates_directly (conversation_test.py)', async () => {
    const { agent, conn, conversation } = await agentWith([{ steps: [] }]);
    await using _ = agent;
    await conversation.send('hello');
    expect(conn.requests.map((r) => r.text)).toEqual([['hello']]);
  });

  it('ConversationSendTest.test_send_multimodal_input (conversation_test.py)', async () => {
    const { agent, conn, conversation } = await agentWith([{ steps: [] }]);
    await using _ = agent;
    await conversation.send([
      'Context string',
      new Document({ mimeType: 'application/pdf', data: new TextEncoder().encode('pdf') }),
    ]);
    // agy takes text: the document is written to a private file the prompt names.
    expect(conn.requests).toHaveLength(1);
    expect(conn.requests[0]!.text.join('\n')).toContain('Context string');
    expect(conn.requests[0]!.media?.map((m) => m.mimeType)).toEqual(['application/pdf']);
  });

  it('ConversationSendTest.test_send_records_turn_boundary (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([{ steps: [] }, { steps: [] }]);
    await using _ = agent;
    await conversation.send('first');
    expect(conversation.turnCount).toBe(1);
    await conversation.send('second');
    expect(conversation.turnCount).toBe(2);
  });
});

describe('ConversationReceiveStepsTest (conversation_test.py)', () => {
  it('ConversationReceiveStepsTest.test_receive_steps_yields_from_connection (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([{ steps: [text('step1', 1), text('step2', 2)] }]);
    await using _ = agent;
    const stream = conversation.steps();
    await conversation.send('go');
    const seen: string[] = [];
    for await (const step of stream) {
      seen.push(step.textDelta ?? '');
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['step1', 'step2']);
  });

  it('ConversationReceiveStepsTest.test_receive_steps_accumulates_history (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([{ steps: [text('a', 1), text('b', 2)] }]);
    await using _ = agent;
    expect(conversation.history).toEqual([]);
    await turn(agent);
    expect(conversation.history.map((s) => s.textDelta)).toEqual(['a', 'b']);
  });

  it('ConversationReceiveStepsTest.test_compaction_step_tracked (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { steps: [text('text', 1), compaction(2), text('more', 3)] },
    ]);
    await using _ = agent;
    await turn(agent);
    expect(conversation.compactionIndices).toEqual([1]);
    expect(conversation.history).toHaveLength(3);
  });
  it('ConversationReceiveStepsTest.test_history_returns_copy (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([{ steps: [text('x', 1)] }]);
    await using _ = agent;
    await turn(agent);
    const history = conversation.history as Step[];
    history.length = 0;
    expect(conversation.history).toHaveLength(1);
  });

  it('ConversationReceiveStepsTest.test_compaction_indices_returns_copy (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([{ steps: [compaction(1)] }]);
    await using _ = agent;
    await turn(agent);
    const indices = conversation.compactionIndices as number[];
    indices.length = 0;
    expect(conversation.compactionIndices).toHaveLength(1);
  });
});

describe('ConversationReceiveChunksTest (conversation_test.py)', () => {
  async function chunksOf(steps: ScriptedStep[]): Promise<StreamChunk[]> {
    const { agent } = await agentWith([{ steps }]);
    await using _ = agent;
    const out: StreamChunk[] = [];
    for await (const chunk of (await agent.chat('q')).chunks()) out.push(chunk);
    return out;
  }

  it('ConversationReceiveChunksTest.test_receive_chunks_routes_thoughts (conversation_test.py)', async () => {
    const chunks = await chunksOf([
      { type: 'agent_response', stepIndex: 1, state: 'ACTIVE', thoughtDelta: 'Thinking...' },
    ]);
    expect(chunks.map((c) => [c.type, c.text])).toEqual([['thought', 'Thinking...']]);
  });

  it('ConversationReceiveChunksTest.test_receive_chunks_routes_text (conversation_test.py)', async () => {
    const chunks = await chunksOf([
      { ...text('Hello', 1), state: 'ACTIVE' },
      { ...text(' world!', 1), state: 'DONE' },
    ]);
    expect(chunks.map((c) => [c.type, c.text])).toEqual([
      ['text', 'Hello'],
      ['text', ' world!'],
    ]);
  });

  it('ConversationReceiveChunksTest.test_receive_chunks_filters_out_telemetry_noise (conversation_test.py)', async () => {
    const chunks = await chunksOf([
      { type: 'user_input', stepIndex: 0, textDelta: 'Prompt context' },
      { type: 'system_message', stepIndex: 1, textDelta: 'Confirming tool call...' },
      text('Valid answer', 2),
    ]);
    expect(chunks.map((c) => [c.type, c.text])).toEqual([['text', 'Valid answer']]);
  });

  it('ConversationReceiveChunksTest.test_receive_chunks_routes_tool_calls (conversation_test.py)', async () => {
    const { agent } = await agentWith([{ steps: [tool('call_123', 'view_file', { path: 'README.md' }, 1)] }]);
    await using _ = agent;
    const calls: ToolCall[] = [];
    for await (const call of (await agent.chat('q')).toolCalls()) calls.push(call);
    expect(calls.map((c) => [c.name, c.args])).toEqual([['view_file', { path: 'README.md' }]]);
  });

  it('ConversationReceiveChunksTest.test_receive_chunks_deduplicates_tool_calls (conversation_test.py)', async () => {
    const same = (i: number) => tool('call_456', 'generate_image', { prompt: 'cat' }, i);
    const { agent } = await agentWith([{ steps: [same(1), same(2), same(3)] }]);
    await using _ = agent;
    const ids: string[] = [];
    for await (const call of (await agent.chat('q')).toolCalls()) ids.push(call.id);
    expect(ids).toEqual(['call_456']);
  });

  it('ConversationReceiveChunksTest.test_receive_chunks_yields_distinct_tool_calls (conversation_test.py)', async () => {
    const { agent } = await agentWith([
      { steps: [tool('call_a', 'tool_1', {}, 1), tool('call_b', 'tool_2', {}, 1)] },
    ]);
    await using _ = agent;
    const ids: string[] = [];
    for await (const call of (await agent.chat('q')).toolCalls()) ids.push(call.id);
    expect(ids).toEqual(['call_a', 'call_b']);
  });
});

describe('ConversationHistoryTest (conversation_test.py)', () => {
  it('ConversationHistoryTest.test_last_response_returns_most_recent_final (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { steps: [text('first answer', 1)] },
      { steps: [text('second answer', 2)] },
    ]);
    await using _ = agent;
    await turn(agent, 'q1');
    expect(conversation.lastResult?.text).toBe('first answer');
    await turn(agent, 'q2');
    expect(conversation.lastResult?.text).toBe('second answer');
  });

  it('ConversationHistoryTest.test_last_response_empty_when_no_final (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([]);
    await using _ = agent;
    // Differs by design: no finished turn yet is `undefined`, not Python's "".
    expect(conversation.lastResult?.text).toBeUndefined();
  });

  it('ConversationHistoryTest.test_multi_turn_history_accumulates (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { steps: [text('a', 1)] },
      { steps: [text('b', 2), text('c', 3)] },
    ]);
    await using _ = agent;
    await turn(agent, 'turn1');
    await turn(agent, 'turn2');
    expect(conversation.history).toHaveLength(3);
    expect(conversation.turnCount).toBe(2);
  });
});

describe('ConversationChatTest (conversation_test.py)', () => {
  it('ConversationChatTest.test_chat_returns_streaming_response_with_text (conversation_test.py)', async () => {
    const { agent } = await agentWith([{ steps: [tool('t1', 'view_file', {}, 1), text('the answer', 2)] }]);
    await using _ = agent;
    expect(await (await agent.chat('question')).text()).toBe('the answer');
  });

  it('ConversationChatTest.test_chat_multimodal_input (conversation_test.py)', async () => {
    const { agent, conn } = await agentWith([{ steps: [text('image analysis done', 1)] }]);
    await using _ = agent;
    const image = new Image({ mimeType: 'image/png', data: new TextEncoder().encode('blueprint_bytes') });
    const response = await agent.chat(['Analyze this blueprint:', image]);
    expect(await response.text()).toBe('image analysis done');
    expect(conn.requests).toHaveLength(1);
    expect(conn.requests[0]!.media?.map((m) => m.mimeType)).toEqual(['image/png']);
  });

  it('ConversationChatTest.test_chat_records_in_history (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([{ steps: [text('done', 1)] }]);
    await using _ = agent;
    await turn(agent);
    expect(conversation.history).toHaveLength(1);
    expect(conversation.turnCount).toBe(1);
  });

  it('ConversationChatTest.test_chat_empty_response_when_no_final (conversation_test.py)', async () => {
    const { agent } = await agentWith([{ steps: [tool('t1', 'view_file', {}, 1)] }]);
    await using _ = agent;
    expect(await (await agent.chat('q')).text()).toBe('');
  });

  it('ConversationChatTest.test_chat_returns_structured_output_when_final_step_has_it (conversation_test.py)', async () => {
    const { agent } = await agentWith([{ result: { structuredOutput: { total_revenue: 386.0 } } }]);
    await using _ = agent;
    const response = await agent.chat('question', { responseSchema: { type: 'object' } });
    expect(await response.structuredOutput()).toEqual({ total_revenue: 386.0 });
  });
});

describe('ConversationStateTest (conversation_test.py)', () => {
  it('ConversationStateTest.test_is_idle_delegates_to_connection (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([{ steps: [], hang: true }]);
    await using _ = agent;
    expect(conversation.isIdle).toBe(true);
    const response = await agent.chat('q');
    expect(conversation.isIdle).toBe(false);
    await response.cancel();
    await response.result();
    expect(conversation.isIdle).toBe(true);
  });

  it('ConversationStateTest.test_conversation_id_delegates_to_connection (conversation_test.py)', async () => {
    const conn = new InMemoryConnection({ conversationId: 'conv-123' });
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    expect(agent.conversationId).toBeUndefined();
    await agent.start();
    expect(agent.conversation.conversationId).toBe('conv-123');
  });

  it('ConversationStateTest.test_connection_returns_underlying_transport (conversation_test.py)', async () => {
    const { agent, conn } = await agentWith([]);
    await using _ = agent;
    expect(agent.connection).toBe(conn);
  });
});

describe('ConversationLifecycleTest (conversation_test.py)', () => {
  it('ConversationLifecycleTest.test_cancel_delegates (conversation_test.py)', async () => {
    const { agent } = await agentWith([{ steps: [], hang: true }]);
    await using _ = agent;
    const response = await agent.chat('q');
    await response.cancel();
    expect((await response.result()).status).toBe('canceled');
  });

  it('ConversationLifecycleTest.test_disconnect_delegates (conversation_test.py)', async () => {
    const { agent, conn } = await agentWith([]);
    await agent.close();
    expect(conn.closed).toBe(true);
  });
});

describe('ConversationClearHistoryTest (conversation_test.py)', () => {
  it('ConversationClearHistoryTest.test_clear_history_resets_all_state (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { steps: [compaction(1), text('answer', 2)], result: { usage: usage(5, 5), totalUsage: usage(5, 5) } },
    ]);
    await using _ = agent;
    await turn(agent);
    expect(conversation.history).toHaveLength(2);
    expect(conversation.turnCount).toBe(1);
    expect(conversation.compactionIndices).toHaveLength(1);
    conversation.clearHistory();
    expect(conversation.history).toEqual([]);
    expect(conversation.turnCount).toBe(0);
    expect(conversation.compactionIndices).toEqual([]);
    expect(conversation.lastResult?.text).toBeUndefined();
  });

  it('ConversationClearHistoryTest.test_max_history_trims_oldest_steps (conversation_test.py)', async () => {
    const steps = Array.from({ length: 10 }, (_, i) => text(`step-${i}`, i));
    const { agent, conversation } = await agentWith([{ steps }], { historyLimit: 5 });
    await using _ = agent;
    await turn(agent);
    expect(conversation.history.map((s: Step) => s.textDelta)).toEqual([
      'step-5',
      'step-6',
      'step-7',
      'step-8',
      'step-9',
    ]);
  });
  it('ConversationClearHistoryTest.test_max_history_adjusts_compaction_indices (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith(
      [{ steps: [text('a', 0), compaction(1), text('b', 2), text('c', 3), text('d', 4)] }],
      { historyLimit: 3 },
    );
    await using _ = agent;
    await turn(agent);
    expect(conversation.history.map((s) => s.textDelta)).toEqual(['b', 'c', 'd']);
    // The compaction step was trimmed away with the history.
    expect(conversation.compactionIndices).toEqual([]);
  });

  it('ConversationClearHistoryTest.test_max_history_zero_disables_limit (conversation_test.py)', async () => {
    const steps = Array.from({ length: 100 }, (_, i) => text(`step-${i}`, i));
    const { agent, conversation } = await agentWith([{ steps }], { historyLimit: 0 });
    await using _ = agent;
    await turn(agent);
    expect(conversation.history).toHaveLength(100);
  });
});

describe('ConversationUsageMetadataTest (conversation_test.py)', () => {
  it('ConversationUsageMetadataTest.test_total_usage_starts_at_zero (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([]);
    await using _ = agent;
    // Differs by design: unknown until the backend reports it (`null`), not a made-up zero.
    expect(conversation.totalUsage).toBeNull();
  });

  it('ConversationUsageMetadataTest.test_total_usage_accumulates_across_steps (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      {
        steps: [
          { ...text('', 0), usage: usage(100, 50) },
          { ...text('', 1), usage: usage(200, 30) },
        ],
        result: { usage: usage(300, 80), totalUsage: usage(300, 80) },
      },
    ]);
    await using _ = agent;
    await turn(agent);
    expect(conversation.totalUsage).toMatchObject({ inputTokens: 300, outputTokens: 80, totalTokens: 380 });
    expect(conversation.lastTurnUsage).toMatchObject({ inputTokens: 300, outputTokens: 80 });
  });

  it('ConversationUsageMetadataTest.test_total_usage_accumulates_across_turns (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { result: { usage: usage(100, 20), totalUsage: usage(100, 20) } },
      { result: { usage: usage(150, 30), totalUsage: usage(250, 50) } },
    ]);
    await using _ = agent;
    await turn(agent, 'turn1');
    await turn(agent, 'turn2');
    expect(conversation.totalUsage).toMatchObject({ inputTokens: 250, totalTokens: 300 });
    expect(conversation.lastTurnUsage).toMatchObject({ inputTokens: 150, totalTokens: 180 });
  });

  it('ConversationUsageMetadataTest.test_total_usage_returns_copy (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { result: { usage: usage(10, 0), totalUsage: usage(10, 0) } },
    ]);
    await using _ = agent;
    const result = await turn(agent);
    const total = conversation.totalUsage!;
    total.inputTokens = 999;
    // Neither what an accessor handed out nor the turn's own result may change the conversation's figures.
    result.totalUsage!.inputTokens = 998;
    conversation.lastTurnUsage!.inputTokens = 997;
    conversation.usageByModel.default!.inputTokens = 996;
    expect(conversation.totalUsage?.inputTokens).toBe(10);
    expect(conversation.lastTurnUsage?.inputTokens).toBe(10);
    expect(conversation.usageByModel.default?.inputTokens).toBe(10);
  });

  it('ConversationUsageMetadataTest.test_clear_history_resets_usage (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { result: { usage: usage(500, 100), totalUsage: usage(500, 100) } },
    ]);
    await using _ = agent;
    await turn(agent);
    expect(conversation.totalUsage?.inputTokens).toBe(500);
    conversation.clearHistory();
    // The last turn's usage goes with the history; the conversation's total is the backend's, and stays.
    expect(conversation.lastTurnUsage).toBeNull();
    expect(conversation.totalUsage?.inputTokens).toBe(500);
  });

  it('ConversationUsageMetadataTest.test_chat_returns_accumulated_usage_metadata (conversation_test.py)', async () => {
    const { agent } = await agentWith([
      { steps: [text('the answer', 1)], result: { usage: usage(300, 80), totalUsage: usage(300, 80) } },
    ]);
    await using _ = agent;
    const response = await agent.chat('question');
    await response.result();
    expect(response.usage).toMatchObject({ inputTokens: 300, outputTokens: 80, totalTokens: 380 });
  });

  it('ConversationUsageMetadataTest.test_chat_returns_none_usage_when_absent (conversation_test.py)', async () => {
    const { agent } = await agentWith([{ steps: [text('answer', 0)] }]);
    await using _ = agent;
    const response = await agent.chat('question');
    await response.result();
    expect(response.usage).toBeNull();
  });
});

describe('ConversationSendDrainTest (conversation_test.py)', () => {
  it('ConversationSendDrainTest.test_back_to_back_send_drains_first_turn (conversation_test.py)', async () => {
    const { agent, conversation } = await agentWith([
      { steps: [text('first reply', 1)] },
      { steps: [text('second reply', 2)] },
    ]);
    await using _ = agent;
    // Turns queue: the second send waits for the first turn, whose steps reach the history unread.
    await conversation.send('first question');
    await conversation.send('second question');
    expect(conversation.turnCount).toBe(2);
    await (await agent.chat('nothing more')).result();
    expect(conversation.history.map((s) => s.textDelta)).toEqual(['first reply', 'second reply']);
  });
});
