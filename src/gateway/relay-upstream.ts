/**
 * An upstream's `200` response body, relayed to the client as it arrives: SSE decoded, translated into the
 * request's sink, written one HTTP chunk per upstream read, with the upstream's silence bounded and the upstream
 * paused while a slow client drains. Resolves when the body ended, broke or was cut short; never rejects.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../logger.js';
import { type GatewayContext, redactText } from './context.js';
import { GatewayError, prematureEnd } from './errors.js';
import type { GeminiSink } from './gemini-sink.js';
import type { NormalizedRequest } from './normalize-request.js';
import type { SseWriter } from './sse-writer.js';
import { UpstreamTimeoutError } from './upstream/http-client.js';
import { createSseDecoder } from './upstream/sse-parse.js';

/** One request's relay: where the body comes from and where its translation goes. */
export interface UpstreamRelay {
  /** The normalized request the upstream answers. */
  normalized: NormalizedRequest;
  /** The upstream's response (status 2xx). */
  upstreamRes: IncomingMessage;
  /** The client's response. */
  res: ServerResponse;
  /** Where translated parts go (already wrapped for redaction, usage and tracing). */
  sink: GeminiSink;
  /** The streaming writer, or `undefined` for a unary request. */
  writer: SseWriter | undefined;
  /** Aborted when the client went away. */
  signal: AbortSignal;
}

/** Relays `relay.upstreamRes` into `relay.sink` (see the module comment). */
export function relayUpstream(ctx: GatewayContext, relay: UpstreamRelay): Promise<void> {
  const { normalized, upstreamRes, res, sink, writer, signal } = relay;
  const translator = ctx.upstream.createTranslator(normalized, sink, (message) =>
    ctx.logger.warn(`gateway: ${redactText(ctx, message)} (read as absent)`),
  );
  const decoder = createSseDecoder((event, data) => translator.event(event, data), {
    maxLineChars: ctx.maxUpstreamEventChars,
    maxEventChars: ctx.maxUpstreamEventChars,
  });
  const translationFailed = translationFailure(ctx, sink);
  return new Promise<void>((resolve) => {
    let finished = false;
    const finish = (broken?: string): void => {
      if (finished) return;
      finished = true;
      idle.clear();
      if (broken && !sink.done) sink.fail(prematureEnd(broken));
      else {
        try {
          decoder.end();
          translator.end();
        } catch (error) {
          translationFailed(error);
        }
      }
      resolve();
    };
    // The upstream's silence is bounded: the gateway's own keep-alives must not hide a stall.
    const idle = idleWatch(ctx.upstreamIdleMs, () => {
      const error = new UpstreamTimeoutError('idle', ctx.upstreamIdleMs);
      ctx.logger.warn(`gateway: ${error.message}`);
      if (!sink.done) sink.fail(new GatewayError(504, error.message));
      upstreamRes.destroy();
      finish();
    });
    idle.arm();
    upstreamRes.setEncoding('utf8');
    upstreamRes.on('data', (chunk: string) => {
      if (sink.done) return; // draining what follows the end marker (e.g. `[DONE]`)
      idle.arm();
      // The chunks this upstream read yields leave as one write (one HTTP chunk), not one per event; text is
      // not held back past the read it arrived in.
      writer?.batch();
      try {
        decoder.feed(chunk);
      } catch (error) {
        translationFailed(error);
      } finally {
        writer?.flush();
      }
      if (sink.done) {
        // Done: let the rest drain so the keep-alive connection is reused; after a failure, drop it.
        if (sink.failed) upstreamRes.destroy();
        finish();
      } else if (res.writableNeedDrain) {
        // A slow client: stop reading the upstream until our socket drains, instead of buffering without bound.
        upstreamRes.pause();
        res.once('drain', () => upstreamRes.resume());
      }
    });
    upstreamRes.on('end', () => finish());
    upstreamRes.on('aborted', () => finish('upstream connection dropped'));
    upstreamRes.on('error', () => finish(signal.aborted ? undefined : 'upstream connection error'));
    upstreamRes.on('close', () =>
      finish(sink.done || signal.aborted ? undefined : 'upstream connection closed'),
    );
  });
}

/** A failure while decoding or translating: typed upstream errors as they are, anything else a 500. */
function translationFailure(ctx: GatewayContext, sink: GeminiSink): (error: unknown) => void {
  return (error) => {
    if (error instanceof GatewayError) {
      ctx.logger.warn(`gateway: ${redactText(ctx, error.message)}`);
      if (!sink.done) sink.fail(error);
      return;
    }
    // A translator bug must not take the process down; the client sees a retryable error.
    ctx.logger.error(
      `gateway: translating the upstream stream failed: ${redactText(ctx, describeError(error))}`,
    );
    if (!sink.done)
      sink.fail(new GatewayError(500, 'internal gateway error while translating the upstream stream'));
  };
}

/** A silence timer: `arm()` starts or restarts it (one timer per request, refreshed, not replaced); `0` disables. */
function idleWatch(ms: number, onIdle: () => void): { arm(): void; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    arm() {
      if (ms <= 0) return;
      if (timer) {
        timer.refresh();
        return;
      }
      timer = setTimeout(onIdle, ms);
    },
    clear() {
      clearTimeout(timer);
    },
  };
}
