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
  /** The last stdout write queued (settled or not): the next one waits for it. */
  #stdoutLast: Promise<void> = Promise.resolve();
  /** Stdout writes queued (waiting or written) whose callback has not come yet. */
  #stdoutPending = 0;
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

  /**
   * Writes text or bytes to stdout verbatim. A line streamed after the one before has reached the OS (the usual
   * case: the turn awaits each) is written at once, one promise in all; otherwise it waits its turn.
   */
  raw(chunk: string | Uint8Array): Promise<void> {
    const write = (): Promise<void> => this.#writeOut(chunk);
    // A failed write does not stop the ones after it: its caller gets the error, the next line is still tried.
    const done = this.#stdoutPending === 0 ? write() : this.#stdoutLast.then(write, write);
    this.#stdoutPending++;
    this.#stdoutLast = done;
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
    await Promise.all([this.#stdoutLast.catch(() => {}), this.#stderrTail]);
  }

  #writeOut(chunk: string | Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#out.write(chunk, (error?: Error | null) => {
        this.#stdoutPending--;
        if (error) reject(error);
        else resolve();
      });
    });
  }
}

function writeChunk(stream: NodeJS.WritableStream, chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(chunk, (error?: Error | null) => (error ? reject(error) : resolve()));
  });
}

const GO_ESCAPED = /[<>&]/;

/** Go's HTML-safe JSON escaping of `<`, `>`, `&` (only ever inside strings in JSON text). */
export function goEscape(json: string): string {
  // Most lines have none of the three: testing first leaves them unreplaced (and uncopied).
  if (!GO_ESCAPED.test(json)) return json;
  return json.replace(/[<>&]/g, (c) => (c === '<' ? '\\u003c' : c === '>' ? '\\u003e' : '\\u0026'));
}
