/**
 * The metric instruments of one Agent (GenAI semantic-convention names where they exist, `agy_sdk.*` for the
 * rest: docs/reference/observability.md#genai-semantic-conventions) and what each operation records.
 */
import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import { WatchdogTimeoutError } from '../errors.js';
import type { Usage } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import { ATTR, METRIC, OP } from './attributes.js';
import type { TracingOptions } from './tracing-options.js';

/** Powers of 4 from 1 token to 64 Mi tokens: one prompt of a few tokens and a whole long turn both land. */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
/** Doublings from 10 ms to about 80 s, in seconds (the convention's unit). */
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** What a tool call ended as: the `agy_sdk.tool.outcome` attribute and the tool-call counter's label. */
export type ToolOutcome = 'allowed' | 'denied' | 'error';

function histogram(
  meter: Meter,
  name: string,
  description: string,
  unit: string,
  buckets: number[],
): Histogram {
  return meter.createHistogram(name, { description, unit, advice: { explicitBucketBoundaries: buckets } });
}

/** Records an Agent's metrics; it exists only when a meter does. */
export class AgentMetrics {
  readonly #tokenUsage: Histogram;
  readonly #duration: Histogram;
  readonly #turns: Counter;
  readonly #toolCalls: Counter;
  readonly #watchdog: Counter;
  readonly #restarts: Counter;
  readonly #o: Pick<TracingOptions, 'providerName' | 'processesStarted'>;
  /** Backend processes started when last looked at: a turn that sees more counts the difference as restarts. */
  #processes: number | undefined;

  constructor(meter: Meter, options: Pick<TracingOptions, 'providerName' | 'processesStarted'>) {
    this.#o = options;
    this.#tokenUsage = histogram(
      meter,
      METRIC.tokenUsage,
      'Tokens used per operation, by token type',
      '{token}',
      TOKEN_BUCKETS,
    );
    this.#duration = histogram(
      meter,
      METRIC.operationDuration,
      'Duration of GenAI operations (turns, model steps, upstream requests)',
      's',
      DURATION_BUCKETS,
    );
    this.#turns = meter.createCounter(METRIC.turns, { description: 'Turns by final status', unit: '{turn}' });
    this.#toolCalls = meter.createCounter(METRIC.toolCalls, {
      description: 'Tool calls by outcome (allowed, denied, error)',
      unit: '{call}',
    });
    this.#watchdog = meter.createCounter(METRIC.watchdogTimeouts, {
      description: 'Turns ended by the SDK watchdog, by kind (idle, turn)',
      unit: '{timeout}',
    });
    this.#restarts = meter.createCounter(METRIC.restarts, {
      description: 'Backend processes started after the first (recovery, model and schema switches)',
      unit: '{restart}',
    });
  }

  /** The backend is up: the processes started so far are the baseline of the restart counter. */
  sessionStarted(): void {
    this.#processes = this.#o.processesStarted();
  }

  /** One operation's duration. */
  duration(ms: number, attributes: Attributes): void {
    this.#duration.record(ms / 1000, attributes);
  }

  /** One operation's input and output tokens, by `gen_ai.token.type`. */
  tokens(usage: Usage, attributes: Attributes): void {
    this.#tokenUsage.record(usage.inputTokens, { ...attributes, [ATTR.tokenType]: 'input' });
    this.#tokenUsage.record(usage.outputTokens, { ...attributes, [ATTR.tokenType]: 'output' });
  }

  /** One tool call, by outcome. */
  toolCall(outcome: ToolOutcome): void {
    this.#toolCalls.add(1, { [ATTR.toolOutcome]: outcome });
  }

  /** A finished turn: duration, tokens, status, a watchdog timeout, processes restarted since the last. */
  turnEnded(result: TurnResult, durationMs: number): void {
    const attributes: Attributes = {
      [ATTR.operation]: OP.invokeAgent,
      [ATTR.provider]: this.#o.providerName,
      [ATTR.turnStatus]: result.status,
    };
    if (result.model) attributes[ATTR.requestModel] = result.model;
    this.duration(durationMs, attributes);
    if (result.usage) this.tokens(result.usage, attributes);
    this.#turns.add(1, { [ATTR.turnStatus]: result.status });
    if (result.error instanceof WatchdogTimeoutError)
      this.#watchdog.add(1, { [ATTR.watchdogKind]: result.error.kind });
    const started = this.#o.processesStarted();
    if (started !== undefined) {
      const before = this.#processes ?? started;
      if (started > before) this.#restarts.add(started - before);
      this.#processes = started;
    }
  }
}
