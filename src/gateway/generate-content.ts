/**
 * One `generateContent` / `streamGenerateContent` request, forwarded: the upstream request sent, its failure
 * mapped to a Google error (an HTTP status before the `200` is out, an in-stream error after), its body relayed,
 * and a unary answer sent whole. The request is aborted, and the upstream no longer paid for, when the client
 * goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../logger.js';
import type { UpstreamTrace } from '../model/upstream-trace.js';
import { type GatewayContext, redactText, sendError } from './context.js';
import { fromUpstreamResponse, GatewayError } from './errors.js';
import { type GeminiSink, StreamingSink, UnarySink } from './gemini-sink.js';
import { sendJson } from './json-response.js';
import type { NormalizedRequest } from './normalize-request.js';
import { relayUpstream } from './relay-upstream.js';
import { redactingSink, reportingUsageSink, tracingSink } from './sink-wrappers.js';
import { SseWriter } from './sse-writer.js';
import { joinUrl, postJson, readBody, UpstreamTimeoutError } from './upstream/http-client.js';

/**
 * Answers `res` for `normalized`: as SSE when `sse`, else one JSON answer (in an array when `jsonArray`, the
 * non-SSE `streamGenerateContent` shape). Throws only what `buildRequest` throws (a `GatewayError`).
 */
export async function generateContent(
  ctx: GatewayContext,
  normalized: NormalizedRequest,
  res: ServerResponse,
  sse: boolean,
  jsonArray: boolean,
): Promise<void> {
  const controller = new AbortController();
  ctx.inflight.add(controller);
  res.on('close', () => {
    // The client went away before we finished: stop paying for the upstream.
    if (!res.writableFinished) controller.abort();
    ctx.inflight.delete(controller);
  });
  const writer = sse ? new SseWriter(res, ctx.keepAliveMs) : undefined;
  const unary = writer ? undefined : new UnarySink();
  const trace = ctx.options.upstreamObserver?.start({
    requestedModel: normalized.requestedModel,
    upstreamModel: normalized.model,
    kind: ctx.upstream.kind,
  });
  const sink = requestSink(ctx, writer ? new StreamingSink(writer) : (unary as UnarySink), normalized, trace);
  // Headers guard: past it, 200 and keep-alives go out even while the upstream has not answered.
  if (writer && ctx.headersGuardMs > 0) writer.hold(ctx.headersGuardMs);
  // Before the 200 is out, a failure is a real HTTP status (what clients retry on); after, an in-stream error.
  const fail = (error: GatewayError): void => {
    if (writer?.committed) {
      sink.fail(error);
      return;
    }
    writer?.dispose();
    sendError(ctx, res, error);
  };
  const upstreamRes = await openUpstream(ctx, normalized, controller.signal, trace);
  if (upstreamRes === undefined) return writer?.dispose();
  if (upstreamRes instanceof GatewayError) return fail(upstreamRes);
  const status = upstreamRes.statusCode ?? 502;
  if (status < 200 || status >= 300) {
    const text = await readBody(upstreamRes, 1 << 20, ctx.upstreamIdleMs);
    const error = fromUpstreamResponse(status, text, upstreamRes.headers, [ctx.options.upstream.apiKey]);
    trace?.end(undefined, `upstream answered ${status}`);
    ctx.logger.warn(`gateway: upstream answered ${status}; client gets ${error.code} ${error.status}`);
    return fail(error);
  }
  // The status waits for the first chunk, briefly: an error before any content is then an HTTP status.
  writer?.hold(ctx.headersHoldMs);
  await relayUpstream(ctx, { normalized, upstreamRes, res, sink, writer, signal: controller.signal });
  if (controller.signal.aborted) {
    trace?.end(undefined, 'the client went away');
    return writer?.dispose();
  }
  if (unary) await sendUnary(ctx, res, unary, jsonArray);
}

/** The request's sink: secrets cleared from errors, then usage reported, then the trace told (each if wanted). */
function requestSink(
  ctx: GatewayContext,
  base: GeminiSink,
  normalized: NormalizedRequest,
  trace: UpstreamTrace | undefined,
): GeminiSink {
  const inner = redactingSink(base, ctx.secrets);
  const { onUsage } = ctx.options;
  const reporting = onUsage ? reportingUsageSink(inner, normalized, onUsage, ctx.logger) : inner;
  return trace ? tracingSink(reporting, trace) : reporting;
}

/**
 * Sends the upstream request: its response, a `GatewayError` when it could not be had (504 on a timeout, 503
 * when unreachable), or `undefined` when the client went away meanwhile.
 */
async function openUpstream(
  ctx: GatewayContext,
  normalized: NormalizedRequest,
  signal: AbortSignal,
  trace: UpstreamTrace | undefined,
): Promise<IncomingMessage | GatewayError | undefined> {
  const request = ctx.upstream.buildRequest(normalized);
  try {
    return await postJson(
      joinUrl(ctx.options.upstream.baseUrl, request.path),
      { ...ctx.options.upstream.headers, ...request.headers, ...trace?.headers },
      request.body,
      ctx.agents,
      signal,
      ctx.upstreamTimeouts,
    );
  } catch (error) {
    trace?.end(undefined, `upstream unreachable: ${redactText(ctx, describeError(error))}`);
    if (signal.aborted) return undefined;
    if (error instanceof UpstreamTimeoutError) {
      ctx.logger.warn(`gateway: ${error.message}`);
      return new GatewayError(504, error.message);
    }
    ctx.logger.warn(`gateway: upstream unreachable: ${redactText(ctx, describeError(error))}`);
    return new GatewayError(
      503,
      `upstream unreachable: ${(error as NodeJS.ErrnoException).code ?? 'network error'}`,
    );
  }
}

/** A unary request's one JSON answer, or its error. */
async function sendUnary(
  ctx: GatewayContext,
  res: ServerResponse,
  unary: UnarySink,
  jsonArray: boolean,
): Promise<void> {
  try {
    const response = await unary.result;
    sendJson(res, 200, jsonArray ? [response] : response);
  } catch (error) {
    sendError(
      ctx,
      res,
      error instanceof GatewayError ? error : new GatewayError(500, 'internal gateway error'),
    );
  }
}
