/**
 * What a line that was not understood leaves behind: the counters, the drift report (an unknown event's name, a
 * malformed step's fields), and the running turn's record of it (docs/reference/stream-json.md#drift-tolerance).
 */
import type { DriftTracker } from './drift.js';
import type { BadLine } from './parse-line.js';
import type { ConnectionStats } from './process-options.js';
import type { TurnTracker } from './turn-tracker.js';

/** Counts `bad`, names it in the drift report when it is drift, and marks the turn's tracker. Never throws. */
export function recordBadLine(
  bad: BadLine,
  stats: ConnectionStats,
  drift: DriftTracker,
  tracker: TurnTracker | undefined,
): void {
  stats.badLines++;
  const value = bad.value as { event?: unknown; step_update?: unknown } | undefined;
  if (bad.reason === 'unknown_event') {
    stats.unknownEvents++;
    drift.event(typeof value?.event === 'string' ? value.event : '(no event name)');
  }
  if (bad.reason === 'malformed_event' && value?.event === 'step_update') {
    // Named too: the renamed or retyped field is what the user needs to see.
    const payload = value.step_update;
    if (typeof payload === 'object' && payload !== null) drift.step(payload as Record<string, unknown>);
    if (tracker) {
      const seen = tracker.malformedSteps;
      if (seen) seen.count++;
      else tracker.malformedSteps = { count: 1, first: bad.line.slice(0, 200) };
    }
  }
  if (bad.reason === 'too_deep' && tracker) tracker.lineTooDeep = true;
}
