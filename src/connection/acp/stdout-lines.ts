/**
 * The agent's stdout as the ACP SDK's input stream, one JSON-RPC message per line. A line that is not a JSON
 * object (a stray `console.log` of the agent, a banner) is logged and dropped here, before the SDK sees it, so
 * it neither reaches the protocol nor goes unnoticed. Lines are split on bytes, so a UTF-8 character split
 * across chunks is safe.
 */
import type { Logger } from '../../logger.js';

/** Bytes of a dropped line shown in the log. */
const SHOWN = 200;

/** A byte stream of whole JSON lines fed from raw stdout chunks. */
export class StdoutLines {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #pending: Buffer = Buffer.alloc(0);
  #ended = false;
  readonly #logger: Logger;
  /** Lines dropped because they were not JSON objects. */
  dropped = 0;
  /** Called for every line passed on (a sign of life; the line, for a recorder). */
  onLine: ((text: string) => void) | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
    });
  }

  /** Takes one raw chunk. */
  push(chunk: Buffer): void {
    if (this.#ended) return;
    let data = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
      this.#line(data.subarray(0, nl));
      data = data.subarray(nl + 1);
    }
    this.#pending = Buffer.from(data);
  }

  #line(line: Buffer): void {
    const text = line.toString('utf8').trim();
    if (text === '') return;
    if (!text.startsWith('{')) {
      this.dropped++;
      this.#logger.warn(`ACP agent wrote a non-JSON line on stdout (dropped): ${text.slice(0, SHOWN)}`);
      return;
    }
    this.onLine?.(text);
    this.#controller.enqueue(new Uint8Array(Buffer.from(`${text}\n`, 'utf8')));
  }

  /** End of stdout: a last unterminated line is delivered, then the stream closes. */
  end(): void {
    if (this.#ended) return;
    if (this.#pending.length) this.#line(this.#pending);
    this.#pending = Buffer.alloc(0);
    this.#ended = true;
    try {
      this.#controller.close();
    } catch {
      // Already closed by the reader.
    }
  }
}
