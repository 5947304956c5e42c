/**
 * The optional `@opentelemetry/api` peer, loaded lazily once per process. Without it (not installed), or with
 * neither a registered nor a configured provider, telemetry is off and the SDK's hot paths call nothing.
 */
import type * as OtelApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module. */
export type Otel = typeof OtelApi;

let loading: Promise<Otel | undefined> | undefined;

/** The API module, or undefined when it is not installed. */
export function loadOtel(): Promise<Otel | undefined> {
  loading ??= import('@opentelemetry/api').then(
    // A CommonJS build seen from ESM may put everything under `default`.
    (m) => (typeof m.trace === 'object' ? m : (m as unknown as { default: Otel }).default),
    () => undefined,
  );
  return loading;
}

/** True when a global tracer provider was registered (the API's proxy has a real delegate). */
export function hasGlobalTracerProvider(api: Otel): boolean {
  const global = api.trace.getTracerProvider() as Partial<OtelApi.ProxyTracerProvider>;
  if (typeof global.getDelegate !== 'function') return true;
  // A fresh proxy's delegate is the API's no-op provider: the same object when nothing was registered.
  return global.getDelegate() !== new api.ProxyTracerProvider().getDelegate();
}

/** True when a global meter provider was registered (its meters are not the API's no-op meter). */
export function hasGlobalMeterProvider(api: Otel): boolean {
  const meter = api.metrics.getMeterProvider().getMeter('agy-sdk-probe');
  return meter.constructor !== api.createNoopMeter().constructor;
}
