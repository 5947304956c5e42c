/**
 * Wrappers around a request's {@link GeminiSink}, each adding one concern: secrets cleared from errors, usage
 * reported to `onUsage`, first token and end reported to an upstream trace. Built once per request, they add no
 * allocation per chunk.
 */
import { describeError, type Logger } from '../logger.js';
import type { UpstreamTrace } from '../model/upstream-trace.js';
import { redactError } from './errors.js';
import type { GeminiSink } from './gemini-sink.js';
import { usageFromGemini } from './gemini-usage.js';
import type { NormalizedRequest } from './normalize-request.js';
import type { GatewayUsageReport } from './options.js';

/** `sink`, with every error it is given cleared of `secrets` (an upstream may echo its key in-stream). */
export function redactingSink(sink: GeminiSink, secrets: readonly string[]): GeminiSink {
  return {
    meta: (model, responseId) => sink.meta(model, responseId),
    text: (text, signature) => sink.text(text, signature),
    thought: (text) => sink.thought(text),
    functionCall: (call, signature) => sink.functionCall(call, signature),
    fail: (error) => sink.fail(redactError(error, secrets)),
    finish: (reason, usage, grounding) => sink.finish(reason, usage, grounding),
    get done() {
      return sink.done;
    },
    get failed() {
      return sink.failed;
    },
  };
}

/** `sink`, with the finished request's usage also sent to `onUsage` (contained: a throw is logged). */
export function reportingUsageSink(
  sink: GeminiSink,
  normalized: NormalizedRequest,
  onUsage: (report: GatewayUsageReport) => void,
  logger: Logger,
): GeminiSink {
  return {
    meta: (model, responseId) => sink.meta(model, responseId),
    text: (text, signature) => sink.text(text, signature),
    thought: (text) => sink.thought(text),
    functionCall: (call, signature) => sink.functionCall(call, signature),
    fail: (error) => sink.fail(error),
    finish: (reason, usage, grounding) => {
      sink.finish(reason, usage, grounding);
      try {
        onUsage({ requestedModel: normalized.requestedModel, upstreamModel: normalized.model, usage });
      } catch (error) {
        logger.error(`gateway: onUsage threw: ${describeError(error)}`);
      }
    },
    get done() {
      return sink.done;
    },
    get failed() {
      return sink.failed;
    },
  };
}

/** `sink`, reporting the first token and the end of the request to an upstream trace. */
export function tracingSink(sink: GeminiSink, trace: UpstreamTrace): GeminiSink {
  let first = true;
  const token = (): void => {
    if (!first) return;
    first = false;
    trace.firstToken();
  };
  return {
    meta: (model, responseId) => sink.meta(model, responseId),
    text: (text, signature) => {
      token();
      sink.text(text, signature);
    },
    thought: (text) => {
      token();
      sink.thought(text);
    },
    functionCall: (call, signature) => {
      token();
      sink.functionCall(call, signature);
    },
    fail: (error) => {
      trace.end(undefined, error.message);
      sink.fail(error);
    },
    finish: (reason, usage, grounding) => {
      trace.end(usageFromGemini(usage));
      sink.finish(reason, usage, grounding);
    },
    get done() {
      return sink.done;
    },
    get failed() {
      return sink.failed;
    },
  };
}
