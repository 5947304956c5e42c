/**
 * The client's followers of jobs, by job id, fed by one BullMQ `QueueEvents` (never one listener per follower on
 * BullMQ's emitter: more than 10 would warn of a leak).
 */

import type { Queue, QueueEvents } from 'bullmq';
import type { FleetEvent, FleetJob, FleetResult } from './types.js';

/** What a follower of one job hears. */
export interface JobListener {
  /** A progress event, in the order the worker wrote it. */
  progress(event: FleetEvent): void;
  /** The job completed with this result. */
  completed(result: FleetResult): void;
  /** An attempt failed (the job may still be retried). */
  failed(reason: string): void;
}

/** Followers of jobs by id. */
export class JobListeners {
  readonly #byJob = new Map<string, Set<JobListener>>();

  /** Feeds the followers from `events`. */
  constructor(events: QueueEvents) {
    events.on('progress', ({ jobId, data }) => this.#each(jobId, (l) => l.progress(data as FleetEvent)));
    events.on('completed', ({ jobId, returnvalue }) =>
      this.#each(jobId, (l) => l.completed(returnvalue as unknown as FleetResult)),
    );
    events.on('failed', ({ jobId, failedReason }) => this.#each(jobId, (l) => l.failed(failedReason)));
  }

  /** Follows `jobId`; returns the unsubscribe. */
  listen(jobId: string, listener: JobListener): () => void {
    const set = this.#byJob.get(jobId) ?? new Set();
    set.add(listener);
    this.#byJob.set(jobId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#byJob.delete(jobId);
    };
  }

  /** Drops every follower. */
  clear(): void {
    this.#byJob.clear();
  }

  #each(jobId: string, f: (l: JobListener) => void): void {
    for (const l of this.#byJob.get(jobId) ?? []) f(l);
  }
}

/** `err` as an `Error`. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * After a failed attempt: calls `onFailed` with the job (undefined when it is gone) when it failed for good (a
 * failed attempt that will be retried is not the end), `onError` when Redis could not say.
 */
export function whenFailedForGood(
  queue: Queue<FleetJob, FleetResult>,
  jobId: string,
  onFailed: (job: { failedReason?: string } | undefined) => void,
  onError: (err: Error) => void,
): void {
  queue
    .getJob(jobId)
    .then(async (j) => {
      if (!j || (await j.isFailed())) onFailed(j);
    })
    .catch((err: unknown) => onError(asError(err)));
}
