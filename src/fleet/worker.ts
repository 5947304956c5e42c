/**
 * A fleet worker: takes agent jobs from BullMQ and runs them on an `AgentPool` whose rate-limit pauses and
 * conversation ids live in Redis. A job held by a worker that dies is moved back by BullMQ's stalled-job check
 * and runs on another worker, which resumes the key's conversation by id; a worker shutting down finishes its
 * jobs or hands them back.
 */

import { hostname } from 'node:os';
import { DelayedError, type Job, Worker } from 'bullmq';
import { ConfigError } from '../errors.js';
import { consoleLogger } from '../logger.js';
import type { Step } from '../model/step.js';
import { AgentPool, type AgentPoolOptions, type PoolAdmission } from '../pool/index.js';
import { ProgressWriter } from './progress-writer.js';
import { type FleetConnection, type FleetLocation, fleetKeys, redisClient } from './redis.js';
import { RedisConversationStore, RedisPauseStore } from './redis-stores.js';
import type { FleetConversationState, FleetJob, FleetResult } from './types.js';

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
   * and the Redis connections. Idempotent.
   */
  close(options?: { graceMs?: number | undefined }): Promise<void>;
}

/** The rate-limit retries a job has used, kept in its data. */
interface StoredJob extends FleetJob {
  rateLimitRetries?: number;
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

/** Starts a worker; resolves once it is connected and taking jobs. */
export async function createFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  checkNumber('concurrency', options.concurrency, 1);
  checkNumber('lockDurationMs', options.lockDurationMs, 100);
  checkNumber('stalledIntervalMs', options.stalledIntervalMs, 100);
  checkNumber('maxStalledCount', options.maxStalledCount, 0);
  checkNumber('progressBatchMs', options.progressBatchMs, 0);
  checkNumber('rateLimitRetries', options.rateLimitRetries, 0);
  checkNumber('shutdownGraceMs', options.shutdownGraceMs, 0);
  const keys = fleetKeys(options);
  const logger = options.pool.logger ?? consoleLogger;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}`;
  const batchMs = options.progressBatchMs ?? 100;
  const maxRateLimitRetries = options.rateLimitRetries ?? 5;
  const redis = redisClient(options.connection);
  const subscriber = redis.duplicate();
  const pauses = new RedisPauseStore(redis, subscriber, keys, (err) =>
    logger.warn('fleet: writing a rate-limit pause to Redis failed', err),
  );
  const pool = new AgentPool({
    ...options.pool,
    pauses,
    conversations: new RedisConversationStore(redis, keys),
  });
  /** Jobs running here, so a shutdown can hand them back. */
  const active = new Set<{ abort: AbortController; handBack: boolean }>();
  let closing: Promise<void> | undefined;

  const handBack = async (job: Job<FleetJob, FleetResult>, token: string | undefined): Promise<never> => {
    // Back to the queue without spending an attempt: the next free worker takes it at once.
    await job.moveToDelayed(Date.now(), token);
    throw new DelayedError();
  };

  const processor = async (job: Job<FleetJob, FleetResult>, token?: string): Promise<FleetResult> => {
    const data = job.data as StoredJob;
    if (typeof data?.key !== 'string' || typeof data.prompt !== 'string')
      throw new ConfigError('job', 'a fleet job needs a string key and prompt');
    if (closing) return handBack(job, token);
    const model = pool.modelOf(data.key);
    // Another worker's 429 pauses this one too: the job waits (delayed) instead of hammering the provider.
    const pausedUntil = await pauses.refresh(model);
    if (pausedUntil > Date.now()) {
      await job.moveToDelayed(pausedUntil, token);
      throw new DelayedError();
    }
    const progress = new ProgressWriter(job, batchMs, (err) =>
      logger.warn(`fleet: writing progress of job ${job.id} failed`, err),
    );
    const run = { abort: new AbortController(), handBack: false };
    active.add(run);
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
        throw err;
      }
      let resumeSeen = false;
      for await (const step of response.steps() as AsyncIterable<Step>) {
        if (step.type === 'system_message') resumeSeen = true;
        if (step.textDelta) progress.text(step.textDelta);
        if (step.tool && (step.state === 'DONE' || step.state === 'ERROR'))
          progress.event({ type: 'tool', name: step.tool.name, state: step.state });
      }
      const result = await response.result();
      if (run.handBack && result.status === 'canceled') {
        progress.event({ type: 'handed_back', workerId });
        await progress.flush();
        return await handBack(job, token);
      }
      const retries = data.rateLimitRetries ?? 0;
      if (
        (result.status === 'rate_limited' || result.status === 'quota_exhausted') &&
        retries < maxRateLimitRetries
      ) {
        // The pool paused the model (here and in Redis); the job runs again once the pause ends.
        const untilMs = Math.max(pauses.pausedUntil(model), Date.now() + (result.retryAfterMs ?? 0));
        progress.event({ type: 'rate_limited', untilMs });
        await progress.flush();
        await job.updateData({ ...data, rateLimitRetries: retries + 1 } as StoredJob);
        await job.moveToDelayed(untilMs, token);
        throw new DelayedError();
      }
      const costUsd = result.usage?.costUsd ?? null;
      progress.event({ type: 'done', status: result.status, costUsd });
      await progress.flush();
      return {
        status: result.status,
        text: result.text,
        usage: result.usage,
        costUsd,
        ...(result.structuredOutput !== undefined && { structuredOutput: result.structuredOutput }),
        conversationId: result.conversationId,
        conversation: conversationState(admission, resumeSeen),
        workerId,
        errorMessage: result.errorMessage,
        ...(result.retryAfterMs !== undefined && { retryAfterMs: result.retryAfterMs }),
      };
    } finally {
      active.delete(run);
      progress.dispose();
    }
  };

  const worker = new Worker<FleetJob, FleetResult>(keys.name, processor, {
    connection: redis,
    prefix: keys.prefix,
    concurrency: options.concurrency ?? options.pool.size,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 2,
    autorun: false,
  });
  worker.on('error', (err) => logger.error('fleet: worker error', err));
  try {
    await pauses.start();
    await worker.waitUntilReady();
  } catch (err) {
    await worker.close().catch(() => {});
    await pool.close();
    subscriber.disconnect();
    redis.disconnect();
    throw err;
  }
  void worker.run().catch((err) => logger.error('fleet: worker stopped', err));

  const onSignal = () => void close();
  const close = (closeOptions: { graceMs?: number | undefined } = {}): Promise<void> => {
    closing ??= (async () => {
      if (options.handleSignals) {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
      const graceMs = closeOptions.graceMs ?? options.shutdownGraceMs ?? 30_000;
      const stopped = worker.close();
      const timer = setTimeout(() => {
        for (const run of active) {
          run.handBack = true;
          run.abort.abort();
        }
      }, graceMs);
      try {
        await stopped;
      } finally {
        clearTimeout(timer);
        await pool.close();
        subscriber.disconnect();
        redis.disconnect();
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
