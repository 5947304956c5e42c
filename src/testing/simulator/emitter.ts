/**
 * Ordered, backpressure-respecting writes to stdout and stderr.
 *
 * Every write waits for the previous one's callback, which Node calls only once the chunk has been handed to
 * the OS, so a slow reader throttles the simulator instead of growing its buffers, a 16 MiB line arrives
 * whole, and `flush()` before `process.exit` loses nothing.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Writes envelopes and raw bytes to stdout, and text to stderr, in call order. */
export class Emitter {
  #stdoutTail: Promise<void> = Promise.resolve();
  #stderrTail: Promise<void> = Promise.resolve();

  readonly #out: NodeJS.WritableStream;
  readonly #err: NodeJS.WritableStream;

  constructor(out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr) {
    this.#out = out;
    this.#err = err;
  }

  /**
   * Writes one JSON object as one line. `JSON.stringify` leaves U+2028/U+0085 raw, as agy's encoder does; `<`,
   * `>` and `&` are escaped as Go's encoder escapes them (`\u003e` in
   * agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script).
   */
  line(value: object): Promise<void> {
    return this.raw(`${goEscape(JSON.stringify(value))}\n`);
  }

  /** Writes text or bytes to stdout verbatim. */
  raw(chunk: string | Uint8Array): Promise<void> {
    const done = this.#stdoutTail.then(() => writeChunk(this.#out, chunk));
    this.#stdoutTail = done.catch(() => {});
    return done;
  }

  /** Writes each chunk separately, yielding to the event loop between them, so readers see split bytes. */
  async rawChunks(chunks: readonly Uint8Array[]): Promise<void> {
    for (const chunk of chunks) {
      await this.raw(chunk);
      await nextTurn();
    }
  }

  /** Writes one line to stderr (a newline is added unless present). */
  stderr(text: string): Promise<void> {
    const chunk = text.endsWith('\n') ? text : `${text}\n`;
    const done = this.#stderrTail.then(() => writeChunk(this.#err, chunk));
    this.#stderrTail = done.catch(() => {});
    return done;
  }

  /** Resolves once everything written so far has reached the OS. */
  async flush(): Promise<void> {
    await Promise.all([this.#stdoutTail, this.#stderrTail]);
  }
}

function writeChunk(stream: NodeJS.WritableStream, chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(chunk, (error?: Error | null) => (error ? reject(error) : resolve()));
  });
}

/** Go's HTML-safe JSON escaping of `<`, `>`, `&` (only ever inside strings in JSON text). */
export function goEscape(json: string): string {
  return json.replace(/[<>&]/g, (c) => (c === '<' ? '\\u003c' : c === '>' ? '\\u003e' : '\\u0026'));
}
