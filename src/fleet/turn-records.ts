/**
 * The turns a worker ran, by job attempt, while their result may still be unwritten: a job whose lock was lost
 * (Redis down longer than `lockDurationMs`) comes back for the same attempt, and gets the turn's result (or waits
 * for the running turn) instead of sending the prompt to agy again. Kept in memory for this worker and in Redis
 * for any worker, until the job ends.
 */

import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { describeError, type Logger } from '../logger.js';
import type { FleetKeys } from './redis.js';
import type { FleetJob, FleetResult } from './types.js';

/** How long a finished turn's result is kept in Redis for a retry of the same attempt to find, in ms (a day). */
const RAN_RECORD_TTL_MS = 24 * 60 * 60 * 1000;
/** The most finished turns a worker remembers in memory for jobs it has not seen complete. */
const RAN_MEMORY_LIMIT = 1_000;

/** A job attempt's record key: the same attempt, retried after a lost lock, finds the turn it already ran. */
export function attemptOf(job: Job<FleetJob, FleetResult>): string {
  return `${job.id}:${job.attemptsMade}`;
}

/** The record of one running turn; `settle` resolves it (undefined: nothing to keep) and may be called again. */
export interface TurnRecord {
  /** Resolves waiting retries of the attempt with the result, or undefined; the first call counts. */
  settle(result: FleetResult | undefined): void;
  /** Forgets the attempt when the turn kept no result (a later retry runs it). */
  end(result: FleetResult | undefined): void;
}

/** The turns this worker ran, by attempt, and their records in Redis. */
export class TurnRecords {
  readonly #redis: Redis;
  readonly #keys: FleetKeys;
  readonly #logger: Logger;
  /** Resolves undefined when the turn ended without a result to keep (handed back, rate-limited, failed). */
  readonly #ran = new Map<string, Promise<FleetResult | undefined>>();

  /** Records in `redis` under the fleet's `keys`; failures are reported to `logger`. */
  constructor(redis: Redis, keys: FleetKeys, logger: Logger) {
    this.#redis = redis;
    this.#keys = keys;
    this.#logger = logger;
  }

  /** The result of this attempt's turn if it already ran here or on any worker (waiting for a running one). */
  known(attempt: string): Promise<FleetResult | undefined> {
    return this.#ran.get(attempt) ?? this.#read(attempt);
  }

  /** Records that this attempt's turn is running here. */
  begin(attempt: string): TurnRecord {
    let kept: (result: FleetResult | undefined) => void = () => {};
    const record = new Promise<FleetResult | undefined>((resolve) => {
      kept = resolve;
    });
    this.#ran.set(attempt, record);
    if (this.#ran.size > RAN_MEMORY_LIMIT) this.#ran.delete(this.#ran.keys().next().value as string);
    return {
      settle: (result) => kept(result),
      end: (result) => {
        kept(result);
        if (result === undefined && this.#ran.get(attempt) === record) this.#ran.delete(attempt);
      },
    };
  }

  /** Writes the attempt's result to Redis, in the background (written before the job can complete). */
  write(attempt: string, result: FleetResult): void {
    this.#redis
      .set(this.#keys.ran(attempt), JSON.stringify(result), 'PX', RAN_RECORD_TTL_MS)
      .catch((err: unknown) =>
        this.#logger.warn(
          `fleet: recording the turn of job attempt ${attempt} failed: ${describeError(err)}`,
        ),
      );
  }

  /** A job that ended here is done with its records (a later attempt has its own). */
  ended(job: Job<FleetJob, FleetResult> | undefined): void {
    if (!job?.id) return;
    for (const key of this.#ran.keys()) if (key.startsWith(`${job.id}:`)) this.#ran.delete(key);
    for (let attempt = 0; attempt <= job.attemptsMade; attempt++)
      void this.#redis.del(this.#keys.ran(`${job.id}:${attempt}`)).catch(() => {});
  }

  /** The result a worker recorded in Redis for this attempt, if any. */
  async #read(attempt: string): Promise<FleetResult | undefined> {
    const stored = await this.#redis.get(this.#keys.ran(attempt));
    if (stored === null) return undefined;
    try {
      return JSON.parse(stored) as FleetResult;
    } catch (err) {
      this.#logger.warn(
        `fleet: an unreadable turn record for job attempt ${attempt} was ignored: ${describeError(err)}`,
      );
      return undefined;
    }
  }
}
