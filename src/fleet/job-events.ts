/** A job handle's progress events: followed from before the job is written, read once, in order. */

import type { Queue } from 'bullmq';
import { type JobListener, whenFailedForGood } from './job-listeners.js';
import type { FleetEvent, FleetJob, FleetResult } from './types.js';

/** The buffered events of one job, ending when it completes or fails for good. */
export class JobEventStream implements JobListener {
  readonly #queue: Queue<FleetJob, FleetResult>;
  readonly #jobId: string;
  readonly #buffer: FleetEvent[] = [];
  #end: { error?: Error } | undefined;
  #wake: (() => void) | undefined;
  #stop: () => void = () => {};
  #iterator: AsyncIterableIterator<FleetEvent> | undefined;

  /** Follows `jobId` of `queue`; `listen` (the client's `JobListeners.listen`) is called at once. */
  constructor(
    queue: Queue<FleetJob, FleetResult>,
    jobId: string,
    listen: (jobId: string, listener: JobListener) => () => void,
  ) {
    this.#queue = queue;
    this.#jobId = jobId;
    this.#stop = listen(jobId, this);
  }

  /** Stops following (the job could not be added, or its reader is done). */
  stop(): void {
    this.#stop();
  }

  /** The events, one reader: every call returns the same iterator. */
  events(): AsyncIterableIterator<FleetEvent> {
    this.#iterator ??= this.#iterate();
    return this.#iterator;
  }

  /** Buffers a progress event for the reader. */
  progress(event: FleetEvent): void {
    this.#buffer.push(event);
    this.#wake?.();
  }

  /** The job completed: the events end after the buffered ones. */
  completed(): void {
    this.#finish({});
  }

  /** An attempt failed: the events end with the error if the job failed for good. */
  failed(reason: string): void {
    // A failed attempt that will be retried is not the end; only a job failed for good is.
    whenFailedForGood(
      this.#queue,
      this.#jobId,
      () => this.#finish({ error: new Error(`fleet job ${this.#jobId} failed: ${reason}`) }),
      (error) => this.#finish({ error }),
    );
  }

  #finish(end: { error?: Error }): void {
    this.#end = end;
    this.#stop();
    this.#wake?.();
  }

  async *#iterate(): AsyncGenerator<FleetEvent, void, undefined> {
    try {
      for (;;) {
        while (this.#buffer.length) yield this.#buffer.shift()!;
        if (this.#end) {
          if (this.#end.error) throw this.#end.error;
          return;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
      }
    } finally {
      this.#stop();
    }
  }
}
