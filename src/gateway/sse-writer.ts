/**
 * The SSE output (docs/reference/gemini-api.md#sse-framing, docs/reference/gemini-clients.md#sse-parsers):
 * exactly `data: <one-line JSON>\r\n\r\n` per chunk — no comments, no `event:`/`id:` lines, no `[DONE]` —
 * because Gemini CLI's bundled SDK 1.30 parser loses the whole stream on anything else. Headers are flushed
 * at once with no compression and Nagle off, so each delta leaves as soon as it is written. While the
 * upstream is silent, an empty-parts model chunk goes out every `keepAliveMs` (Gemini CLI's body timeout is
 * 300 s; verified harmless in `gemini-cli-0.61/cli-stream-json-keepalive.txt`).
 */
import type { ServerResponse } from 'node:http';
import type { GatewayError } from './errors.js';
import type { GeminiChunk } from './gemini-types.js';

/** The keep-alive chunk: a valid, empty model turn the client treats as a no-op. */
export const KEEP_ALIVE_CHUNK: GeminiChunk = {
  candidates: [{ content: { role: 'model', parts: [] }, index: 0 }],
};

/**
 * Frames one chunk. `JSON.stringify` escapes CR and LF but not U+2028/U+2029, which the SDK 1.30 splitter's `.`
 * does not match: one such character in a text delta would lose the whole stream in Gemini CLI. Escaped here.
 */
export function frameSse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}\r\n\r\n`;
}

/** Writes one SSE response. */
export class SseWriter {
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly keepAliveMs: number,
  ) {}

  /** Whether the 200 and headers have been sent. */
  get committed(): boolean {
    return this.started;
  }

  /** Sends the 200 and the headers now, and starts the keep-alive clock. */
  begin(): void {
    if (this.started || this.ended || this.res.destroyed) return;
    this.started = true;
    this.res.socket?.setNoDelay(true);
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    this.res.flushHeaders();
    this.arm();
  }

  /** Writes one chunk (committing first if needed). */
  write(chunk: GeminiChunk): void {
    if (this.ended || this.res.destroyed) return;
    this.begin();
    this.res.write(frameSse(chunk));
    this.arm();
  }

  /**
   * Ends the stream with an in-stream error event
   * (docs/reference/gateway-translation.md#errors-upstream-to-gemini): the client sees it, never a silent
   * STOP.
   */
  fail(error: GatewayError, trailer?: GeminiChunk): void {
    if (this.ended || this.res.destroyed) {
      this.dispose();
      return;
    }
    this.begin();
    this.res.write(frameSse(error.toBody()));
    // A closing chunk after the error, for clients that do not read in-stream errors (see StreamingSink.fail).
    if (trailer) this.res.write(frameSse(trailer));
    this.end();
  }

  /** Ends the body. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.disarm();
    this.res.end();
  }

  /** Stops the keep-alive clock (the client went away). */
  dispose(): void {
    this.ended = true;
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    if (this.keepAliveMs <= 0 || this.ended) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.ended || this.res.destroyed) return;
      this.res.write(frameSse(KEEP_ALIVE_CHUNK));
      this.arm();
    }, this.keepAliveMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
