/**
 * The client side of a fleet: enqueue agent jobs on BullMQ, follow their progress events in order, and read
 * their stored results.
 */

import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { ClosedError, ConfigError } from '../errors.js';
import { type FleetConnection, type FleetLocation, fleetKeys, redisClient } from './redis.js';
import type { FleetEvent, FleetJob, FleetResult } from './types.js';

/** Options of `createFleetQueue`. */
export interface FleetQueueOptions extends FleetLocation {
  /** The fleet's Redis. */
  connection: FleetConnection;
  /**
   * Attempts per job (a run that throws — an agent that cannot start, a worker shutting down without
   * handing back — counts one; a worker that dies holding the job does not, see `maxStalledCount` on the
   * worker). Default 3.
   */
  attempts?: number | undefined;
}

/** Options of one `add`. */
export interface FleetAddOptions {
  /** The job id. Default: a random UUID. */
  jobId?: string | undefined;
  /** BullMQ priority (1 is highest). */
  priority?: number | undefined;
}

/** An enqueued job: its id, its progress events and its result. */
export interface FleetJobHandle {
  /** The BullMQ job id. */
  readonly id: string;
  /**
   * The job's progress events in the order the workers wrote them, from the moment it was added; ends when
   * the job completes, and throws when it fails for good. One reader per handle.
   */
  events(): AsyncIterableIterator<FleetEvent>;
  /** The stored result, once the job completed. Rejects when it failed for good, or after `timeoutMs`. */
  result(timeoutMs?: number): Promise<FleetResult>;
}

/** A fleet's queue, from the client side. */
export interface FleetQueue {
  /** Enqueues a job; progress is followed from before it is written, so no event is missed. */
  add(job: FleetJob, options?: FleetAddOptions): Promise<FleetJobHandle>;
  /** Calls `listener` with each progress event of a job (added by anyone) from now on; returns the unsubscribe. */
  subscribe(jobId: string, listener: (event: FleetEvent) => void): () => void;
  /** The stored result of a job, once it completed. */
  result(jobId: string, timeoutMs?: number): Promise<FleetResult>;
  /** The underlying BullMQ queue (counts, cleaning, dashboards). */
  readonly queue: Queue<FleetJob, FleetResult>;
  /** Closes the queue and its Redis connections. */
  close(): Promise<void>;
}

function checkJob(job: FleetJob): void {
  if (typeof job !== 'object' || job === null) throw new ConfigError('job', 'must be an object');
  if (typeof job.key !== 'string' || job.key === '')
    throw new ConfigError('job.key', 'must be a non-empty string');
  if (typeof job.prompt !== 'string' || job.prompt.trim() === '')
    throw new ConfigError('job.prompt', 'must be a non-empty string');
  if (job.config !== undefined && (typeof job.config !== 'object' || job.config === null))
    throw new ConfigError('job.config', 'must be an object');
}

/** The id of the last entry of a stream, or `0-0` when it is empty. */
async function streamTail(redis: Redis, key: string): Promise<string> {
  const last = (await redis.xrevrange(key, '+', '-', 'COUNT', 1)) as [string, string[]][];
  return last[0]?.[0] ?? '0-0';
}

type Listener = {
  progress(event: FleetEvent): void;
  completed(result: FleetResult): void;
  failed(reason: string): void;
};

/**
 * Connects to a fleet's queue. Resolves once the progress subscription is live (events are read from the
 * stream position at that moment, so a job added afterwards loses none).
 */
export async function createFleetQueue(options: FleetQueueOptions): Promise<FleetQueue> {
  const keys = fleetKeys(options);
  const attempts = options.attempts ?? 3;
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new ConfigError('attempts', 'must be a positive integer');
  const redis = redisClient(options.connection);
  const queue = new Queue<FleetJob, FleetResult>(keys.name, {
    connection: redis,
    prefix: keys.prefix,
    defaultJobOptions: { attempts, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: false },
  });
  let events: QueueEvents | undefined;
  // BullMQ leaves connections it was handed open: ours are closed in close().
  const eventsRedis = redis.duplicate();
  try {
    await queue.waitUntilReady();
    events = new QueueEvents(keys.name, {
      connection: eventsRedis,
      prefix: keys.prefix,
      lastEventId: await streamTail(redis, queue.toKey('events')),
    });
    await events.waitUntilReady();
  } catch (err) {
    await events?.close().catch(() => {});
    await queue.close().catch(() => {});
    eventsRedis.disconnect();
    redis.disconnect();
    throw err;
  }
  const queueEvents = events;
  const listeners = new Map<string, Set<Listener>>();
  const each = (jobId: string, f: (l: Listener) => void) => {
    for (const l of listeners.get(jobId) ?? []) f(l);
  };
  queueEvents.on('progress', ({ jobId, data }) => each(jobId, (l) => l.progress(data as FleetEvent)));
  queueEvents.on('completed', ({ jobId, returnvalue }) =>
    each(jobId, (l) => l.completed(returnvalue as unknown as FleetResult)),
  );
  queueEvents.on('failed', ({ jobId, failedReason }) => each(jobId, (l) => l.failed(failedReason)));
  const listen = (jobId: string, listener: Listener) => {
    const set = listeners.get(jobId) ?? new Set();
    set.add(listener);
    listeners.set(jobId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) listeners.delete(jobId);
    };
  };
  let closed = false;

  const result = async (jobId: string, timeoutMs?: number): Promise<FleetResult> => {
    const job = await queue.getJob(jobId);
    if (!job) throw new ConfigError('jobId', `no job ${JSON.stringify(jobId)} in queue ${keys.name}`);
    return (await job.waitUntilFinished(queueEvents, timeoutMs)) as FleetResult;
  };

  return {
    queue,
    async add(job, addOptions = {}) {
      if (closed) throw new ClosedError('the fleet queue is closed');
      checkJob(job);
      const id = addOptions.jobId ?? randomUUID();
      // Follow the job before it exists: its first event cannot be missed.
      const buffer: FleetEvent[] = [];
      let end: { error?: Error } | undefined;
      let wake: (() => void) | undefined;
      const stop = listen(id, {
        progress: (e) => {
          buffer.push(e);
          wake?.();
        },
        completed: () => {
          end = {};
          stop();
          wake?.();
        },
        failed: (reason) => {
          // A failed attempt that will be retried is not the end; only a job failed for good is.
          const finish = (error: Error) => {
            end = { error };
            stop();
            wake?.();
          };
          queue
            .getJob(id)
            .then(async (j) => {
              if (!j || (await j.isFailed())) finish(new Error(`fleet job ${id} failed: ${reason}`));
            })
            .catch((err: unknown) => finish(err instanceof Error ? err : new Error(String(err))));
        },
      });
      try {
        await queue.add('turn', job, {
          jobId: id,
          ...(addOptions.priority !== undefined && { priority: addOptions.priority }),
        });
      } catch (err) {
        stop();
        throw err;
      }
      async function* iterate(): AsyncGenerator<FleetEvent, void, undefined> {
        try {
          for (;;) {
            while (buffer.length) yield buffer.shift()!;
            if (end) {
              if (end.error) throw end.error;
              return;
            }
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        } finally {
          stop();
        }
      }
      let iterator: AsyncIterableIterator<FleetEvent> | undefined;
      return {
        id,
        events: () => {
          iterator ??= iterate();
          return iterator;
        },
        result: (timeoutMs) => result(id, timeoutMs),
      };
    },
    subscribe(jobId, listener) {
      return listen(jobId, { progress: listener, completed: () => {}, failed: () => {} });
    },
    result,
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      await queueEvents.close();
      await queue.close();
      eventsRedis.disconnect();
      redis.disconnect();
    },
  };
}
