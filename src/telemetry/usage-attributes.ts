/** Usage as span attributes (`gen_ai.usage.*`, docs/reference/observability.md#genai-semantic-conventions). */
import type { Attributes } from '@opentelemetry/api';
import type { Usage } from '../model/step.js';
import { ATTR } from './attributes.js';

/** Writes a usage's counts and cost into `into` (returned); unknown counts get no attribute. */
export function usageAttributes(usage: Usage, into: Attributes): Attributes {
  into[ATTR.inputTokens] = usage.inputTokens;
  into[ATTR.outputTokens] = usage.outputTokens;
  // An unreported count (null) gets no attribute rather than a 0 that reads as "none".
  if (usage.thinkingTokens !== null) into[ATTR.reasoningTokens] = usage.thinkingTokens;
  if (usage.cacheReadTokens !== null) into[ATTR.cacheReadTokens] = usage.cacheReadTokens;
  into[ATTR.totalTokens] = usage.totalTokens;
  if (typeof usage.cacheWriteTokens === 'number') into[ATTR.cacheWriteTokens] = usage.cacheWriteTokens;
  // A null cost is unknown: no attribute, never a 0 that reads as "free".
  if (typeof usage.costUsd === 'number') into[ATTR.costUsd] = usage.costUsd;
  return into;
}
