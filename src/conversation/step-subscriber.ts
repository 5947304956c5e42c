/** The queue behind one `Conversation.steps()` iterator. */
import type { Step } from '../model/step.js';

/**
 * One `steps()` iterator: its queue (the oldest steps dropped past `limit`), and its own `return()`, which
 * unsubscribes even if it was never iterated.
 */
export class StepSubscriber implements AsyncIterableIterator<Step> {
  readonly #queue: Step[] = [];
  readonly #limit: number;
  readonly #remove: () => void;
  #ended = false;
  #wake: (() => void) | undefined;

  /**
   * @param limit Most steps kept waiting for the reader (`Infinity`: no limit).
   * @param remove Unsubscribes it from the conversation.
   */
  constructor(limit: number, remove: () => void) {
    this.#limit = limit;
    this.#remove = remove;
  }

  /** Queues a step for the reader. */
  push(step: Step): void {
    this.#queue.push(step);
    if (this.#queue.length > this.#limit) this.#queue.shift();
    this.#wake?.();
  }

  /** Ends the iteration once the queued steps are read. */
  end(): void {
    this.#ended = true;
    this.#remove();
    this.#wake?.();
  }

  /** The next step, waiting for one; done once ended and drained. */
  async next(): Promise<IteratorResult<Step, undefined>> {
    for (;;) {
      const step = this.#queue.shift();
      if (step !== undefined) return { done: false, value: step };
      if (this.#ended) return { done: true, value: undefined };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  /** Ends it now, dropping what is queued. */
  async return(): Promise<IteratorResult<Step, undefined>> {
    this.#queue.length = 0;
    this.end();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
