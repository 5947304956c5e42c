/**
 * Gemini's `usageMetadata` → the SDK's `Usage`: what the gateway reports to an upstream observer
 * (docs/reference/gateway-translation.md#usage). Thinking is part of the output; cached tokens are apart from
 * the input.
 */
import type { Usage } from '../model/step.js';
import type { UsageMetadata } from './gemini-types.js';

/** Gemini's usage → the SDK's: what upstream spans record and the provider bridge sums per turn. */
export function usageFromGemini(u: UsageMetadata): Usage {
  const cached = u.cachedContentTokenCount ?? 0;
  const thoughts = u.thoughtsTokenCount ?? 0;
  const input = Math.max(0, u.promptTokenCount - cached);
  const output = u.candidatesTokenCount + thoughts;
  return {
    inputTokens: input,
    outputTokens: output,
    thinkingTokens: thoughts,
    cacheReadTokens: cached,
    totalTokens: input + output,
  };
}
