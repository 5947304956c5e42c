/**
 * What the span recorders of one Agent share: its options, the open session and turn (the parents of
 * everything else), and the containment every entry point runs in, since telemetry never breaks a turn.
 */
import type { Context, Span } from '@opentelemetry/api';
import { describeError } from '../logger.js';
import type { ToolCall } from '../model/step.js';
import type { ToolCallDecision } from '../model/tool-call.js';
import type { AgentMetrics } from './metrics.js';
import type { Otel } from './otel-api.js';
import type { TracingOptions } from './tracing-options.js';

/** A span and the context that makes it the parent of what happens inside it. */
export interface Scope {
  span: Span;
  ctx: Context;
}

/** The `execute_tool` span of one tool call. */
export interface ToolSpan extends Scope {
  /** The host's (or the backend's final) verdict, when a decision ran. */
  verdict: ToolCallDecision | undefined;
  /** The time the tool step ended, for calls whose end waits for the turn's result (soft denials). */
  endTime: number | undefined;
  ended: boolean;
}

/** The spans of the running turn. */
export interface TurnTrace extends Scope {
  startedAt: number;
  /** Model steps seen but not finished, by `<conversation>:<step>`: their start time. */
  chats: Map<string, number>;
  /** Tool calls by call id (`<conversation>:<step>`, as both the steps and the hooks name them). */
  tools: Map<string, ToolSpan>;
  /** DONE tool calls without output or error: agy's soft denial is known only at the turn's result. */
  silent: Array<{ state: ToolSpan; call: ToolCall }>;
  /** Subagent spans by the subagent's conversation id. */
  subagents: Map<string, Scope>;
}

/** Epoch milliseconds with sub-millisecond precision (OpenTelemetry's numeric time input). */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** A captured value as a span attribute; what JSON cannot hold is recorded as its string. */
export function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** The state one Agent's recorders share; the recorders hold no session or turn of their own. */
export class TracingState {
  readonly o: TracingOptions;
  readonly api: Otel;
  /** Undefined when only metrics are on: no recorder opens a span then. */
  readonly tracer: TracingOptions['tracer'];
  /** Undefined when only traces are on. */
  readonly metrics: AgentMetrics | undefined;
  session: Scope | undefined;
  turn: TurnTrace | undefined;

  constructor(options: TracingOptions, metrics: AgentMetrics | undefined) {
    this.o = options;
    this.api = options.api;
    this.tracer = options.tracer;
    this.metrics = metrics;
  }

  /** Runs a telemetry step; a failure is logged and goes no further (telemetry never breaks a turn). */
  contain(what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.o.logger.warn(`telemetry: ${what} failed: ${describeError(error)}`);
    }
  }

  /** The innermost open scope: the turn, else the session, else whatever context is active. */
  parent(): Context {
    return this.turn?.ctx ?? this.session?.ctx ?? this.api.context.active();
  }
}
