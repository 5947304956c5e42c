/**
 * Usage and cost: the built-in price table (src/model/prices.json, docs/reference/observability.md#prices),
 * unknown models (null, never 0), the user's `pricing` override and `'*'`, config checks, and the
 * `maxCostUsd` budget crossing at a step.
 */
import { describe, expect, it } from 'vitest';
import { Agent, BudgetExceededError, ConfigError, defaultPrices, type Usage } from '../../src/index.js';
import { costAt, priceOf } from '../../src/model/pricing.js';
import { InMemoryConnection } from '../../src/testing/index.js';

const usage = (input: number, output: number, extra: Partial<Usage> = {}): Usage => ({
  inputTokens: input,
  outputTokens: output,
  thinkingTokens: 0,
  cacheReadTokens: 0,
  totalTokens: input + output,
  ...extra,
});

describe('prices', () => {
  it('the built-in table is dated, sourced, and prices a known model', () => {
    expect(defaultPrices.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(defaultPrices.sources.length).toBeGreaterThan(0);
    // gemini-2.5-pro: $1.25 in, $10 out per 1M tokens.
    expect(costAt(priceOf('gemini-2.5-pro'), usage(1_000_000, 100_000))).toBeCloseTo(1.25 + 1, 12);
    // A dated snapshot id is the same model.
    expect(priceOf('claude-sonnet-4-20250514')).toEqual(priceOf('claude-sonnet-4'));
    // But a different model sharing a prefix is not.
    expect(priceOf('gpt-5-mini')).toBeUndefined();
  });

  it('unknown model, or a cache count without its price: null, never 0', () => {
    expect(costAt(priceOf('gemini-3.8-flash-high'), usage(10, 1))).toBeNull();
    expect(costAt({ input: 1, output: 1 }, usage(10, 1, { cacheReadTokens: 5 }))).toBeNull();
    expect(costAt({ input: 1, output: 1 }, usage(10, 1, { cacheWriteTokens: 5 }))).toBeNull();
    expect(costAt({ input: 0, output: 0 }, usage(10, 1))).toBe(0); // free is a price, not an unknown
  });

  it("the user's table wins over the built-in one; '*' prices anything else", () => {
    const pricing = { 'gemini-2.5-pro': { input: 2, output: 20 }, '*': { input: 0.5, output: 1 } };
    expect(priceOf('gemini-2.5-pro', pricing)).toEqual({ input: 2, output: 20 });
    expect(priceOf('gemini-2.5-flash', pricing)).toEqual(defaultPrices.models['gemini-2.5-flash']);
    expect(priceOf('my-model', pricing)).toEqual({ input: 0.5, output: 1 });
    expect(priceOf(undefined, pricing)).toEqual({ input: 0.5, output: 1 });
  });
});

describe('cost on results', () => {
  it('user override prices the turn, the conversation and the subagents', async () => {
    const conn = new InMemoryConnection({
      turns: [{ result: { usage: usage(1000, 100), subagentUsage: { s1: usage(10, 10) } } }],
    });
    await using agent = new Agent({
      connection: conn.connect,
      model: 'house-model',
      pricing: { 'house-model': { input: 3, output: 30 } },
    });
    const result = await (await agent.chat('x')).result();
    expect(result.model).toBe('house-model');
    expect(result.usage?.costUsd).toBeCloseTo((1000 * 3 + 100 * 30) / 1e6, 12);
    expect(result.usage?.cacheWriteTokens).toBe(0);
    expect(result.subagentUsage?.s1?.costUsd).toBeCloseTo((10 * 3 + 10 * 30) / 1e6, 12);
    expect(agent.conversation.usageByModel['house-model']?.costUsd).toBeCloseTo(
      result.usage?.costUsd ?? 0,
      12,
    );
  });

  it('bad pricing and a cost budget without a price are ConfigErrors naming the field', () => {
    expect(() => new Agent({ pricing: { m: { input: -1, output: 1 } } })).toThrow(
      expect.objectContaining({ field: 'pricing.m.input' }),
    );
    expect(() => new Agent({ budget: { maxCostUsd: -1 } })).toThrow(ConfigError);
    expect(() => new Agent({ model: 'gemini-3.8-flash-high', budget: { maxCostUsd: 1 } })).toThrow(
      expect.objectContaining({ field: 'budget.maxCostUsd' }),
    );
    expect(() => new Agent({ telemetry: { captureContent: 'yes' as never } })).toThrow(
      expect.objectContaining({ field: 'telemetry.captureContent' }),
    );
  });
});

describe('budget: { maxCostUsd }', () => {
  it('stops the turn budget_exceeded at the step that crosses it', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'agent_response', stepIndex: 0, usage: usage(100_000, 0) }, // $0.125
            { type: 'agent_response', stepIndex: 1, usage: usage(100_000, 0) }, // $0.25 in total
            { type: 'agent_response', stepIndex: 2, usage: usage(100_000, 0) },
          ],
          hang: true,
        },
        { steps: [{ type: 'agent_response', textDelta: 'next' }] },
      ],
    });
    await using agent = new Agent({
      connection: conn.connect,
      model: 'gemini-2.5-pro',
      budget: { maxCostUsd: 0.2 },
    });
    const response = await agent.chat('spend');
    const result = await response.result();
    expect(result.status).toBe('budget_exceeded');
    expect(result.budget).toBe('maxCostUsd');
    expect(result.error).toBeInstanceOf(BudgetExceededError);
    expect((result.error as BudgetExceededError).used).toBeCloseTo(0.25, 12);
    // Stopped at the crossing step: the third was never delivered.
    const seen = [];
    for await (const step of response.steps()) seen.push(step.stepIndex);
    expect(seen).toEqual([0, 1]);
    // A turn-scoped budget: the next turn starts from zero.
    expect(await (await agent.chat('again')).text()).toBe('next');
  });

  it('a step of an unpriced model fails closed', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', usage: usage(1, 1) }], hang: true }],
    });
    await using agent = new Agent({
      connection: conn.connect,
      model: 'gemini-2.5-pro',
      budget: { maxCostUsd: 5 },
    });
    await agent.start();
    await agent.setModel('unpriced-model');
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('budget_exceeded');
    expect(result.errorMessage).toContain('unknown (no price for the model)');
  });
});
