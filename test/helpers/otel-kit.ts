/**
 * The OpenTelemetry SDK pieces the telemetry tests read spans and metrics with: an in-memory span exporter
 * behind a simple processor, a metric reader collected on demand, and the AsyncLocalStorage context manager
 * (what a Node app registers) so a tool handler's own spans find their parent.
 */
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  type CollectionResult,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A metric reader that collects when asked (the SDK's pull model). */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface OtelKit {
  exporter: InMemorySpanExporter;
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  reader: TestReader;
  /** Finished spans. */
  spans(): ReadableSpan[];
  /** Collected metric points by instrument name. */
  collect(): Promise<CollectionResult>;
  shutdown(): Promise<void>;
}

/** Providers for one test file; `global` also registers them (and the context manager) globally. */
export function otelKit(opts: { global?: boolean } = {}): OtelKit {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  if (opts.global) {
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    exporter,
    tracerProvider,
    meterProvider,
    reader,
    spans: () => exporter.getFinishedSpans(),
    collect: () => reader.collect(),
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
    },
  };
}

/** The one span named `name` (fails when there is none or several). */
export function one(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1)
    throw new Error(`expected one span '${name}', got ${found.length}: ${names(spans)}`);
  return found[0]!;
}

/** Span names, for failure messages. */
export function names(spans: readonly ReadableSpan[]): string {
  return spans.map((s) => s.name).join(', ');
}

/** The parent of `span` among `spans`, or undefined for a root. */
export function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return id === undefined ? undefined : spans.find((s) => s.spanContext().spanId === id);
}

/** The children of `span`. */
export function childrenOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan[] {
  const id = span.spanContext().spanId;
  return spans.filter((s) => s.parentSpanContext?.spanId === id);
}

/** A data point's value of a counter (sum) or histogram (sum and count) matching `attrs`. */
export function point(
  result: CollectionResult,
  name: string,
  attrs: Record<string, unknown> = {},
): { sum: number; count: number } | undefined {
  for (const scope of result.resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== name) continue;
      let sum = 0;
      let count = 0;
      let found = false;
      for (const dp of metric.dataPoints) {
        if (!Object.entries(attrs).every(([k, v]) => dp.attributes[k] === v)) continue;
        found = true;
        const value = dp.value as number | { sum: number; count: number };
        if (typeof value === 'number') {
          sum += value;
          count += 1;
        } else {
          sum += value.sum;
          count += value.count;
        }
      }
      return found ? { sum, count } : undefined;
    }
  }
  return undefined;
}

/**
 * A span's start and end in nanoseconds. OpenTelemetry times are `[seconds, nanoseconds]` tuples, which `<`
 * compares as strings ("5,9" > "5,10"): tests compare these instead.
 */
export function nanos(span: ReadableSpan): { start: bigint; end: bigint } {
  const ns = ([s, n]: readonly [number, number]): bigint => BigInt(s) * 1_000_000_000n + BigInt(n);
  return { start: ns(span.startTime), end: ns(span.endTime) };
}
