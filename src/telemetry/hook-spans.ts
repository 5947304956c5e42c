/**
 * Spans of the SDK's own decisions and hooks, only for those that took time (or denied): a fast allow or a
 * hook that returned at once would only bury the tree (docs/reference/observability.md#span-tree).
 */
import type { Attributes } from '@opentelemetry/api';
import type { ToolCallDecision } from '../model/tool-call.js';
import { ATTR, SPAN } from './attributes.js';
import { now, type ToolSpan, type TracingState } from './tracing-state.js';

/** A decision or hook shorter than this leaves no span of its own ("spans for hooks that took time"). */
export const MIN_TIMED_SPAN_MS = 1;

/** A decision span (policies, hooks, an `askUser` wait) under its tool span, when it took time or denied. */
export function decisionSpan(
  s: TracingState,
  tool: ToolSpan,
  verdict: ToolCallDecision,
  start: number,
  end: number,
): void {
  if (verdict.allow && end - start < MIN_TIMED_SPAN_MS) return;
  const attributes: Attributes = { [ATTR.decision]: verdict.allow ? 'allow' : 'deny' };
  if (!verdict.allow) attributes[ATTR.denialReason] = verdict.reason;
  s.tracer!.startSpan(SPAN.decision, { startTime: start, attributes }, tool.ctx).end(end);
}

/** Runs a hook (`preTurn`, `stop`, …); a span shows it when it took time. */
export async function timedHook<T>(s: TracingState, name: string, run: () => Promise<T>): Promise<T> {
  const start = now();
  try {
    return await run();
  } finally {
    const end = now();
    const tracer = s.tracer;
    if (tracer && end - start >= MIN_TIMED_SPAN_MS) {
      s.contain(`${name} hook span`, () =>
        tracer
          .startSpan(
            `${SPAN.hook} ${name}`,
            { startTime: start, attributes: { [ATTR.hookName]: name } },
            s.parent(),
          )
          .end(end),
      );
    }
  }
}
