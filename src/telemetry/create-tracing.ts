/**
 * The one place `AgentConfig.telemetry` becomes an `AgentTracing`, or nothing. Internal: this module's
 * declarations name `@opentelemetry/api` types, so no public declaration may import it.
 */
import type { Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import { ConfigError } from '../errors.js';
import { SCOPE } from './attributes.js';
import { hasGlobalMeterProvider, hasGlobalTracerProvider, loadOtel } from './otel-api.js';
import type { TelemetryConfig } from './telemetry-config.js';
import { AgentTracing } from './tracing.js';
import type { TracingOptions } from './tracing-options.js';

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
