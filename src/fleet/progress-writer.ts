/**
 * A job's progress events, written to BullMQ one after another (so a subscriber sees them in order), with
 * streamed text batched: one `text` event per `batchMs` (or per 8 KiB), not one per delta.
 */

import type { FleetEvent } from './types.js';

/** The part of a BullMQ job the writer needs. */
export interface ProgressSink {
  updateProgress(progress: FleetEvent): Promise<void>;
}

/** Text batched past this many characters is written at once. */
const MAX_BATCH_CHARS = 8192;

/** Distributes `Omit` over a union, so each event keeps its own fields. */
type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;

/** Writes one job's progress events in order. */
export class ProgressWriter {
  readonly #job: ProgressSink;
  readonly #batchMs: number;
  readonly #onError: (err: unknown) => void;
  #seq = 0;
  #chain: Promise<void> = Promise.resolve();
  #text = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(job: ProgressSink, batchMs: number, onError: (err: unknown) => void) {
    this.#job = job;
    this.#batchMs = batchMs;
    this.#onError = onError;
  }

  /** Adds streamed text to the current batch. */
  text(delta: string): void {
    this.#text += delta;
    if (this.#text.length >= MAX_BATCH_CHARS) this.#flushText();
    else
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#flushText();
      }, this.#batchMs);
  }

  /** Writes an event (after any batched text). */
  event(event: WithoutSeq<FleetEvent>): void {
    this.#flushText();
    this.#write({ ...event, seq: this.#seq++ } as FleetEvent);
  }

  /** Writes the batched text and waits until every event is in Redis. */
  async flush(): Promise<void> {
    this.#flushText();
    await this.#chain;
  }

  /** Stops the batch timer (the job ended). */
  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #flushText(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#text) return;
    const text = this.#text;
    this.#text = '';
    this.#write({ type: 'text', seq: this.#seq++, text });
  }

  #write(event: FleetEvent): void {
    this.#chain = this.#chain.then(() => this.#job.updateProgress(event)).catch(this.#onError);
  }
}
