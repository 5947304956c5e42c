/**
 * `AgentConfig.telemetry`. Its types are structural and this file imports nothing of OpenTelemetry, so the
 * SDK's public declarations never name `@opentelemetry/api` (an optional peer a user may not have).
 */

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
