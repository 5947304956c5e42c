/**
 * An append-only buffer that any number of readers can iterate independently. Each cursor starts at the
 * beginning, so a consumer that starts late still sees everything; readers never steal items from each other.
 *
 * Cursors are plain iterator objects, not async generators: a waiting `next()` is settled straight from
 * `push()`, one promise per item. An async generator over this buffer (and another one filtering it) cost
 * about six promise reactions per item between the pipe and the consumer, most of the host's part of an
 * event's latency (bench/latency.mjs).
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
  cursor(): AsyncGenerator<T, void, undefined> {
    return new Cursor<T, T>(
      this,
      (item) => item,
      (wake) => this.#waiters.push(wake),
    );
  }

  /**
   * A new independent cursor from the first item over what `pick` returns for each item; an item for which it
   * returns `undefined` is skipped.
   */
  select<U>(pick: (item: T) => U | undefined): AsyncGenerator<U, void, undefined> {
    return new Cursor<T, U>(this, pick, (wake) => this.#waiters.push(wake));
  }

  #wake(): void {
    const waiters = this.#waiters;
    const count = waiters.length;
    if (count === 0) return;
    // One waiting cursor (a plain `for await`) is the common case: take it off the list in place instead
    // of allocating a new list per item. A cursor that waits again from its wake-up pushes onto the emptied list.
    if (count === 1) {
      (waiters.pop() as () => void)();
      return;
    }
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

type Settle<U> = (result: IteratorResult<U, void>) => void;

const DONE: IteratorReturnResult<void> = Object.freeze({ done: true, value: undefined });

/**
 * One reader's position in a {@link ReplayBuffer}, with async-generator semantics: `next()` calls are answered
 * in call order, `return()` ends it (pending calls get `done`), `throw()` ends it and rejects.
 */
class Cursor<T, U> implements AsyncGenerator<U, void, undefined> {
  readonly #buffer: ReplayBuffer<T>;
  readonly #pick: (item: T) => U | undefined;
  readonly #subscribe: (wake: () => void) => void;
  #index = 0;
  #finished = false;
  /** `next()` calls not answered yet, oldest first. */
  #pending: Settle<U>[] = [];
  #subscribed = false;
  readonly #wake = (): void => {
    this.#subscribed = false;
    this.#drain();
  };

  constructor(
    buffer: ReplayBuffer<T>,
    pick: (item: T) => U | undefined,
    subscribe: (wake: () => void) => void,
  ) {
    this.#buffer = buffer;
    this.#pick = pick;
    this.#subscribe = subscribe;
  }

  next(): Promise<IteratorResult<U, void>> {
    if (this.#pending.length === 0) {
      const ready = this.#poll();
      if (ready !== undefined) return Promise.resolve(ready);
    }
    return new Promise<IteratorResult<U, void>>((resolve) => {
      this.#pending.push(resolve);
      this.#await();
    });
  }

  return(): Promise<IteratorResult<U, void>> {
    this.#finish();
    return Promise.resolve(DONE);
  }

  throw(error: unknown): Promise<IteratorResult<U, void>> {
    this.#finish();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next result if one is available now: an item, or `done` once the buffer is closed and read. */
  #poll(): IteratorResult<U, void> | undefined {
    if (this.#finished) return DONE;
    const items = this.#buffer.items;
    while (this.#index < items.length) {
      const value = this.#pick(items[this.#index++] as T);
      if (value !== undefined) return { done: false, value };
    }
    if (this.#buffer.closed) {
      this.#finished = true;
      return DONE;
    }
    return undefined;
  }

  /** Answers pending calls while results are available, then waits for the buffer again if any remain. */
  #drain(): void {
    while (this.#pending.length > 0) {
      const ready = this.#poll();
      if (ready === undefined) break;
      (this.#pending.shift() as Settle<U>)(ready);
    }
    this.#await();
  }

  #await(): void {
    if (this.#pending.length === 0 || this.#subscribed) return;
    this.#subscribed = true;
    this.#subscribe(this.#wake);
  }

  #finish(): void {
    this.#finished = true;
    for (const settle of this.#pending.splice(0)) settle(DONE);
  }
}
