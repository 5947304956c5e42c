/**
 * The SSE output (docs/reference/gemini-api.md#sse-framing, docs/reference/gemini-clients.md#sse-parsers):
 * exactly `data: <one-line JSON>\r\n\r\n` per chunk — no comments, no `event:`/`id:` lines, no `[DONE]` —
 * because Gemini CLI's bundled SDK 1.30 parser loses the whole stream on anything else. No compression and
 * Nagle off, so each delta leaves as soon as it is written; the headers leave with the first chunk (or alone
 * when the status hold runs out). While the
 * upstream is silent, an empty-parts model chunk goes out every `keepAliveMs` (Gemini CLI's body timeout is
 * 300 s; verified harmless in `gemini-cli-0.61/cli-stream-json-keepalive.txt`).
 *
 * The status is held: `200` and the headers go out with the first chunk, or when a hold set with `hold(ms)`
 * runs out, whichever comes first. A failure before that is a real HTTP status (`fail`), which is what clients
 * decide retries on: an upstream error that arrives before any content, answered in-stream after a `200`, is
 * retried by Gemini CLI whatever its status (docs/reference/gateway-translation.md#errors-upstream-to-gemini).
 */
import type { ServerResponse } from 'node:http';
import type { GatewayError } from './errors.js';
import type { GeminiChunk } from './gemini-types.js';
import { sendJson } from './json-response.js';

/** The keep-alive chunk: a valid, empty model turn the client treats as a no-op. */
export const KEEP_ALIVE_CHUNK: GeminiChunk = {
  candidates: [{ content: { role: 'model', parts: [] }, index: 0 }],
};

/**
 * What `JSON.stringify` escapes in a string (quote, backslash, control characters, lone surrogates: any
 * surrogate sends the string the long way) and what {@link sseJson} escapes on top (U+2028/U+2029).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these control characters.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/**
 * A string as JSON, safe for an SSE line. `JSON.stringify` escapes CR and LF but not U+2028/U+2029, which the
 * SDK 1.30 splitter's `.` does not match: one such character in a text delta would lose the whole stream in
 * Gemini CLI. Escaped here; the `includes` checks cost less than a replace that finds nothing.
 */
export function sseJson(value: unknown): string {
  // A delta with nothing to escape (most of them) is its own JSON body: no stringify, no scans after it.
  if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) return `"${value}"`;
  const json = JSON.stringify(value);
  return json.includes('\u2028') || json.includes('\u2029')
    ? json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
    : json;
}

/** Frames one chunk: `data: <JSON>\r\n\r\n`. */
export function frameSse(payload: unknown): string {
  return `data: ${sseJson(payload)}\r\n\r\n`;
}

/**
 * Most chunks one write of a batch carries after the response's first: few enough writes for the client's
 * per-write cost (see `batch`), and pieces a client reads one at a time rather than one read's worth at once.
 */
const BATCH_FRAMES = 64;
/**
 * Chunks of the response's first write: a short answer (a few chunks in one read) stays one system call with
 * its headers, and a long first read has its first token on the way after a few chunks' translation.
 */
const FIRST_WRITE_FRAMES = 4;

/** Writes one SSE response. */
export class SseWriter {
  #timer: NodeJS.Timeout | undefined;
  #holdTimer: NodeJS.Timeout | undefined;
  /** When the hold runs out (`performance.now()` ms), while one is set. */
  #holdUntil = Number.POSITIVE_INFINITY;
  #started = false;
  #ended = false;
  /** Frames written during a batch, sent as one write by `flush`. */
  #pending: string[] | undefined;
  /** Whether a chunk has been written (the response's first write takes fewer chunks). */
  #wroteFrame = false;
  /** Whether the open batch has taken a frame since it began (its flush then restarts the keep-alive clock). */
  #batchWrote = false;

  readonly #res: ServerResponse;
  readonly #keepAliveMs: number;

  constructor(res: ServerResponse, keepAliveMs: number) {
    this.#res = res;
    this.#keepAliveMs = keepAliveMs;
  }

  /** Whether the 200 and headers have been sent. */
  get committed(): boolean {
    return this.#started;
  }

  /**
   * Commits at the latest `ms` from now, unless a chunk or a failure comes first; an earlier hold already set
   * stays. `0` commits at once.
   */
  hold(ms: number): void {
    if (this.#started || this.#ended) return;
    if (ms <= 0) {
      this.#commit(true);
      return;
    }
    const until = performance.now() + ms;
    if (until >= this.#holdUntil) return;
    this.#holdUntil = until;
    if (this.#holdTimer) clearTimeout(this.#holdTimer);
    this.#holdTimer = setTimeout(() => {
      this.#holdTimer = undefined;
      this.#commit(true);
    }, ms).unref();
  }

  /**
   * Commits the 200 and starts the keep-alive clock. Headers alone are flushed only when nothing follows them
   * at once (the hold ran out, or `hold(0)`). Otherwise the chunk or the end written right after carries them: Node sends a
   * response's writes of one tick together (it corks the socket until the next tick), but `flushHeaders` writes
   * at once, so a response cost one system call more (strace: one `write` per request fewer).
   */
  #commit(flushHeaders: boolean): void {
    if (this.#started || this.#ended || this.#res.destroyed) return;
    this.#started = true;
    this.#release();
    this.#res.socket?.setNoDelay(true);
    this.#res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    if (flushHeaders) this.#res.flushHeaders();
    this.#arm();
  }

  /** Writes one chunk (committing first if needed). */
  write(chunk: GeminiChunk): void {
    this.writeJson(sseJson(chunk));
  }

  /** Writes one chunk already serialized by {@link sseJson}'s rules (committing first if needed). */
  writeJson(json: string): void {
    if (this.#ended || this.#res.destroyed) return;
    this.#commit(false);
    const frame = `data: ${json}\r\n\r\n`;
    const pending = this.#pending;
    if (pending) {
      pending.push(frame);
      this.#batchWrote = true;
      if (pending.length >= (this.#wroteFrame ? BATCH_FRAMES : FIRST_WRITE_FRAMES)) {
        const first = !this.#wroteFrame;
        this.#res.write(pending.join(''));
        pending.length = 0;
        this.#wroteFrame = true;
        // Node corks a response's socket on a write until the next tick, so the first token would wait for the
        // whole read's translation (the 343-event xAI read: 0.6 ms more to the first byte): it leaves now, and
        // the client starts while the rest is translated. Later batches leave together at the end of the read,
        // in one system call (uncorking each cost 0.1–0.25 ms more to the last byte on that read).
        if (first) this.#res.uncork();
      }
    } else {
      this.#res.write(frame);
      this.#wroteFrame = true;
      this.#arm();
    }
  }

  /**
   * Collects the frames written from now until `flush()` into few writes (at most FIRST_WRITE_FRAMES for the
   * response's first, which leaves at once, BATCH_FRAMES after): the chunks one upstream read yields leave
   * together. Each `res.write` is its own HTTP chunk, and a client pays per chunk (undici makes each a stream
   * chunk of its own: on the xAI recording, 344 of them cost `@google/genai` more CPU than the whole
   * translation). Nothing waits for a timer: the caller flushes before it returns to the event loop.
   */
  batch(): void {
    this.#pending ??= [];
  }

  /** Sends what the batch collected, as one write, and ends the batch. */
  flush(): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (!pending || this.#ended || this.#res.destroyed) return;
    // A batch restarts the keep-alive clock once, here, not on every frame: the flush follows its frames in the
    // same turn of the event loop, and a refresh per frame (a clock read and a timer re-insert) was about 3% of
    // the gateway's CPU on the xAI recording. Frames a full batch already sent count too, hence before the check.
    if (this.#batchWrote) this.#arm();
    this.#batchWrote = false;
    if (pending.length === 0) return;
    this.#res.write(pending.length === 1 ? pending[0] : pending.join(''));
    this.#wroteFrame = true;
  }

  /**
   * Ends the response with `error`. Still uncommitted, that is the error's own HTTP status and JSON body; once
   * the 200 is out, an in-stream error event (docs/reference/gateway-translation.md#errors-upstream-to-gemini):
   * the client sees it, never a silent STOP, and nothing follows it.
   */
  fail(error: GatewayError): void {
    if (this.#ended || this.#res.destroyed) {
      this.dispose();
      return;
    }
    if (!this.#started) {
      this.dispose();
      sendJson(this.#res, error.code, error.toBody());
      return;
    }
    this.flush();
    this.#res.write(frameSse(error.toBody()));
    this.end();
  }

  /** Ends the body (committing first if needed: an empty stream is still a stream). */
  end(): void {
    if (this.#ended) return;
    this.#commit(false);
    this.flush();
    this.#ended = true;
    this.#disarm();
    this.#res.end();
  }

  /** Stops the keep-alive clock and the hold (the client went away, or the response is answered otherwise). */
  dispose(): void {
    this.#ended = true;
    this.#disarm();
    this.#release();
  }

  #release(): void {
    if (this.#holdTimer) clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
    this.#holdUntil = Number.POSITIVE_INFINITY;
  }

  /** (Re)starts the keep-alive clock: one timer per response, refreshed on each write rather than replaced. */
  #arm(): void {
    if (this.#keepAliveMs <= 0 || this.#ended) return;
    if (this.#timer) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      if (this.#ended || this.#res.destroyed) return;
      this.flush();
      this.#res.write(frameSse(KEEP_ALIVE_CHUNK));
      this.#timer?.refresh();
    }, this.#keepAliveMs);
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
