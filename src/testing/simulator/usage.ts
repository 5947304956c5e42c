/**
 * Token usage in wire form, with agy's invariants: all five keys always present,
 * `total_tokens = input_tokens + output_tokens`, `thinking_tokens` counted inside `output_tokens`, and
 * `cache_read_tokens` separate from input (docs/reference/stream-json.md#usage-fields).
 */
import type { ScenarioUsage } from './scenario.js';

/** The five usage keys, in agy's order. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  thinking_tokens: number;
  cache_read_tokens: number;
  total_tokens: number;
}

/** All-zero usage (auth failure, 1.2.17 print timeout). */
export function zeroUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, thinking_tokens: 0, cache_read_tokens: 0, total_tokens: 0 };
}

/** Completes a scenario's partial usage: missing keys are 0, output covers thinking, total is computed. */
export function completeUsage(partial: ScenarioUsage): Usage {
  const input = partial.input_tokens ?? 0;
  const thinking = partial.thinking_tokens ?? 0;
  const output = Math.max(partial.output_tokens ?? 0, thinking);
  return {
    input_tokens: input,
    output_tokens: output,
    thinking_tokens: thinking,
    cache_read_tokens: partial.cache_read_tokens ?? 0,
    total_tokens: input + output,
  };
}

/** Thinking tokens the derived usage claims for every response (agy counts thinking but never streams it). */
const DERIVED_THINKING = 8;

/**
 * Deterministic usage for a response when the scenario gives none: about 4 characters per token, plus a fixed
 * system-prompt cost on input, so tests can predict totals from lengths alone.
 */
export function deriveUsage(promptLength: number, textLength: number): Usage {
  const input = 100 + Math.ceil(promptLength / 4);
  const output = Math.ceil(textLength / 4) + DERIVED_THINKING;
  return {
    input_tokens: input,
    output_tokens: output,
    thinking_tokens: DERIVED_THINKING,
    cache_read_tokens: 0,
    total_tokens: input + output,
  };
}

/** Adds `extra` into `into`, key by key, recomputing the total. Unknown or non-numeric keys are ignored. */
export function addUsage(into: Usage, extra: Partial<Record<keyof Usage, unknown>>): void {
  into.input_tokens += num(extra.input_tokens);
  into.output_tokens += num(extra.output_tokens);
  into.thinking_tokens += num(extra.thinking_tokens);
  into.cache_read_tokens += num(extra.cache_read_tokens);
  into.total_tokens = into.input_tokens + into.output_tokens;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
