/**
 * The gateway's upstream requests in provider mode: a `chat` span each, with time to first token, usage and
 * cost, and its context sent upstream as `traceparent` (docs/reference/observability.md#trace-context-to-the-upstream).
 */
import type { Attributes, SpanContext } from '@opentelemetry/api';
import { describeError } from '../logger.js';
import type {
  UpstreamKind,
  UpstreamObserver,
  UpstreamRequest,
  UpstreamTrace,
} from '../model/upstream-trace.js';
import { ATTR, OP } from './attributes.js';
import { now, type TracingState } from './tracing-state.js';
import { usageAttributes } from './usage-attributes.js';

const UPSTREAM_PROVIDER: Record<UpstreamKind, string> = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
};

/** Observes the gateway's upstream requests; a failure to start a span leaves the request untraced. */
export function upstreamObserver(s: TracingState): UpstreamObserver {
  return {
    start: (request) => {
      try {
        return upstreamTrace(s, request);
      } catch (error) {
        s.o.logger.warn(`telemetry: upstream request span failed: ${describeError(error)}`);
        return { headers: {}, firstToken() {}, end() {} };
      }
    },
  };
}

/** W3C Trace Context, written directly: it needs no globally registered propagator. */
function traceHeaders(sc: SpanContext): Record<string, string> {
  const headers: Record<string, string> = {
    traceparent: `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`,
  };
  const state = sc.traceState?.serialize();
  if (state) headers.tracestate = state;
  return headers;
}

function upstreamTrace(s: TracingState, request: UpstreamRequest): UpstreamTrace {
  const started = now();
  const provider = UPSTREAM_PROVIDER[request.kind];
  const attributes: Attributes = {
    [ATTR.operation]: OP.chat,
    [ATTR.provider]: provider,
    [ATTR.requestModel]: request.upstreamModel,
    [ATTR.requestedModel]: request.requestedModel,
    [ATTR.upstreamKind]: request.kind,
  };
  const span = s.tracer?.startSpan(
    `${OP.chat} ${request.upstreamModel}`,
    { attributes, kind: s.api.SpanKind.CLIENT, startTime: started },
    s.parent(),
  );
  const headers = span ? traceHeaders(span.spanContext()) : {};
  let ended = false;
  let firstAt: number | undefined;
  const metricAttributes: Attributes = {
    [ATTR.operation]: OP.chat,
    [ATTR.provider]: provider,
    [ATTR.requestModel]: request.upstreamModel,
  };
  return {
    headers,
    firstToken: () => {
      if (firstAt !== undefined) return;
      firstAt = now();
      span?.setAttribute(ATTR.timeToFirstTokenMs, firstAt - started);
    },
    end: (reported, error) => {
      if (ended) return;
      ended = true;
      const end = now();
      if (reported) {
        const usage = { ...reported, costUsd: s.o.priceUpstream(request.upstreamModel, reported) };
        span?.setAttributes(usageAttributes(usage, {}));
        s.metrics?.tokens(usage, metricAttributes);
      }
      if (error !== undefined) {
        span?.setAttribute(ATTR.errorType, 'upstream_error');
        span?.setStatus({ code: s.api.SpanStatusCode.ERROR, message: error });
      }
      span?.end(end);
      s.metrics?.duration(end - started, {
        ...metricAttributes,
        ...(error !== undefined && { [ATTR.errorType]: 'upstream_error' }),
      });
    },
  };
}
