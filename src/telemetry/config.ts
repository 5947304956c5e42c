/**
 * `AgentConfig.telemetry`, and the one place it becomes an `AgentTracing` (or nothing). Its types are
 * structural, so the SDK's public declarations never name `@opentelemetry/api` (an optional peer).
 */
import type { Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import { ConfigError } from '../errors.js';
import { SCOPE } from './attributes.js';
import { hasGlobalMeterProvider, hasGlobalTracerProvider, loadOtel } from './otel-api.js';
import { AgentTracing, type TracingOptions } from './tracing.js';

/** A tracer provider, e.g. an OpenTelemetry SDK `NodeTracerProvider` or `BasicTracerProvider`. */
export interface TracerProviderLike {
  /** Returns a tracer (an `@opentelemetry/api` `Tracer`). */
  getTracer(name: string, version?: string): object;
}

/** A meter provider, e.g. an OpenTelemetry SDK `MeterProvider`. */
export interface MeterProviderLike {
  /** Returns a meter (an `@opentelemetry/api` `Meter`). */
  getMeter(name: string, version?: string): object;
}

/**
 * OpenTelemetry traces and metrics (docs/observability.md). Needs the optional peer `@opentelemetry/api`; with
 * it, spans and metrics go to the globally registered providers, or to the ones given here. Without the API,
 * or with no provider, nothing is recorded and nothing is spent on it.
 */
export interface TelemetryConfig {
  /** `false` turns telemetry off even when a provider is registered. Default `true`. */
  enabled?: boolean | undefined;
  /**
   * Record prompts, answers, tool arguments and tool results on spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Default `false`:
   * they may hold personal or secret data.
   */
  captureContent?: boolean | undefined;
  /** Where spans go, instead of the globally registered tracer provider. */
  tracerProvider?: TracerProviderLike | undefined;
  /** Where metrics go, instead of the globally registered meter provider. */
  meterProvider?: MeterProviderLike | undefined;
}

/** Everything but the API and the providers, which this module resolves. */
export type TracingSetup = Omit<TracingOptions, 'api' | 'tracer' | 'meter' | 'captureContent'>;

/**
 * The Agent's tracing, or undefined when telemetry is off: disabled, `@opentelemetry/api` not installed, or
 * neither a tracer nor a meter provider (given or registered).
 */
export async function createTracing(
  config: TelemetryConfig | undefined,
  setup: TracingSetup,
): Promise<AgentTracing | undefined> {
  if (config?.enabled === false) return undefined;
  const api = await loadOtel();
  if (!api) {
    if (config?.tracerProvider || config?.meterProvider)
      throw new ConfigError('telemetry', 'a provider was given but @opentelemetry/api is not installed');
    return undefined;
  }
  const tracerProvider: TracerProvider | undefined =
    (config?.tracerProvider as TracerProvider | undefined) ??
    (hasGlobalTracerProvider(api) ? api.trace.getTracerProvider() : undefined);
  const meterProvider: MeterProvider | undefined =
    (config?.meterProvider as MeterProvider | undefined) ??
    (hasGlobalMeterProvider(api) ? api.metrics.getMeterProvider() : undefined);
  if (!tracerProvider && !meterProvider) return undefined;
  const tracer: Tracer | undefined = tracerProvider?.getTracer(SCOPE);
  const meter: Meter | undefined = meterProvider?.getMeter(SCOPE);
  return new AgentTracing({
    ...setup,
    api,
    tracer,
    meter,
    captureContent: config?.captureContent === true,
  });
}
