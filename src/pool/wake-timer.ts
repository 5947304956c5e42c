/** The pool's one timer: it wakes the pool when the earliest pause of a waiting run ends. */

import { MAX_TIMER_MS } from '../internal/timing.js';

/** One timer, re-armed for the earliest pause end; re-arming for the same moment keeps it. */
export class WakeTimer {
  readonly #onWake: () => void;
  #timer: NodeJS.Timeout | undefined;
  #at = 0;

  /** `onWake` runs when the armed moment comes (never while cancelled). */
  constructor(onWake: () => void) {
    this.#onWake = onWake;
  }

  /** Wakes at `atMs` (epoch ms; `Infinity` cancels), measured from `nowMs`. */
  arm(atMs: number, nowMs: number): void {
    if (atMs === Number.POSITIVE_INFINITY) {
      this.cancel();
      return;
    }
    if (this.#timer && this.#at === atMs) return;
    this.cancel();
    this.#at = atMs;
    // A far reset ("Resets in 700h…") is past Node's timer maximum, which would fire at once, again and
    // again: wake at the maximum at most, and re-arm from there.
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#onWake();
      },
      Math.min(atMs - nowMs + 1, MAX_TIMER_MS),
    );
  }

  /** Stops the timer, if armed. */
  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
