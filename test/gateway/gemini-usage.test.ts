// gateway/gemini-usage.ts: the gateway reports an upstream request's usage to its observer in the SDK's terms
// (docs/reference/gateway-translation.md#usage): cached tokens apart from the input, thoughts inside the output.
import { describe, expect, it } from 'vitest';
import { usageFromGemini } from '../../src/gateway/gemini-usage.js';

describe('usageFromGemini', () => {
  it('moves cached tokens out of the input and thoughts into the output', () => {
    expect(
      usageFromGemini({
        promptTokenCount: 100,
        candidatesTokenCount: 20,
        totalTokenCount: 125,
        cachedContentTokenCount: 30,
        thoughtsTokenCount: 5,
      }),
    ).toEqual({ inputTokens: 70, outputTokens: 25, thinkingTokens: 5, cacheReadTokens: 30, totalTokens: 95 });
  });

  it('reads absent cache and thought counts as zero, and never returns a negative input', () => {
    expect(usageFromGemini({ promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 })).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      thinkingTokens: 0,
      cacheReadTokens: 0,
      totalTokens: 5,
    });
    const odd = usageFromGemini({
      promptTokenCount: 1,
      candidatesTokenCount: 0,
      totalTokenCount: 1,
      cachedContentTokenCount: 4,
    });
    expect(odd.inputTokens).toBe(0);
  });
});
