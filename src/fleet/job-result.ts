/** Waiting for a job's stored result: from its completion event, or from Redis when it already ended. */

import type { Queue } from 'bullmq';
import { ConfigError } from '../errors.js';
import { asError, type JobListener, whenFailedForGood } from './job-listeners.js';
import type { FleetJob, FleetResult } from './types.js';

/** What a wait needs of its queue client. */
export interface ResultSource {
  readonly queue: Queue<FleetJob, FleetResult>;
  /** The queue's name, for the error naming a job that does not exist. */
  readonly name: string;
  listen(jobId: string, listener: JobListener): () => void;
  /** Waiting calls' aborts, so closing the client can end them. */
  readonly waiting: Set<(err: Error) => void>;
}

type Outcome = { value: FleetResult } | { error: Error };

/**
 * The result of `jobId`. The listener is registered before the job's state is read, so no ending is missed;
 * rejects when the job failed for good, is unknown, or did not end within `timeoutMs`.
 */
export function waitForResult(source: ResultSource, jobId: string, timeoutMs?: number): Promise<FleetResult> {
  return new Promise<FleetResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      stop();
      source.waiting.delete(abort);
      if ('value' in outcome) resolve(outcome.value);
      else reject(outcome.error);
    };
    const abort = (error: Error) => finish({ error });
    const stop = source.listen(jobId, {
      progress: () => {},
      completed: (value) => finish({ value }),
      failed: (reason) =>
        whenFailedForGood(
          source.queue,
          jobId,
          (j) => finish({ error: new Error(`fleet job ${jobId} failed: ${j?.failedReason ?? reason}`) }),
          (error) => finish({ error }),
        ),
    });
    source.waiting.add(abort);
    if (timeoutMs !== undefined)
      timer = setTimeout(
        () => finish({ error: new Error(`fleet job ${jobId} did not finish within ${timeoutMs} ms`) }),
        timeoutMs,
      );
    readEnded(source, jobId).then(
      (outcome) => outcome && finish(outcome),
      (err: unknown) => finish({ error: asError(err) }),
    );
  });
}

/** How the job ended, when it already did (else undefined); an unknown job is a `ConfigError`. */
async function readEnded(source: ResultSource, jobId: string): Promise<Outcome | undefined> {
  const job = await source.queue.getJob(jobId);
  if (!job)
    return { error: new ConfigError('jobId', `no job ${JSON.stringify(jobId)} in queue ${source.name}`) };
  const state = await job.getState();
  if (state === 'completed') {
    const done = await source.queue.getJob(jobId);
    return { value: done?.returnvalue as FleetResult };
  }
  if (state === 'failed') {
    // Read again: `job` may have been fetched before it failed, without its reason.
    const failed = await source.queue.getJob(jobId);
    return { error: new Error(`fleet job ${jobId} failed: ${failed?.failedReason ?? 'no reason recorded'}`) };
  }
  return undefined;
}
