/** Keeps the last lines of a stream (agy's stderr) within a byte budget, and reports each complete line. */
export class StderrTail {
  readonly #maxBytes: number;
  #lines: string[] = [];
  #bytes = 0;
  #partial = '';

  constructor(maxBytes = 8192) {
    this.#maxBytes = maxBytes;
  }

  /** Adds a chunk; returns the complete lines it finished. */
  push(chunk: string): string[] {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    if (this.#partial.length > this.#maxBytes) this.#partial = this.#partial.slice(-this.#maxBytes);
    for (const line of parts) this.#keep(line);
    return parts;
  }

  /** Flushes an unterminated last line. */
  end(): string[] {
    if (!this.#partial) return [];
    const line = this.#partial;
    this.#partial = '';
    this.#keep(line);
    return [line];
  }

  /** The kept tail as text. */
  toString(): string {
    return this.#partial ? [...this.#lines, this.#partial].join('\n') : this.#lines.join('\n');
  }

  #keep(line: string): void {
    const kept = line.length > this.#maxBytes ? line.slice(-this.#maxBytes) : line;
    this.#lines.push(kept);
    this.#bytes += kept.length + 1;
    while (this.#bytes > this.#maxBytes && this.#lines.length > 1) {
      this.#bytes -= this.#lines.shift()!.length + 1;
    }
  }
}
