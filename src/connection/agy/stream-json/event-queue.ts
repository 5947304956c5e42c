/**
 * A single-consumer async queue: the producer pushes from the process's pipe callbacks (synchronously, in order),
 * the consumer reads with `for await`. What is pushed before the consumer asks waits in an array; what is pushed
 * while it waits resolves its pending `next()` at once. `end()` lets it drain what is queued, then finishes.
 */
/** A single-consumer async queue (see the file's comment). */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  #items: T[] = [];
  /** Index of the next item to hand out (the array is compacted when drained, not shifted per item). */
  #head = 0;
  #waiting: ((result: IteratorResult<T>) => void) | undefined;
  #ended = false;

  /** Adds an item; ignored once the queue has ended (a late timer after the process's exit). */
  push(item: T): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting({ value: item, done: false });
    } else this.#items.push(item);
  }

  /** No more items: the consumer finishes after the queued ones. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  /** True once `end()` was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The next queued item; waits for a push when none is queued; done once ended and drained. */
  next(): Promise<IteratorResult<T>> {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head++] as T;
      if (this.#head === this.#items.length) {
        this.#items = [];
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** The queue is its own iterator (single consumer). */
  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
