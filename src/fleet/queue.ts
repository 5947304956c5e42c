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
import { JobEventStream } from './job-events.js';
import { JobListeners } from './job-listeners.js';
import { type ResultSource, waitForResult } from './job-result.js';
import { checkFleetJob } from './job-schema.js';
import {
  boundedWait,
  type FleetConnection,
  type FleetKeys,
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

/** A connected queue's parts. */
interface Connected {
  keys: FleetKeys;
  monitor: RedisMonitor;
  queue: Queue<FleetJob, FleetResult>;
  events: QueueEvents;
  closeTimeoutMs: number;
  logger: Logger;
  /** Closes the connections at once. */
  forceClose(): Promise<void>;
}

/**
 * A connected fleet queue. Its methods are bound (a caller may pass `queue.result` around, as it could the
 * object's functions before).
 */
class FleetQueueClient implements FleetQueue {
  readonly queue: Queue<FleetJob, FleetResult>;
  readonly #parts: Connected;
  readonly #listeners: JobListeners;
  /** What `result()` waits with; its `waiting` aborts are ended by `close()`. */
  readonly #source: ResultSource;
  #closed = false;
  #closing: Promise<void> | undefined;

  /** Serves the connected `parts`; `close()` closes them. */
  constructor(parts: Connected) {
    this.#parts = parts;
    this.queue = parts.queue;
    const listeners = new JobListeners(parts.events);
    this.#listeners = listeners;
    this.#source = {
      queue: parts.queue,
      name: parts.keys.name,
      listen: (jobId, listener) => listeners.listen(jobId, listener),
      waiting: new Set(),
    };
  }

  /** Enqueues a job, followed from before it is written. */
  readonly add = async (job: FleetJob, addOptions: FleetAddOptions = {}): Promise<FleetJobHandle> => {
    if (this.#closed) throw new ClosedError('the fleet queue is closed');
    const checked = checkFleetJob(job);
    const id = addOptions.jobId ?? randomUUID();
    // Follow the job before it exists: its first event cannot be missed.
    const stream = new JobEventStream(this.queue, id, this.#source.listen);
    try {
      await this.queue.add('turn', checked, {
        jobId: id,
        ...(addOptions.priority !== undefined && { priority: addOptions.priority }),
      });
    } catch (err) {
      stream.stop();
      throw err;
    }
    return {
      id,
      events: () => stream.events(),
      result: (timeoutMs) => this.result(id, timeoutMs),
    };
  };

  /** Calls `listener` with each progress event of `jobId` from now on; returns the unsubscribe. */
  readonly subscribe = (jobId: string, listener: (event: FleetEvent) => void): (() => void) =>
    this.#listeners.listen(jobId, { progress: listener, completed: () => {}, failed: () => {} });

  /**
   * One listener per call in our own map (never one per call on BullMQ's emitter: more than 10 concurrent
   * waits would warn of a leak), registered before the job's state is read so no ending is missed.
   */
  readonly result = (jobId: string, timeoutMs?: number): Promise<FleetResult> => {
    if (this.#closed) return Promise.reject(new ClosedError('the fleet queue is closed'));
    try {
      checkDuration('timeoutMs', timeoutMs);
    } catch (err) {
      return Promise.reject(err);
    }
    return waitForResult(this.#source, jobId, timeoutMs);
  };

  /** Closes the queue and its connections, bounded while Redis is down. */
  readonly close = (): Promise<void> => {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#listeners.clear();
      for (const abort of [...this.#source.waiting]) abort(new ClosedError('the fleet queue was closed'));
      const { events, queue, closeTimeoutMs, logger, monitor } = this.#parts;
      // BullMQ's QueueEvents.close() waits for Redis (its blocking read) and never returns during an outage.
      const done = await boundedWait(
        (async () => {
          await events.close();
          await queue.close();
        })(),
        closeTimeoutMs,
      );
      if (done === 'timeout')
        logger.warn(
          `fleet queue ${this.#source.name}: Redis at ${monitor.server} did not answer within ${closeTimeoutMs} ms while closing; connections force-closed`,
        );
      await this.#parts.forceClose();
    })();
    return this.#closing;
  };
}

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
  return new FleetQueueClient(await connect(options, keys, attempts));
}

/** Opens the queue and its event subscription within `connectTimeoutMs`; on failure closes what it opened. */
async function connect(options: FleetQueueOptions, keys: FleetKeys, attempts: number): Promise<Connected> {
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
      options.connectTimeoutMs ?? 10_000,
      forceClose,
    );
  } catch (err) {
    await forceClose();
    throw err;
  }
  const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
  return { keys, monitor, queue, events, closeTimeoutMs, logger, forceClose };
}
