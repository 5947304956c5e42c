/**
 * The pool's OpenTelemetry metrics: observable gauges that read `pool.stats` when a reader collects, and
 * histograms of queue waits and agent starts. Created only when `@opentelemetry/api` is installed and a meter
 * provider is given or registered (the Agent's rule, src/telemetry/create-tracing.ts); otherwise the pool holds
 * none and records nothing. Internal: this module's declarations name `@opentelemetry/api` types.
 */
import type {
  BatchObservableCallback,
  Histogram,
  Meter,
  MeterProvider,
  ObservableGauge,
} from '@opentelemetry/api';
import { ConfigError } from '../errors.js';
import { ATTR, METRIC, SCOPE } from '../telemetry/attributes.js';
import { hasGlobalMeterProvider, loadOtel } from '../telemetry/otel-api.js';
import type { PoolTelemetryConfig } from './types.js';

/** Histogram buckets in seconds, from a warm hand-over (ms) to a cold agy start under load (minutes). */
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** What the gauges read. */
export interface GaugeSource {
  busy: number;
  idle: number;
  queued: number;
  paused: number;
}

/** One pool's instruments. `close()` stops its gauges (a closed pool reports nothing more). */
export class PoolMetrics {
  readonly #meter: Meter;
  readonly #gauges: ObservableGauge[];
  readonly #callback: BatchObservableCallback;
  readonly #queueWait: Histogram;
  readonly #agentStart: Histogram;

  constructor(meter: Meter, read: () => GaugeSource) {
    this.#meter = meter;
    const gauge = (name: string, description: string) =>
      meter.createObservableGauge(name, { description, unit: '{agent}' });
    const busy = gauge(METRIC.poolBusy, 'Pool agents running a turn or starting for one');
    const idle = gauge(METRIC.poolIdle, 'Live pool agents with no turn');
    const queued = meter.createObservableGauge(METRIC.poolQueued, {
      description: 'Runs waiting for a pool agent',
      unit: '{run}',
    });
    const paused = meter.createObservableGauge(METRIC.poolPaused, {
      description: 'Models (provider:model) the pool has paused after a rate limit',
      unit: '{model}',
    });
    this.#gauges = [busy, idle, queued, paused];
    // One read of the stats per collection for all four gauges.
    this.#callback = (result) => {
      const s = read();
      result.observe(busy, s.busy);
      result.observe(idle, s.idle);
      result.observe(queued, s.queued);
      result.observe(paused, s.paused);
    };
    meter.addBatchObservableCallback(this.#callback, this.#gauges);
    this.#queueWait = meter.createHistogram(METRIC.poolQueueWait, {
      description: 'Time a run waited in the pool queue before its turn was handed to an agent',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    });
    this.#agentStart = meter.createHistogram(METRIC.poolAgentStart, {
      description: 'Time a pool agent took to start, by reason (warm, cold, resumed)',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    });
  }

  /** A run was handed to its agent after waiting `ms`. */
  queueWait(ms: number): void {
    this.#queueWait.record(ms / 1000);
  }

  /** An agent started in `ms`. */
  agentStarted(ms: number, reason: 'warm' | 'cold' | 'resumed'): void {
    this.#agentStart.record(ms / 1000, { [ATTR.poolStartReason]: reason });
  }

  /** Stops the gauges' callback. */
  close(): void {
    this.#meter.removeBatchObservableCallback(this.#callback, this.#gauges);
  }
}

/**
 * The pool's metrics, or undefined when they are off: disabled, `@opentelemetry/api` not installed, or no meter
 * provider (given or registered). A provider given without the API is a `ConfigError`.
 */
export async function createPoolMetrics(
  config: PoolTelemetryConfig | undefined,
  read: () => GaugeSource,
): Promise<PoolMetrics | undefined> {
  if (config?.enabled === false) return undefined;
  const api = await loadOtel();
  if (!api) {
    if (config?.meterProvider)
      throw new ConfigError('telemetry', 'a meterProvider was given but @opentelemetry/api is not installed');
    return undefined;
  }
  const provider: MeterProvider | undefined =
    (config?.meterProvider as MeterProvider | undefined) ??
    (hasGlobalMeterProvider(api) ? api.metrics.getMeterProvider() : undefined);
  if (!provider) return undefined;
  return new PoolMetrics(provider.getMeter(SCOPE), read);
}
