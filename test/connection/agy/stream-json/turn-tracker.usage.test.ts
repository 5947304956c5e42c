// Usage rules: docs/reference/stream-json.md#usage-fields, docs/reference/stream-json.md#usage-on-steps, docs/reference/stream-json.md#cumulative-results (dedupe by conversation + step_index, cumulative result).
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../../../src/connection/agy/stream-json/parse-line.js';
import { TurnTracker } from '../../../../src/connection/agy/stream-json/turn-tracker.js';
import type { Step } from '../../../../src/model/step.js';

function step(index: number, usage: Record<string, number>, state = 'DONE', conversation = 'c'): Step {
  const line = JSON.stringify({
    event: 'step_update',
    step_update: {
      conversation_id: conversation,
      step_index: index,
      state,
      step_type: 'agent_response',
      usage,
    },
  });
  const parsed = parseLine(line);
  if (!parsed.ok || parsed.event.type !== 'step') throw new Error('bad fixture');
  return parsed.event.step;
}

const u = (input: number, output: number, thinking = 0, cache = 0) => ({
  input_tokens: input,
  output_tokens: output,
  thinking_tokens: thinking,
  cache_read_tokens: cache,
  total_tokens: input + output,
});

describe('per-turn usage', () => {
  it('sums DONE agent_response steps; total = input + output; thinking inside output; cache separate', () => {
    const t = new TurnTracker(new Set(), () => 'c');
    t.onStep(step(1, u(100, 20, 5, 50)));
    t.onStep(step(3, u(200, 30, 10, 0)));
    expect(t.stepUsage).toEqual({
      inputTokens: 300,
      outputTokens: 50,
      thinkingTokens: 15,
      cacheReadTokens: 50,
      totalTokens: 350,
    });
  });

  it('counts a repeated DONE for the same (conversation, step) once', () => {
    const t = new TurnTracker(new Set(), () => 'c');
    t.onStep(step(1, u(100, 20)));
    t.onStep(step(1, u(100, 20)));
    t.onStep(step(1, u(100, 20)));
    expect(t.stepUsage?.totalTokens).toBe(120);
  });

  it('dedupes across turns of one conversation; another conversation is a subagent, counted apart', () => {
    const counted = new Set<string>();
    const t1 = new TurnTracker(counted, () => 'c');
    t1.onStep(step(1, u(10, 1)));
    const t2 = new TurnTracker(counted, () => 'c');
    t2.onStep(step(1, u(10, 1)));
    t2.onStep(step(2, u(20, 2)));
    t2.onStep(step(1, u(10, 1), 'DONE', 'other'));
    expect(t2.stepUsage?.totalTokens).toBe(22);
    expect(t2.subagentUsage).toEqual({
      other: { inputTokens: 10, outputTokens: 1, thinkingTokens: 0, cacheReadTokens: 0, totalTokens: 11 },
    });
  });

  it('ignores usage on ACTIVE updates', () => {
    const t = new TurnTracker(new Set(), () => 'c');
    t.onStep(step(1, u(10, 1), 'ACTIVE'));
    expect(t.stepUsage).toBeNull();
  });

  it('is null (unknown), not zero, when every step reported zeros', () => {
    const t = new TurnTracker(new Set(), () => 'c');
    t.onStep(step(1, u(0, 0)));
    expect(t.stepUsage).toBeNull();
  });
});
