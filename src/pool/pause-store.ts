/**
 * The shared rate-limit state of a pool: which (provider, model) is paused, and until when. One pool keeps it
 * in memory; a fleet shares it through Redis (`agy-sdk/fleet`), so a 429 on one machine pauses every machine.
 */

/** Where a pool keeps its rate-limit pauses. Reads are synchronous: a pool decides admission without waiting. */
export interface PauseStore {
  /** Pauses `model` (a `provider:model` key) until `untilMs` (epoch ms). A later pause wins; an earlier one is ignored. */
  pause(model: string, untilMs: number): void;
  /** Until when `model` is paused (epoch ms); 0 or a past time when it is not. */
  pausedUntil(model: string): number;
  /**
   * Calls `listener` when a pause set elsewhere (another pool, another machine) arrives, so a waiting pool
   * re-checks its queue. Returns the unsubscribe function. Optional: a purely local store never needs it.
   */
  subscribe?(listener: () => void): () => void;
}

/** A `PauseStore` in this process's memory (the default of an `AgentPool`). */
export class MemoryPauseStore implements PauseStore {
  readonly #until = new Map<string, number>();

  /** Pauses `model` until `untilMs` unless it is already paused for longer. */
  pause(model: string, untilMs: number): void {
    if (untilMs > (this.#until.get(model) ?? 0)) this.#until.set(model, untilMs);
  }

  /** Until when `model` is paused (epoch ms), 0 when it never was; a past pause is forgotten. */
  pausedUntil(model: string): number {
    const until = this.#until.get(model) ?? 0;
    if (until !== 0 && until <= Date.now()) this.#until.delete(model);
    return until;
  }
}

/** The back-off used when a rate-limited turn states no reset time. */
export interface BackoffOptions {
  /** The first pause, in ms. Default 2,000. */
  baseMs?: number | undefined;
  /** The longest pause, in ms. Default 120,000. */
  maxMs?: number | undefined;
}

/**
 * The jittered exponential back-off after the `attempt`-th (1-based) consecutive rate limit of a model:
 * `min(maxMs, baseMs · 2^(attempt-1))`, scaled by a random factor in [0.5, 1) ("equal jitter"), so pools
 * that were limited together do not all come back at the same instant.
 */
export function backoffMs(attempt: number, options: BackoffOptions = {}, random = Math.random): number {
  const base = options.baseMs ?? 2_000;
  const max = options.maxMs ?? 120_000;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}
