/**
 * A fleet worker: takes agent jobs from BullMQ and runs them on an `AgentPool` whose rate-limit pauses and
 * conversation ids live in Redis. A job held by a worker that dies is moved back by BullMQ's stalled-job check
 * and runs on another worker, which resumes the key's conversation by id; a worker shutting down finishes its
 * jobs or hands them back.
 */

import { hostname } from 'node:os';
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import { ConfigError } from '../errors.js';
import { checkDuration } from '../internal/duration.js';
import { consoleLogger, describeError, type Logger } from '../logger.js';
import type { Step } from '../model/step.js';
import { AgentPool, type AgentPoolOptions, type PoolAdmission } from '../pool/index.js';
import { checkStoredJob, type StoredJob } from './job-schema.js';
import { ProgressWriter } from './progress-writer.js';
import {
  boundedWait,
  type FleetConnection,
  type FleetLocation,
  fleetKeys,
  RedisMonitor,
  redisClient,
} from './redis.js';
import { RedisConversationStore, RedisPauseStore } from './redis-stores.js';
import type { FleetConversationState, FleetJob, FleetResult } from './types.js';

/** How long a finished turn's result is kept in Redis for a retry of the same attempt to find, in ms (a day). */
const RAN_RECORD_TTL_MS = 24 * 60 * 60 * 1000;
/** The most finished turns a worker remembers in memory for jobs it has not seen complete. */
const RAN_MEMORY_LIMIT = 1_000;

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

/** How a job's conversation was found, from its admission and the first steps of its turn. */
function conversationState(
  admission: PoolAdmission | undefined,
  resumeSeen: boolean,
): FleetConversationState {
  if (!admission?.firstTurn) return 'continued';
  if (admission.resumedFrom === undefined) return 'new';
  // agy marks a resumed conversation with a system_message after the user input
  // (docs/reference/stream-json.md#step-types); without it the id was unknown to this agy.
  return resumeSeen ? 'resumed' : 'restarted';
}

/** A job attempt's record key: the same attempt, retried after a lost lock, finds the turn it already ran. */
function attemptOf(job: Job<FleetJob, FleetResult>): string {
  return `${job.id}:${job.attemptsMade}`;
}

/** Starts a worker; resolves once it is connected and taking jobs. */
export async function createFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
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
  const keys = fleetKeys(options);
  const logger = options.logger ?? options.pool.logger ?? consoleLogger;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}`;
  const batchMs = options.progressBatchMs ?? 100;
  const maxRateLimitRetries = options.rateLimitRetries ?? 5;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
  const monitor = new RedisMonitor(logger, `worker ${workerId}`, options.connection);
  const redis = redisClient(options.connection, monitor);
  const subscriber = redisClient(options.connection, monitor);
  const pauses = new RedisPauseStore(redis, subscriber, keys, (err) =>
    logger.warn(`fleet: writing a rate-limit pause to Redis failed: ${describeError(err)}`),
  );
  let pool: AgentPool;
  try {
    pool = new AgentPool({
      ...options.pool,
      pauses,
      conversations: new RedisConversationStore(redis, keys),
    });
  } catch (err) {
    monitor.closing();
    subscriber.disconnect();
    redis.disconnect();
    throw err;
  }
  /** Jobs running here, so a shutdown can hand them back. */
  const active = new Set<{ abort: AbortController; handBack: boolean; jobId: string | undefined }>();
  /**
   * Turns this worker ran, by job attempt, while their result may still be unwritten: a job whose lock was
   * lost (Redis down longer than `lockDurationMs`) comes back for the same attempt, and gets this result (or
   * waits for the running turn) instead of sending the prompt to agy again. Resolves undefined when the turn
   * ended without a result to keep (handed back, rate-limited, failed).
   */
  const ran = new Map<string, Promise<FleetResult | undefined>>();
  const forget = (jobId: string | undefined) => {
    for (const key of ran.keys()) if (key.startsWith(`${jobId}:`)) ran.delete(key);
  };
  let closing: Promise<void> | undefined;

  const handBack = async (job: Job<FleetJob, FleetResult>, token: string | undefined): Promise<never> => {
    // Back to the queue without spending an attempt: the next free worker takes it at once.
    await job.moveToDelayed(Date.now(), token);
    throw new DelayedError();
  };

  const processor = async (job: Job<FleetJob, FleetResult>, token?: string): Promise<FleetResult> => {
    let data: StoredJob;
    try {
      // The same check as add(): a job added straight through BullMQ is held to it too.
      data = checkStoredJob(job.data);
    } catch (err) {
      // Bad data can never succeed: the job fails once, never retried.
      throw new UnrecoverableError(`invalid fleet job: ${describeError(err)}`);
    }
    const attempt = attemptOf(job);
    // This attempt's turn already ran (its result was not written: the lock was lost): its result, never
    // the prompt again.
    const known = await (ran.get(attempt) ?? readRan(attempt));
    if (known) return known;
    if (closing) return handBack(job, token);
    let model: string;
    try {
      model = pool.modelOf(data.key);
    } catch (err) {
      if (err instanceof ConfigError) throw new UnrecoverableError(describeError(err));
      throw err;
    }
    // Another worker's 429 pauses this one too: the job waits (delayed) instead of hammering the provider.
    const pausedUntil = await pauses.refresh(model);
    if (pausedUntil > Date.now()) {
      await job.moveToDelayed(pausedUntil, token);
      throw new DelayedError();
    }
    const progress = new ProgressWriter(job, batchMs, (err) =>
      logger.warn(`fleet: writing progress of job ${job.id} failed`, err),
    );
    const run = { abort: new AbortController(), handBack: false, jobId: job.id };
    active.add(run);
    let kept: (result: FleetResult | undefined) => void = () => {};
    const record = new Promise<FleetResult | undefined>((resolve) => {
      kept = resolve;
    });
    ran.set(attempt, record);
    if (ran.size > RAN_MEMORY_LIMIT) ran.delete(ran.keys().next().value as string);
    let result: FleetResult | undefined;
    try {
      let admission: PoolAdmission | undefined;
      let response: Awaited<ReturnType<AgentPool['run']>>;
      try {
        response = await pool.run(data.key, data.prompt, {
          signal: run.abort.signal,
          turnTimeoutMs: data.config?.turnTimeoutMs,
          responseSchema: data.config?.responseSchema,
          onAdmitted: (a) => {
            admission = a;
            progress.event({
              type: 'started',
              workerId,
              conversationId: a.conversationId,
              resumedFrom: a.resumedFrom,
              pid: a.pid,
            });
          },
        });
      } catch (err) {
        if (run.handBack) {
          await progress.flush();
          return await handBack(job, token);
        }
        // The job's own options were refused (checked before any agent was touched): it can never succeed.
        if (err instanceof ConfigError) throw new UnrecoverableError(describeError(err));
        throw err;
      }
      let resumeSeen = false;
      for await (const step of response.steps() as AsyncIterable<Step>) {
        if (step.type === 'system_message') resumeSeen = true;
        if (step.textDelta) progress.text(step.textDelta);
        if (step.tool && (step.state === 'DONE' || step.state === 'ERROR'))
          progress.event({ type: 'tool', name: step.tool.name, state: step.state });
      }
      const turn = await response.result();
      if (run.handBack && turn.status === 'canceled') {
        progress.event({ type: 'handed_back', workerId });
        await progress.flush();
        return await handBack(job, token);
      }
      const retries = data.rateLimitRetries ?? 0;
      if (
        (turn.status === 'rate_limited' || turn.status === 'quota_exhausted') &&
        retries < maxRateLimitRetries
      ) {
        // The pool paused the model (here and in Redis); the job runs again once the pause ends.
        const untilMs = Math.max(pauses.pausedUntil(model), Date.now() + (turn.retryAfterMs ?? 0));
        progress.event({ type: 'rate_limited', untilMs });
        await progress.flush();
        await job.updateData({ ...data, rateLimitRetries: retries + 1 } as StoredJob);
        await job.moveToDelayed(untilMs, token);
        throw new DelayedError();
      }
      const costUsd = turn.usage?.costUsd ?? null;
      result = {
        status: turn.status,
        text: turn.text,
        usage: turn.usage,
        costUsd,
        ...(turn.structuredOutput !== undefined && { structuredOutput: turn.structuredOutput }),
        conversationId: turn.conversationId,
        conversation: conversationState(admission, resumeSeen),
        workerId,
        errorMessage: turn.errorMessage,
        ...(turn.retryAfterMs !== undefined && { retryAfterMs: turn.retryAfterMs }),
      };
      // Recorded in Redis (written once Redis takes it, before the job can complete) for a retry of this
      // attempt on any worker; here, a retry gets it once the `done` event is written, so `done` always comes
      // before the job's completion.
      progress.event({ type: 'done', status: turn.status, costUsd });
      writeRan(attempt, result);
      await progress.flush();
      kept(result);
      return result;
    } finally {
      active.delete(run);
      progress.dispose();
      kept(result);
      if (result === undefined && ran.get(attempt) === record) ran.delete(attempt);
    }
  };

  /** The result a worker recorded in Redis for this attempt, if any. */
  async function readRan(attempt: string): Promise<FleetResult | undefined> {
    const stored = await redis.get(keys.ran(attempt));
    if (stored === null) return undefined;
    try {
      return JSON.parse(stored) as FleetResult;
    } catch (err) {
      logger.warn(
        `fleet: an unreadable turn record for job attempt ${attempt} was ignored: ${describeError(err)}`,
      );
      return undefined;
    }
  }

  function writeRan(attempt: string, result: FleetResult): void {
    redis
      .set(keys.ran(attempt), JSON.stringify(result), 'PX', RAN_RECORD_TTL_MS)
      .catch((err: unknown) =>
        logger.warn(`fleet: recording the turn of job attempt ${attempt} failed: ${describeError(err)}`),
      );
  }

  const worker = new Worker<FleetJob, FleetResult>(keys.name, processor, {
    connection: redis,
    prefix: keys.prefix,
    concurrency: options.concurrency ?? options.pool.size,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 2,
    autorun: false,
  });
  worker.on('error', (err) => monitor.error('worker', err));
  // A job that ended here is done with its record (a later attempt has its own).
  const ended = (job: Job<FleetJob, FleetResult> | undefined) => {
    if (!job?.id) return;
    forget(job.id);
    for (let attempt = 0; attempt <= job.attemptsMade; attempt++)
      void redis.del(keys.ran(`${job.id}:${attempt}`)).catch(() => {});
  };
  worker.on('completed', (job) => ended(job));
  worker.on('failed', (job) => ended(job));
  const abandon = async () => {
    monitor.closing();
    void worker.disconnect().catch(() => {});
    subscriber.disconnect();
    redis.disconnect();
    await pool.close();
  };
  try {
    await monitor.within(
      (async () => {
        await pauses.start();
        await worker.waitUntilReady();
      })(),
      connectTimeoutMs,
      abandon,
    );
  } catch (err) {
    await abandon();
    throw err;
  }
  void worker.run().catch((err) => logger.error(`fleet: worker stopped: ${describeError(err)}`));

  const onSignal = () => void close();
  const close = (closeOptions: { graceMs?: number | undefined } = {}): Promise<void> => {
    closing ??= (async () => {
      if (options.handleSignals) {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
      const graceMs = closeOptions.graceMs ?? options.shutdownGraceMs ?? 30_000;
      // Stop taking jobs; the running ones get the grace to finish.
      const stopped = worker.close();
      let forced = false;
      try {
        if ((await boundedWait(stopped, graceMs)) === 'timeout') {
          for (const run of active) {
            run.handBack = true;
            run.abort.abort();
          }
          // Handing back and BullMQ's close need Redis: bounded, so an outage cannot hold the close forever.
          if ((await boundedWait(stopped, closeTimeoutMs)) === 'timeout') {
            forced = true;
            const jobs = [...active].map((r) => r.jobId).join(', ');
            logger.warn(
              `fleet worker ${workerId}: Redis at ${monitor.server} did not answer within ${closeTimeoutMs} ms ` +
                `while closing; connections force-closed${jobs ? `; not handed back: job ${jobs} (BullMQ's stalled-job check returns it to the queue after lockDurationMs once Redis is back)` : ''}`,
            );
          }
        }
      } finally {
        if (forced) {
          monitor.closing();
          void worker.disconnect().catch(() => {});
          subscriber.disconnect();
          redis.disconnect();
        }
        await pool.close();
        monitor.closing();
        subscriber.disconnect();
        redis.disconnect();
        // With its connections gone, BullMQ's close ends (its timers with it); bounded all the same.
        if (forced) await boundedWait(stopped, closeTimeoutMs);
      }
    })();
    return closing;
  };
  if (options.handleSignals) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { id: workerId, pool, worker, close };
}
