/**
 * The client side of a fleet: enqueue agent jobs on BullMQ, follow their progress events in order, and read
 * their stored results.
 */

import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { ClosedError, ConfigError } from '../errors.js';
import { checkDuration } from '../internal/duration.js';
import { consoleLogger, type Logger } from '../logger.js';
import { checkFleetJob } from './job-schema.js';
import {
  boundedWait,
  type FleetConnection,
  type FleetLocation,
  fleetKeys,
  RedisMonitor,
  redisClient,
} from './redis.js';
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
  /**
   * How long `createFleetQueue` waits for Redis, in ms: past it, it closes what it opened and rejects with
   * `RedisUnavailableError`. Default 10,000.
   */
  connectTimeoutMs?: number | undefined;
  /**
   * How long `close()` waits for Redis to take its last commands, in ms: past it (Redis is down), the
   * connections are force-closed and the log says so. Default 5,000.
   */
  closeTimeoutMs?: number | undefined;
  /**
   * Where the queue reports a lost and a regained Redis connection (once each) and other Redis errors, one
   * line each. Default the console (warnings and errors).
   */
  logger?: Logger | undefined;
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
  /**
   * Closes the queue and its Redis connections, within `closeTimeoutMs` even while Redis is down (then the
   * connections are force-closed, and the log says so). Waiting `result()` calls reject with `ClosedError`.
   */
  close(): Promise<void>;
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
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  const keys = fleetKeys(options);
  const attempts = options.attempts ?? 3;
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new ConfigError('attempts', 'must be a positive integer');
  checkDuration('connectTimeoutMs', options.connectTimeoutMs);
  checkDuration('closeTimeoutMs', options.closeTimeoutMs);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
  const logger = options.logger ?? consoleLogger;
  const monitor = new RedisMonitor(logger, `queue ${keys.name}`, options.connection);
  const redis = redisClient(options.connection, monitor);
  const queue = new Queue<FleetJob, FleetResult>(keys.name, {
    connection: redis,
    prefix: keys.prefix,
    defaultJobOptions: { attempts, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: false },
  });
  queue.on('error', (err) => monitor.error('queue', err));
  let events: QueueEvents | undefined;
  // BullMQ leaves connections it was handed open: ours are closed in close().
  const eventsRedis = redisClient(options.connection, monitor);
  const forceClose = async () => {
    monitor.closing();
    void queue.disconnect().catch(() => {});
    void events?.disconnect().catch(() => {});
    eventsRedis.disconnect();
    redis.disconnect();
  };
  try {
    events = await monitor.within(
      (async () => {
        await queue.waitUntilReady();
        const created = new QueueEvents(keys.name, {
          connection: eventsRedis,
          prefix: keys.prefix,
          lastEventId: await streamTail(redis, queue.toKey('events')),
        });
        created.on('error', (err) => monitor.error('queue events', err));
        events = created;
        await created.waitUntilReady();
        return created;
      })(),
      connectTimeoutMs,
      forceClose,
    );
  } catch (err) {
    await forceClose();
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
  let closing: Promise<void> | undefined;

  /** Waiting `result()` calls, so close() can end them. */
  const waiting = new Set<(err: Error) => void>();

  /**
   * One listener per call in our own map (never one per call on BullMQ's emitter: more than 10 concurrent
   * waits would warn of a leak), registered before the job's state is read so no ending is missed.
   */
  const result = (jobId: string, timeoutMs?: number): Promise<FleetResult> => {
    if (closed) return Promise.reject(new ClosedError('the fleet queue is closed'));
    try {
      checkDuration('timeoutMs', timeoutMs);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<FleetResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (outcome: { value: FleetResult } | { error: Error }) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        stop();
        waiting.delete(abort);
        if ('value' in outcome) resolve(outcome.value);
        else reject(outcome.error);
      };
      const abort = (error: Error) => finish({ error });
      const failedForGood = (reason: string) => {
        queue
          .getJob(jobId)
          .then(async (j) => {
            if (!j || (await j.isFailed()))
              finish({ error: new Error(`fleet job ${jobId} failed: ${j?.failedReason ?? reason}`) });
          })
          .catch((err: unknown) => finish({ error: err instanceof Error ? err : new Error(String(err)) }));
      };
      const stop = listen(jobId, {
        progress: () => {},
        completed: (value) => finish({ value }),
        failed: failedForGood,
      });
      waiting.add(abort);
      if (timeoutMs !== undefined)
        timer = setTimeout(
          () => finish({ error: new Error(`fleet job ${jobId} did not finish within ${timeoutMs} ms`) }),
          timeoutMs,
        );
      queue
        .getJob(jobId)
        .then(async (job) => {
          if (!job) {
            finish({
              error: new ConfigError('jobId', `no job ${JSON.stringify(jobId)} in queue ${keys.name}`),
            });
            return;
          }
          const state = await job.getState();
          if (state === 'completed') {
            const done = await queue.getJob(jobId);
            finish({ value: done?.returnvalue as FleetResult });
          } else if (state === 'failed') {
            // Read again: `job` may have been fetched before it failed, without its reason.
            const failed = await queue.getJob(jobId);
            finish({
              error: new Error(`fleet job ${jobId} failed: ${failed?.failedReason ?? 'no reason recorded'}`),
            });
          }
        })
        .catch((err: unknown) => finish({ error: err instanceof Error ? err : new Error(String(err)) }));
    });
  };

  return {
    queue,
    async add(job, addOptions = {}) {
      if (closed) throw new ClosedError('the fleet queue is closed');
      const checked = checkFleetJob(job);
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
        await queue.add('turn', checked, {
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
    close() {
      closing ??= (async () => {
        closed = true;
        listeners.clear();
        for (const abort of [...waiting]) abort(new ClosedError('the fleet queue was closed'));
        // BullMQ's QueueEvents.close() waits for Redis (its blocking read) and never returns during an outage.
        const done = await boundedWait(
          (async () => {
            await queueEvents.close();
            await queue.close();
          })(),
          closeTimeoutMs,
        );
        if (done === 'timeout')
          logger.warn(
            `fleet queue ${keys.name}: Redis at ${monitor.server} did not answer within ${closeTimeoutMs} ms while closing; connections force-closed`,
          );
        await forceClose();
      })();
      return closing;
    },
  };
}
