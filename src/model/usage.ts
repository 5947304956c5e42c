/**
 * Usage arithmetic. agy's rules (docs/reference/stream-json.md#usage-fields): `total = input + output`, thinking is part of output,
 * cache reads are separate from input, and an all-zero usage object means "unknown", never zero.
 */
import type { Usage } from './step.js';

/** The upstream's own token counts in provider mode (`TurnResult.providerUsage`): what the provider bills. */
export interface ProviderUsage extends Usage {
  /** Thinking tokens the upstream billed (a part of `outputTokens`); the gateway always knows them. */
  thinkingTokens: number;
  /** Prompt-cache reads the upstream billed; the gateway always knows them. */
  cacheReadTokens: number;
  /** Upstream requests that finished during the turn. */
  requests: number;
  /** The upstream model(s) those requests went to. */
  models: string[];
}

/** A usage value with every count at zero. Internal: callers must see `null` for unknown usage. */
export function zeroUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, thinkingTokens: 0, cacheReadTokens: 0, totalTokens: 0 };
}

/** True when every count is zero (agy's way of saying it does not know). */
export function isZeroUsage(u: Usage): boolean {
  return u.inputTokens === 0 && u.outputTokens === 0 && !u.thinkingTokens && !u.cacheReadTokens;
}

/** `a + b` where `null` means "not reported": the sum is `null` only when neither side reported a count. */
export function addCount(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}

/** Adds `b` into `a` in place and returns `a`. */
export function addUsage(a: Usage, b: Usage): Usage {
  a.inputTokens += b.inputTokens;
  a.outputTokens += b.outputTokens;
  a.thinkingTokens = addCount(a.thinkingTokens, b.thinkingTokens);
  a.cacheReadTokens = addCount(a.cacheReadTokens, b.cacheReadTokens);
  a.totalTokens = a.inputTokens + a.outputTokens;
  return a;
}

/** `null` for an all-zero value, the value otherwise. */
export function knownUsage(u: Usage): Usage | null {
  return isZeroUsage(u) ? null : u;
}
