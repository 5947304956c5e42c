/**
 * Ordered, backpressure-respecting writes to stdout and stderr.
 *
 * Every write waits for the previous one's callback, which Node calls only once the chunk has been handed to
 * the OS, so a slow reader throttles the simulator instead of growing its buffers, a 16 MiB line arrives
 * whole, and `flush()` before `process.exit` loses nothing.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * One stream's writes, in call order, each after the one before has reached the OS. A write made when none is
 * pending (the usual case: a turn awaits each line) goes out at once, one promise in all; otherwise it waits its
 * turn. A failed write does not stop the ones after it: its caller gets the error, the next chunk is still tried.
 */
class OrderedWriter {
  readonly #stream: NodeJS.WritableStream;
  /** The last write queued (settled or not): the next one waits for it. */
  #last: Promise<void> = Promise.resolve();
  /** Writes queued (waiting or written) whose callback has not come yet. */
  #pending = 0;

  constructor(stream: NodeJS.WritableStream) {
    this.#stream = stream;
  }

  write(chunk: string | Uint8Array): Promise<void> {
    const write = (): Promise<void> =>
      new Promise((resolve, reject) => {
        this.#stream.write(chunk, (error?: Error | null) => {
          this.#pending--;
          if (error) reject(error);
          else resolve();
        });
      });
    const done = this.#pending === 0 ? write() : this.#last.then(write, write);
    this.#pending++;
    this.#last = done;
    return done;
  }

  /** Settles once every write queued so far has (failed writes included). */
  settled(): Promise<void> {
    return this.#last.catch(() => {});
  }
}

/** Writes envelopes and raw bytes to stdout, and text to stderr, in call order. */
export class Emitter {
  readonly #out: OrderedWriter;
  readonly #err: OrderedWriter;

  constructor(out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr) {
    this.#out = new OrderedWriter(out);
    this.#err = new OrderedWriter(err);
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
    return this.#out.write(chunk);
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
    return this.#err.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Resolves once everything written so far has reached the OS. */
  async flush(): Promise<void> {
    await Promise.all([this.#out.settled(), this.#err.settled()]);
  }
}

const GO_ESCAPED = /[<>&]/;

/** Go's HTML-safe JSON escaping of `<`, `>`, `&` (only ever inside strings in JSON text). */
export function goEscape(json: string): string {
  // Most lines have none of the three: testing first leaves them unreplaced (and uncopied).
  if (!GO_ESCAPED.test(json)) return json;
  return json.replace(/[<>&]/g, (c) => (c === '<' ? '\\u003c' : c === '>' ? '\\u003e' : '\\u0026'));
}
