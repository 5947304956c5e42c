// Token budgets count what the turn spends: every DONE step's usage, once per step
// (checkpoint steps carry usage on 1.1.x: agy-real/jdiazromeral-agy-plugin-cc/stream_events-2026-08-02-run1.ndjson).
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { parseLine } from '../../src/connection/agy/stream-json/parse-line.js';
import { BudgetTracker } from '../../src/conversation/budget.js';
import type { Step } from '../../src/model/step.js';

function step(index: number, type: string, usage?: Record<string, number>, conversation = 'c'): Step {
  const parsed = parseLine(
    JSON.stringify({
      event: 'step_update',
      step_update: {
        conversation_id: conversation,
        step_index: index,
        state: 'DONE',
        step_type: type,
        usage,
      },
    }),
  );
  if (!parsed.ok || parsed.event.type !== 'step') throw new Error('bad fixture');
  return parsed.event.step;
}

describe('BudgetTracker', () => {
  it('counts checkpoint and subagent usage toward token budgets, each step once', () => {
    const budget = new BudgetTracker({ maxInputTokens: 250 });
    budget.beginTurn();
    expect(budget.onStep(step(1, 'agent_response', { input_tokens: 100, output_tokens: 1 }))).toBeUndefined();
    // The same DONE update repeated is not counted twice.
    expect(budget.onStep(step(1, 'agent_response', { input_tokens: 100, output_tokens: 1 }))).toBeUndefined();
    expect(budget.onStep(step(2, 'checkpoint', { input_tokens: 100, output_tokens: 1 }))).toBeUndefined();
    expect(budget.onStep(step(0, 'agent_response', { input_tokens: 60, output_tokens: 1 }, 'sub'))).toEqual({
      budget: 'maxInputTokens',
      limit: 250,
      used: 260,
    });
  });

  it('counts model calls from agent_response steps only', () => {
    const budget = new BudgetTracker({ maxModelCalls: 1 });
    budget.beginTurn();
    expect(budget.onStep(step(1, 'checkpoint', { input_tokens: 1 }))).toBeUndefined();
    expect(budget.onStep(step(2, 'agent_response'))).toBeUndefined();
    expect(budget.onStep(step(3, 'agent_response'))).toMatchObject({ budget: 'maxModelCalls', used: 2 });
  });
});

describe("budget scope (Python's BudgetScope)", () => {
  it("'lifetime' keeps counting across turns, as 'conversation' does", () => {
    const budget = new BudgetTracker({ maxModelCalls: 1, scope: 'lifetime' });
    budget.beginTurn();
    expect(budget.onStep(step(1, 'agent_response'))).toBeUndefined();
    budget.beginTurn();
    expect(budget.onStep(step(2, 'agent_response'))).toMatchObject({ budget: 'maxModelCalls', used: 2 });
  });

  it("'lifetime' is accepted on a new conversation and refused by name on a resumed one", () => {
    const budget = { maxModelCalls: 5, scope: 'lifetime' } as const;
    expect(() => new Agent({ budget })).not.toThrow();
    expect(() => new Agent({ budget, conversationId: 'c1' })).toThrow(
      expect.objectContaining({ name: 'UnsupportedError', feature: 'budget.scope' }),
    );
    expect(
      () => new Agent({ budget: { ...budget, scope: 'conversation' }, conversationId: 'c1' }),
    ).not.toThrow();
  });
});
