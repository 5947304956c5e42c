/**
 * A finished agy turn in the AI SDK's terms: its finish reason, its usage and the `agy` provider metadata.
 * Fail-closed: only `success` is a clean `stop`; the statuses in {@link FAILED_STATUSES} also end the stream
 * with an `error` part (and make `generateText` throw), so they can never pass for an answer.
 */
import type {
  JSONObject,
  LanguageModelV4FinishReason,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import type { BudgetName, TurnResult, TurnStatus, Usage } from '../index.js';
import { PROVIDER_KEY } from './prompt.js';

/** Statuses where agy gave no usable answer: the turn failed (an `error` part, `generateText` throws). */
export const FAILED_STATUSES: ReadonlySet<TurnStatus> = new Set([
  'error',
  'timeout',
  'auth_failed',
  'quota_exhausted',
  'rate_limited',
]);

/** Budgets that bound tokens: exceeding one is the AI SDK's `length`. */
const TOKEN_BUDGETS: ReadonlySet<BudgetName> = new Set([
  'maxOutputTokens',
  'maxTotalTokens',
  'maxInputTokens',
]);

/** The unified finish reason of each status (docs/guides/ai-sdk.md#finish-reasons). */
const UNIFIED: Record<TurnStatus, LanguageModelV4FinishReason['unified']> = {
  success: 'stop',
  denied: 'other',
  timeout: 'error',
  quota_exhausted: 'error',
  rate_limited: 'error',
  auth_failed: 'error',
  interrupted: 'interrupted',
  canceled: 'interrupted',
  budget_exceeded: 'other',
  error: 'error',
};

/** The finish reason of a turn; `raw` is the `TurnStatus` itself. */
export function finishReason(result: TurnResult): LanguageModelV4FinishReason {
  const tokens = result.status === 'budget_exceeded' && result.budget && TOKEN_BUDGETS.has(result.budget);
  return { unified: tokens ? 'length' : UNIFIED[result.status], raw: result.status };
}

/** agy's usage in the AI SDK's shape: agy's `inputTokens` excludes cache reads, the SDK's total includes them. */
export function usageOf(usage: Usage | null): LanguageModelV4Usage {
  if (!usage)
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    };
  const cacheRead = usage.cacheReadTokens ?? undefined;
  const reasoning = usage.thinkingTokens ?? undefined;
  return {
    inputTokens: {
      total: usage.inputTokens + (cacheRead ?? 0),
      noCache: usage.inputTokens,
      cacheRead,
      cacheWrite: usage.cacheWriteTokens ?? undefined,
    },
    outputTokens: {
      total: usage.outputTokens,
      text: usage.outputTokens - (reasoning ?? 0),
      reasoning,
    },
    raw: { ...usage } as JSONObject,
  };
}

/**
 * The `agy` provider metadata of a finished turn: the conversation to continue, the status and why it was not
 * `success`, denials, cost. JSON only (the AI SDK stores it in messages).
 */
export function turnMetadata(result: TurnResult): SharedV4ProviderMetadata {
  const meta: JSONObject = {
    conversationId: result.conversationId ?? null,
    status: result.status,
    durationMs: result.durationMs,
    costUsd: result.usage?.costUsd ?? null,
  };
  if (result.errorMessage) meta.errorMessage = result.errorMessage;
  if (result.deniedActions.length > 0)
    meta.deniedActions = result.deniedActions.map((d) => ({
      action: d.action,
      reason: d.reason ?? null,
      deniedBy: (d.deniedBy as JSONObject | undefined) ?? null,
    }));
  if (result.budget) meta.budget = result.budget;
  if (result.resumed !== undefined) meta.resumed = result.resumed;
  if (result.retryAfterMs !== undefined) meta.retryAfterMs = result.retryAfterMs;
  return { [PROVIDER_KEY]: meta };
}

/** The metadata a text part carries so that `response.messages` remember the conversation. */
export function conversationMetadata(
  conversationId: string | undefined,
): SharedV4ProviderMetadata | undefined {
  return conversationId ? { [PROVIDER_KEY]: { conversationId } } : undefined;
}
