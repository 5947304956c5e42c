/** The pool's counters: turns, rate limits, evictions, crashes, agent starts and their latency. */

import type { PoolStats } from './types.js';

/** Why an agent was started. */
export type StartReason = keyof PoolStats['starts'];

/** The counters of `PoolStats`, kept as events happen. */
export class PoolCounters {
  /** Turns, rate-limited turns, evictions and crashes so far. */
  readonly events = { turns: 0, rateLimited: 0, evicted: 0, crashed: 0 };
  readonly #starts = { cold: 0, warm: 0, resumed: 0 };
  readonly #latency = { count: 0, lastMs: 0, totalMs: 0, maxMs: 0 };

  /** Counts an agent start that took `ms`. */
  started(ms: number, reason: StartReason): void {
    const l = this.#latency;
    l.count++;
    l.lastMs = ms;
    l.totalMs += ms;
    l.maxMs = Math.max(l.maxMs, ms);
    this.#starts[reason]++;
  }

  /** The counter fields of `PoolStats`, now (copies). */
  snapshot(): Pick<PoolStats, 'turns' | 'rateLimited' | 'evicted' | 'crashed' | 'starts' | 'startLatency'> {
    const l = this.#latency;
    return {
      ...this.events,
      starts: { ...this.#starts },
      startLatency: {
        count: l.count,
        lastMs: l.lastMs,
        meanMs: l.count ? l.totalMs / l.count : 0,
        maxMs: l.maxMs,
      },
    };
  }
}
