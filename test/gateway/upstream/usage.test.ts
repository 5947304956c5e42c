// Usage arithmetic (docs/reference/gateway-translation.md#usage): the split of an upstream's counts is decided
// by what they add up to, and prompt + candidates + thoughts always equals totalTokenCount, which equals the
// upstream's total whenever it sent one. Recorded figures: xAI 307 + 26 + 227 = 560 (beside), Groq
// 17 + 1107 = 1124 with 963 reasoning (inside), OpenRouter 43 + 10 = 53 with 11 reasoning (more reasoning
// than completion, inside) (test/fixtures/upstream-providers/).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { geminiUsage } from '../../../src/gateway/upstream/upstream.js';

describe('geminiUsage', () => {
  it('recorded provider figures', () => {
    expect(geminiUsage({ prompt: 307, output: 26, cached: 306, reasoning: 227, total: 560 })).toEqual({
      promptTokenCount: 307,
      candidatesTokenCount: 26,
      thoughtsTokenCount: 227,
      cachedContentTokenCount: 306,
      totalTokenCount: 560,
    });
    expect(geminiUsage({ prompt: 17, output: 1107, cached: 0, reasoning: 963, total: 1124 })).toMatchObject({
      candidatesTokenCount: 144,
      thoughtsTokenCount: 963,
      totalTokenCount: 1124,
    });
    expect(geminiUsage({ prompt: 43, output: 10, cached: 0, reasoning: 11, total: 53 })).toMatchObject({
      candidatesTokenCount: 0,
      thoughtsTokenCount: 10,
      totalTokenCount: 53,
    });
    // Anthropic sends no total: thinking is inside output_tokens.
    expect(geminiUsage({ prompt: 43, output: 282, cached: 0, reasoning: 200 })).toMatchObject({
      candidatesTokenCount: 82,
      thoughtsTokenCount: 200,
      totalTokenCount: 325,
    });
  });

  it('parts always add up, to the upstream total when there is one, and are never negative', () => {
    const n = fc.integer({ min: 0, max: 1_000_000 });
    fc.assert(
      fc.property(n, n, n, fc.option(n, { nil: undefined }), (prompt, output, reasoning, extra) => {
        // A total the provider could send: reasoning inside, beside, or some other sum at least the prompt.
        const total = extra === undefined ? undefined : prompt + extra;
        const u = geminiUsage({ prompt, output, cached: 0, reasoning, total });
        const sum = u.promptTokenCount + u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0);
        expect(sum).toBe(u.totalTokenCount);
        if (total !== undefined) expect(u.totalTokenCount).toBe(total);
        expect(u.candidatesTokenCount).toBeGreaterThanOrEqual(0);
        expect(u.thoughtsTokenCount ?? 0).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
