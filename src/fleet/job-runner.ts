/**
 * The worker's job processor: one fleet job is one turn on the worker's `AgentPool`, its progress written as
 * events, its result recorded per attempt. A job is handed back (not failed) while the worker shuts down, and
 * delayed (not failed) while its model is paused by a rate limit anywhere in the fleet.
 */

import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { ConfigError } from '../errors.js';
import { describeError, type Logger } from '../logger.js';
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import type { AgentPool, PoolAdmission } from '../pool/index.js';
import { checkStoredJob, type StoredJob } from './job-schema.js';
import { ProgressWriter } from './progress-writer.js';
import type { RedisPauseStore } from './redis-stores.js';
import { attemptOf, type TurnRecords } from './turn-records.js';
import type { FleetConversationState, FleetJob, FleetResult } from './types.js';

type FleetBullJob = Job<FleetJob, FleetResult>;
/** The pool's streamed response to a turn. */
type ChatResponse = Awaited<ReturnType<AgentPool['run']>>;

/** A job running here, so a shutdown can hand it back. */
export interface ActiveRun {
  /** Cancels the turn. */
  abort: AbortController;
  /** Set by a shutdown past its grace: the canceled turn goes back to the queue. */
  handBack: boolean;
  /** The job, for the log of a forced close. */
  jobId: string | undefined;
}

/** What the runner works with. */
export interface JobRunnerParts {
  /** The worker's pool. */
  pool: AgentPool;
  /** The pool's pauses, shared through Redis. */
  pauses: RedisPauseStore;
  /** The turns ran, per attempt. */
  records: TurnRecords;
  /** Where progress-write failures are reported. */
  logger: Logger;
  /** This worker's id, in events and results. */
  workerId: string;
  /** Streamed text is written as one `text` event per this many ms. */
  batchMs: number;
  /** How many times a rate-limited turn is delayed and run again. */
  maxRateLimitRetries: number;
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

/** The job's result from its turn. */
function resultOf(turn: TurnResult, conversation: FleetConversationState, workerId: string): FleetResult {
  return {
    status: turn.status,
    text: turn.text,
    usage: turn.usage,
    costUsd: turn.usage?.costUsd ?? null,
    ...(turn.structuredOutput !== undefined && { structuredOutput: turn.structuredOutput }),
    conversationId: turn.conversationId,
    conversation,
    workerId,
    errorMessage: turn.errorMessage,
    ...(turn.retryAfterMs !== undefined && { retryAfterMs: turn.retryAfterMs }),
  };
}

/** Moves the job to run again at `atMs` without spending an attempt (BullMQ's delayed job). */
async function delay(job: FleetBullJob, atMs: number, token: string | undefined): Promise<never> {
  await job.moveToDelayed(atMs, token);
  throw new DelayedError();
}

/** A failure that can never succeed on a retry (bad job data, refused options): the job fails once. */
function unrecoverable(err: unknown): unknown {
  return err instanceof ConfigError ? new UnrecoverableError(describeError(err)) : err;
}

/** Runs fleet jobs on the pool; `process` is BullMQ's processor. */
export class JobRunner {
  /** Jobs running here, so a shutdown can hand them back. */
  readonly active = new Set<ActiveRun>();
  /** Set when the worker begins to close: a job taken from then on is handed back at once. */
  closing = false;
  readonly #parts: JobRunnerParts;

  /** Runs on `parts.pool`. */
  constructor(parts: JobRunnerParts) {
    this.#parts = parts;
  }

  /** BullMQ's processor (bound). */
  readonly process = async (job: FleetBullJob, token?: string): Promise<FleetResult> => {
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
    const known = await this.#parts.records.known(attempt);
    if (known) return known;
    // Back to the queue without spending an attempt: the next free worker takes it at once.
    if (this.closing) return delay(job, Date.now(), token);
    let model: string;
    try {
      model = this.#parts.pool.modelOf(data.key);
    } catch (err) {
      throw unrecoverable(err);
    }
    // Another worker's 429 pauses this one too: the job waits (delayed) instead of hammering the provider.
    const pausedUntil = await this.#parts.pauses.refresh(model);
    if (pausedUntil > Date.now()) return delay(job, pausedUntil, token);
    return this.#runTurn(job, token, data, model, attempt);
  };

  /** Runs the job's turn, its progress written, its result recorded for the attempt. */
  async #runTurn(
    job: FleetBullJob,
    token: string | undefined,
    data: StoredJob,
    model: string,
    attempt: string,
  ): Promise<FleetResult> {
    const { logger, workerId, records } = this.#parts;
    const progress = new ProgressWriter(job, this.#parts.batchMs, (err) =>
      logger.warn(`fleet: writing progress of job ${job.id} failed`, err),
    );
    const run: ActiveRun = { abort: new AbortController(), handBack: false, jobId: job.id };
    this.active.add(run);
    const record = records.begin(attempt);
    let result: FleetResult | undefined;
    try {
      const admitted: { admission?: PoolAdmission } = {};
      let response: ChatResponse;
      try {
        response = await this.#startTurn(data, run, progress, admitted);
      } catch (err) {
        if (run.handBack) {
          await progress.flush();
          return await delay(job, Date.now(), token);
        }
        // The job's own options were refused (checked before any agent was touched): it can never succeed.
        throw unrecoverable(err);
      }
      const resumeSeen = await this.#follow(response, progress);
      const turn = await response.result();
      if (run.handBack && turn.status === 'canceled') {
        progress.event({ type: 'handed_back', workerId });
        await progress.flush();
        return await delay(job, Date.now(), token);
      }
      await this.#retryIfRateLimited(job, token, data, model, turn, progress);
      result = resultOf(turn, conversationState(admitted.admission, resumeSeen), workerId);
      // Recorded in Redis (written once Redis takes it, before the job can complete) for a retry of this
      // attempt on any worker; here, a retry gets it once the `done` event is written, so `done` always comes
      // before the job's completion.
      progress.event({ type: 'done', status: turn.status, costUsd: result.costUsd });
      records.write(attempt, result);
      await progress.flush();
      record.settle(result);
      return result;
    } finally {
      this.active.delete(run);
      progress.dispose();
      record.end(result);
    }
  }

  /** Hands the prompt to the pool; `admitted` gets the admission, and the `started` event is written. */
  #startTurn(
    data: StoredJob,
    run: ActiveRun,
    progress: ProgressWriter,
    admitted: { admission?: PoolAdmission },
  ): Promise<ChatResponse> {
    return this.#parts.pool.run(data.key, data.prompt, {
      signal: run.abort.signal,
      turnTimeoutMs: data.config?.turnTimeoutMs,
      responseSchema: data.config?.responseSchema,
      onAdmitted: (a) => {
        admitted.admission = a;
        progress.event({
          type: 'started',
          workerId: this.#parts.workerId,
          conversationId: a.conversationId,
          resumedFrom: a.resumedFrom,
          pid: a.pid,
        });
      },
    });
  }

  /** Writes the turn's text and finished tools as progress; true when agy confirmed a resume. */
  async #follow(response: ChatResponse, progress: ProgressWriter): Promise<boolean> {
    let resumeSeen = false;
    for await (const step of response.steps() as AsyncIterable<Step>) {
      if (step.type === 'system_message') resumeSeen = true;
      if (step.textDelta) progress.text(step.textDelta);
      if (step.tool && (step.state === 'DONE' || step.state === 'ERROR'))
        progress.event({ type: 'tool', name: step.tool.name, state: step.state });
    }
    return resumeSeen;
  }

  /** A rate-limited turn with retries left: the job runs again once the model's pause ends (throws). */
  async #retryIfRateLimited(
    job: FleetBullJob,
    token: string | undefined,
    data: StoredJob,
    model: string,
    turn: TurnResult,
    progress: ProgressWriter,
  ): Promise<void> {
    const retries = data.rateLimitRetries ?? 0;
    if (turn.status !== 'rate_limited' && turn.status !== 'quota_exhausted') return;
    if (retries >= this.#parts.maxRateLimitRetries) return;
    // The pool paused the model (here and in Redis); the job runs again once the pause ends.
    const untilMs = Math.max(this.#parts.pauses.pausedUntil(model), Date.now() + (turn.retryAfterMs ?? 0));
    progress.event({ type: 'rate_limited', untilMs });
    await progress.flush();
    await job.updateData({ ...data, rateLimitRetries: retries + 1 } as StoredJob);
    await delay(job, untilMs, token);
  }
}
