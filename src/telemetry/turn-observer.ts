/**
 * What the Conversation tells telemetry about each turn. Plain SDK types only (no OpenTelemetry types), so
 * Layer 2 stays free of the optional `@opentelemetry/api`; with tracing off the Agent passes no observer.
 */
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';

/** Sees a turn from its start (before the prepare stages) to its result. Implementations never throw. */
export interface TurnObserver {
  /** The turn's time has come: the prepare stages (hooks, files) run next. */
  turnStarted(): void;
  /** The prepared prompt is being sent to the backend. */
  turnSent(text: readonly string[]): void;
  /** One step of the running turn, as delivered. */
  step(step: Step): void;
  /** The turn's final result (also for turns that ended before anything was sent). */
  turnEnded(result: TurnResult): void;
}
