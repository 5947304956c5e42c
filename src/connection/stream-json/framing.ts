/**
 * Splits agy's stdout into lines.
 *
 * - Splits on `\n` (0x0A) only: agy's Go encoder writes U+0085 and U+2028 raw inside strings, so any
 *   "universal newline" splitter would cut JSON in half (agy-cli.md §D.3 "Framing caveat").
 * - Works on bytes and decodes whole lines only, so a UTF-8 character split across chunks decodes correctly
 *   (0x0A never occurs inside a multi-byte UTF-8 sequence).
 * - Memory is bounded by `maxLineBytes`: a longer line is dropped as it streams and reported once.
 */

/** Callbacks and limits for a `LineSplitter`. */
export interface LineSplitterOptions {
  /** Longest line kept, in bytes (without the `\n`). Longer lines are dropped and reported. */
  maxLineBytes: number;
  /** Called with every complete line, decoded as UTF-8. */
  onLine: (line: string) => void;
  /** Called once for each line that exceeded `maxLineBytes`. */
  onOverflow: () => void;
}

export class LineSplitter {
  readonly #opts: LineSplitterOptions;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** True while skipping the rest of an over-long line. */
  #discarding = false;

  constructor(opts: LineSplitterOptions) {
    this.#opts = opts;
  }

  /** Feeds one chunk of stdout. */
  push(chunk: Buffer): void {
    const max = this.#opts.maxLineBytes;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (start < chunk.length && !this.#discarding) {
          const rest = chunk.subarray(start);
          if (this.#pendingBytes + rest.length > max) this.#overflow();
          else {
            this.#pending.push(rest);
            this.#pendingBytes += rest.length;
          }
        }
        return;
      }
      if (this.#discarding) {
        this.#discarding = false;
      } else if (this.#pendingBytes + (nl - start) > max) {
        this.#overflow();
        this.#discarding = false;
      } else if (this.#pending.length === 0) {
        this.#opts.onLine(chunk.toString('utf8', start, nl));
      } else {
        this.#pending.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.#pending, this.#pendingBytes + (nl - start)).toString('utf8');
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#opts.onLine(line);
      }
      start = nl + 1;
    }
  }

  /**
   * Ends the stream. Returns the unterminated last line (a truncated write), if any, so the caller can decide
   * whether it is usable.
   */
  end(): string | undefined {
    if (this.#discarding || this.#pending.length === 0) {
      this.#reset();
      return undefined;
    }
    const line = Buffer.concat(this.#pending, this.#pendingBytes).toString('utf8');
    this.#reset();
    return line;
  }

  #overflow(): void {
    this.#reset();
    this.#discarding = true;
    this.#opts.onOverflow();
  }

  #reset(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#discarding = false;
  }
}
