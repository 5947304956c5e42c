/**
 * Splits agy's stdout into lines.
 *
 * - Splits on `\n` (0x0A) only: agy's Go encoder writes U+0085 and U+2028 raw inside strings, so any
 *   "universal newline" splitter would cut JSON in half (docs/reference/stream-json.md#framing).
 * - Works on bytes and decodes whole lines only, so a UTF-8 character split across chunks decodes correctly
 *   (0x0A never occurs inside a multi-byte UTF-8 sequence).
 * - Memory is bounded by `maxLineBytes`: a longer line is dropped as it streams and reported once.
 * - A pending partial line costs about one byte per byte whatever the chunking: it is copied into one
 *   growable buffer (capacity doubles, capped at `maxLineBytes`), not kept as a list of chunk views (a line
 *   trickling in one byte per read used to cost ~86 bytes per pending byte).
 */

/** Default line limit of a child's stdout (agy's stream-json, an ACP agent's JSON-RPC): 64 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** How much of a dropped line's start `onOverflow` gets. */
export const OVERFLOW_HEAD_BYTES = 64;

/** Capacity of the pending buffer when a partial line first arrives. */
const INITIAL_CAPACITY = 4096;
/** A pending buffer larger than this is released after its line, so one huge line does not pin memory. */
const RETAINED_CAPACITY = 64 * 1024;

/** Callbacks and limits for a `LineSplitter`. */
export interface LineSplitterOptions {
  /** Longest line kept, in bytes (without the `\n`). Longer lines are dropped and reported. */
  maxLineBytes: number;
  /** Called with every complete line, decoded as UTF-8. */
  onLine: (line: string) => void;
  /**
   * Called once for each line that exceeded `maxLineBytes`, with its first bytes (at most
   * {@link OVERFLOW_HEAD_BYTES}, decoded): enough to tell which event was lost (`{"event":"result"…`).
   */
  onOverflow: (head: string) => void;
}

export class LineSplitter {
  readonly #opts: LineSplitterOptions;
  /** The partial line so far, in `#buffer[0, #pendingBytes)`; allocated on first use. */
  #buffer: Buffer | undefined;
  #pendingBytes = 0;
  /** True while skipping the rest of an over-long line. */
  #discarding = false;

  constructor(opts: LineSplitterOptions) {
    this.#opts = opts;
  }

  /** Bytes held for the partial line (its buffer's capacity). Internal: for memory tests. */
  get pendingCapacity(): number {
    return this.#buffer?.length ?? 0;
  }

  /** Bytes of the partial line received so far. Internal: for memory tests. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Feeds one chunk of stdout. */
  push(chunk: Buffer): void {
    const max = this.#opts.maxLineBytes;
    const onLine = this.#opts.onLine;
    let start = 0;
    // The common case first: no partial line held, every line in this chunk complete and short enough. Each
    // is decoded straight from the chunk, with no state to consult per line.
    if (this.#pendingBytes === 0 && !this.#discarding) {
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl === -1 || nl - start > max) break;
        onLine(chunk.toString('utf8', start, nl));
        start = nl + 1;
      }
    }
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (start < chunk.length && !this.#discarding) {
          if (this.#pendingBytes + (chunk.length - start) > max) this.#overflow(chunk, start, chunk.length);
          else this.#append(chunk, start, chunk.length);
        }
        return;
      }
      if (this.#discarding) {
        this.#discarding = false;
      } else if (this.#pendingBytes + (nl - start) > max) {
        this.#overflow(chunk, start, nl);
        this.#discarding = false;
      } else if (this.#pendingBytes === 0) {
        onLine(chunk.toString('utf8', start, nl));
      } else {
        this.#append(chunk, start, nl);
        onLine(this.#take());
      }
      start = nl + 1;
    }
  }

  /**
   * Ends the stream. Returns the unterminated last line (a truncated write), if any, so the caller can decide
   * whether it is usable.
   */
  end(): string | undefined {
    if (this.#discarding || this.#pendingBytes === 0) {
      this.#reset();
      return undefined;
    }
    const line = this.#take();
    this.#reset();
    return line;
  }

  /** Copies `chunk[from, to)` after the pending bytes, growing the buffer by doubling. */
  #append(chunk: Buffer, from: number, to: number): void {
    const needed = this.#pendingBytes + (to - from);
    const capacity = this.#buffer?.length ?? 0;
    if (needed > capacity) {
      let next = Math.max(capacity * 2, INITIAL_CAPACITY);
      while (next < needed) next *= 2;
      // Never more than the longest line kept: a longer one overflows before it gets here.
      next = Math.min(next, Math.max(this.#opts.maxLineBytes, needed));
      const grown = Buffer.allocUnsafe(next);
      if (this.#buffer && this.#pendingBytes > 0) this.#buffer.copy(grown, 0, 0, this.#pendingBytes);
      this.#buffer = grown;
    }
    chunk.copy(this.#buffer as Buffer, this.#pendingBytes, from, to);
    this.#pendingBytes = needed;
  }

  /** Decodes and clears the pending line. */
  #take(): string {
    const line = (this.#buffer as Buffer).toString('utf8', 0, this.#pendingBytes);
    this.#pendingBytes = 0;
    if ((this.#buffer?.length ?? 0) > RETAINED_CAPACITY) this.#buffer = undefined;
    return line;
  }

  /** Drops the line whose rest is `chunk[from, to)` after the pending bytes; tells its head. */
  #overflow(chunk: Buffer, from: number, to: number): void {
    const held = Math.min(this.#pendingBytes, OVERFLOW_HEAD_BYTES);
    const head = Buffer.concat([
      this.#buffer?.subarray(0, held) ?? Buffer.alloc(0),
      chunk.subarray(from, Math.min(to, from + OVERFLOW_HEAD_BYTES - held)),
    ]).toString('utf8');
    this.#reset();
    this.#discarding = true;
    this.#opts.onOverflow(head);
  }

  #reset(): void {
    this.#buffer = undefined;
    this.#pendingBytes = 0;
    this.#discarding = false;
  }
}
