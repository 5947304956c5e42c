/**
 * An append-only buffer that any number of readers can iterate independently. Each cursor starts at the
 * beginning, so a consumer that starts late still sees everything; readers never steal items from each other.
 */
export class ReplayBuffer<T> {
  readonly #items: T[] = [];
  #closed = false;
  #waiters: Array<() => void> = [];

  /** Appends an item and wakes waiting cursors. Ignored after `close()`. */
  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#wake();
  }

  /** Ends the buffer: cursors finish once they have read every item. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake();
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Everything buffered so far. */
  get items(): readonly T[] {
    return this.#items;
  }

  /** A new independent cursor from the first item. */
  async *cursor(): AsyncGenerator<T, void, undefined> {
    let i = 0;
    for (;;) {
      while (i < this.#items.length) yield this.#items[i++]!;
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #wake(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
