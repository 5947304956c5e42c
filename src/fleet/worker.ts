/**
 * A fleet worker: takes agent jobs from BullMQ and runs them on an `AgentPool` whose rate-limit pauses and
 * conversation ids live in Redis. A job held by a worker that dies is moved back by BullMQ's stalled-job check
 * and runs on another worker, which resumes the key's conversation by id; a worker shutting down finishes its
 * jobs or hands them back.
 */

import { hostname } from 'node:os';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { ConfigError } from '../errors.js';
import { checkDuration } from '../internal/duration.js';
import { consoleLogger, describeError, type Logger } from '../logger.js';
import { AgentPool, type AgentPoolOptions } from '../pool/index.js';
import { JobRunner } from './job-runner.js';
import {
  boundedWait,
  type FleetConnection,
  type FleetLocation,
  fleetKeys,
  RedisMonitor,
  redisClient,
} from './redis.js';
import { RedisConversationStore, RedisPauseStore } from './redis-stores.js';
import { TurnRecords } from './turn-records.js';
import type { FleetJob, FleetResult } from './types.js';

/** Options of `createFleetWorker`. */
export interface FleetWorkerOptions extends FleetLocation {
  /** The fleet's Redis. */
  connection: FleetConnection;
  /**
   * The worker's pool. The worker builds the `AgentPool` itself, with its rate-limit pauses and conversation
   * ids in Redis (so they are shared with every worker); every worker of a fleet should run the same config.
   */
  pool: Omit<AgentPoolOptions, 'pauses' | 'conversations'>;
  /** This worker's name in results and events. Default `<hostname>:<pid>`. */
  workerId?: string | undefined;
  /** Jobs taken at once. Default the pool's `size`. */
  concurrency?: number | undefined;
  /**
   * How long a job stays locked to this worker without a lock renewal, in ms (BullMQ's `lockDuration`).
   * A worker that dies holding a job loses it after about this long. Default 30,000.
   */
  lockDurationMs?: number | undefined;
  /** How often stalled jobs are looked for, in ms (BullMQ's `stalledInterval`). Default 30,000. */
  stalledIntervalMs?: number | undefined;
  /** How many times a job may be recovered from a dead worker before it fails. Default 2. */
  maxStalledCount?: number | undefined;
  /** Streamed text is sent as one `text` progress event per this many ms. Default 100. */
  progressBatchMs?: number | undefined;
  /** How many times a rate-limited turn is delayed until the pause ends and run again. Default 5. */
  rateLimitRetries?: number | undefined;
  /** On `close()`: how long running jobs get to finish before they are handed back, in ms. Default 30,000. */
  shutdownGraceMs?: number | undefined;
  /** Close the worker (finish or hand back, then close the pool) on SIGTERM and SIGINT. Default false. */
  handleSignals?: boolean | undefined;
  /**
   * How long `createFleetWorker` waits for Redis, in ms: past it, it closes what it opened (the pool too) and
   * rejects with `RedisUnavailableError`. Default 10,000.
   */
  connectTimeoutMs?: number | undefined;
  /**
   * On `close()`, after the grace: how long handing jobs back and closing BullMQ's worker may take, in ms.
   * Past it (Redis is down), the connections are force-closed and the log says which jobs were not handed
   * back (BullMQ's stalled-job check returns them to the queue once Redis is back). Default 5,000.
   */
  closeTimeoutMs?: number | undefined;
  /**
   * Where the worker reports a lost and a regained Redis connection (once each), Redis errors (one line each)
   * and a forced close. Default the pool's `logger`, else the console.
   */
  logger?: Logger | undefined;
}

/** A running fleet worker. */
export interface FleetWorker {
  /** This worker's id. */
  readonly id: string;
  /** The pool it runs jobs on. */
  readonly pool: AgentPool;
  /** The underlying BullMQ worker. */
  readonly worker: Worker<FleetJob, FleetResult>;
  /**
   * Stops taking jobs, lets running ones finish for up to `graceMs` (default `shutdownGraceMs`), hands the
   * rest back to the queue (their turns are canceled; another worker runs them again), then closes the pool
   * and the Redis connections. Bounded even while Redis is down: at most `graceMs` + `closeTimeoutMs` (then the
   * connections are force-closed, and the log says so), plus the pool's own close. Idempotent.
   */
  close(options?: { graceMs?: number | undefined }): Promise<void>;
}

function checkNumber(field: string, value: number | undefined, min: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= min))
    throw new ConfigError(field, `must be an integer ≥ ${min}`);
}

/** Checks the worker's own options (the pool checks its own); throws `ConfigError` naming the field. */
function checkOptions(options: FleetWorkerOptions): void {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  if (typeof options.pool !== 'object' || options.pool === null)
    throw new ConfigError('pool', 'must be the pool options ({ size, agent, … })');
  checkNumber('concurrency', options.concurrency, 1);
  checkDuration('lockDurationMs', options.lockDurationMs, { min: 100, integer: true });
  checkDuration('stalledIntervalMs', options.stalledIntervalMs, { min: 100, integer: true });
  checkNumber('maxStalledCount', options.maxStalledCount, 0);
  checkDuration('progressBatchMs', options.progressBatchMs, { allowZero: true });
  checkNumber('rateLimitRetries', options.rateLimitRetries, 0);
  checkDuration('shutdownGraceMs', options.shutdownGraceMs, { allowZero: true });
  checkDuration('connectTimeoutMs', options.connectTimeoutMs);
  checkDuration('closeTimeoutMs', options.closeTimeoutMs);
}

/** A worker's Redis connections and their monitor. */
interface Connections {
  monitor: RedisMonitor;
  redis: Redis;
  subscriber: Redis;
}

/** Closes the connections at once (the monitor first, so the drop is not reported as an outage). */
function disconnect({ monitor, redis, subscriber }: Connections): void {
  monitor.closing();
  subscriber.disconnect();
  redis.disconnect();
}

/** Starts a worker; resolves once it is connected and taking jobs. */
export async function createFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  checkOptions(options);
  const keys = fleetKeys(options);
  const logger = options.logger ?? options.pool.logger ?? consoleLogger;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}`;
  const monitor = new RedisMonitor(logger, `worker ${workerId}`, options.connection);
  const connections: Connections = {
    monitor,
    redis: redisClient(options.connection, monitor),
    subscriber: redisClient(options.connection, monitor),
  };
  const { redis, subscriber } = connections;
  const pauses = new RedisPauseStore(redis, subscriber, keys, (err) =>
    logger.warn(`fleet: writing a rate-limit pause to Redis failed: ${describeError(err)}`),
  );
  let pool: AgentPool;
  try {
    pool = new AgentPool({ ...options.pool, pauses, conversations: new RedisConversationStore(redis, keys) });
  } catch (err) {
    disconnect(connections);
    throw err;
  }
  const records = new TurnRecords(redis, keys, logger);
  const runner = new JobRunner({
    pool,
    pauses,
    records,
    logger,
    workerId,
    batchMs: options.progressBatchMs ?? 100,
    maxRateLimitRetries: options.rateLimitRetries ?? 5,
  });
  const worker = new Worker<FleetJob, FleetResult>(keys.name, runner.process, {
    connection: redis,
    prefix: keys.prefix,
    concurrency: options.concurrency ?? options.pool.size,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 2,
    autorun: false,
  });
  worker.on('error', (err) => monitor.error('worker', err));
  worker.on('completed', (job) => records.ended(job));
  worker.on('failed', (job) => records.ended(job));
  const abandon = async () => {
    monitor.closing();
    void worker.disconnect().catch(() => {});
    disconnect(connections);
    await pool.close();
  };
  try {
    await monitor.within(
      (async () => {
        await pauses.start();
        await worker.waitUntilReady();
      })(),
      options.connectTimeoutMs ?? 10_000,
      abandon,
    );
  } catch (err) {
    await abandon();
    throw err;
  }
  void worker.run().catch((err) => logger.error(`fleet: worker stopped: ${describeError(err)}`));
  return new RunningFleetWorker({ options, workerId, pool, worker, runner, connections, logger });
}

/** What a running worker closes. */
interface WorkerParts {
  options: FleetWorkerOptions;
  workerId: string;
  pool: AgentPool;
  worker: Worker<FleetJob, FleetResult>;
  runner: JobRunner;
  connections: Connections;
  logger: Logger;
}

/** A started worker: its close, and its signal handlers when asked for. */
class RunningFleetWorker implements FleetWorker {
  readonly id: string;
  readonly pool: AgentPool;
  readonly worker: Worker<FleetJob, FleetResult>;
  readonly #parts: WorkerParts;
  readonly #onSignal = () => void this.close();
  #closing: Promise<void> | undefined;

  /** Serves the started `parts`; listens for SIGTERM and SIGINT when `handleSignals` asks for it. */
  constructor(parts: WorkerParts) {
    this.#parts = parts;
    this.id = parts.workerId;
    this.pool = parts.pool;
    this.worker = parts.worker;
    if (parts.options.handleSignals) {
      process.once('SIGTERM', this.#onSignal);
      process.once('SIGINT', this.#onSignal);
    }
  }

  /** Bound: a caller may pass `worker.close` around, as it could the object's function before. */
  readonly close = (closeOptions: { graceMs?: number | undefined } = {}): Promise<void> => {
    if (this.#closing) return this.#closing;
    // From now on a job taken is handed back at once.
    this.#parts.runner.closing = true;
    this.#closing = this.#close(closeOptions.graceMs ?? this.#parts.options.shutdownGraceMs ?? 30_000);
    return this.#closing;
  };

  async #close(graceMs: number): Promise<void> {
    const { options, worker, pool, connections } = this.#parts;
    if (options.handleSignals) {
      process.off('SIGTERM', this.#onSignal);
      process.off('SIGINT', this.#onSignal);
    }
    // Stop taking jobs; the running ones get the grace to finish.
    const stopped = worker.close();
    let forced = false;
    const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
    try {
      if ((await boundedWait(stopped, graceMs)) === 'timeout') forced = await this.#handBack(stopped);
    } finally {
      if (forced) {
        connections.monitor.closing();
        void worker.disconnect().catch(() => {});
        disconnect(connections);
      }
      await pool.close();
      disconnect(connections);
      // With its connections gone, BullMQ's close ends (its timers with it); bounded all the same.
      if (forced) await boundedWait(stopped, closeTimeoutMs);
    }
  }

  /** Past the grace: cancels the running turns to hand them back; true when Redis did not let that finish. */
  async #handBack(stopped: Promise<void>): Promise<boolean> {
    const { options, runner, logger, workerId, connections } = this.#parts;
    for (const run of runner.active) {
      run.handBack = true;
      run.abort.abort();
    }
    // Handing back and BullMQ's close need Redis: bounded, so an outage cannot hold the close forever.
    const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
    if ((await boundedWait(stopped, closeTimeoutMs)) !== 'timeout') return false;
    const jobs = [...runner.active].map((r) => r.jobId).join(', ');
    logger.warn(
      `fleet worker ${workerId}: Redis at ${connections.monitor.server} did not answer within ${closeTimeoutMs} ms ` +
        `while closing; connections force-closed${jobs ? `; not handed back: job ${jobs} (BullMQ's stalled-job check returns it to the queue after lockDurationMs once Redis is back)` : ''}`,
    );
    return true;
  }
}
