/**
 * Paces synchronous work across the host: at most one piece per event-loop turn. A session's start writes its
 * directory and files synchronously on purpose (cheapest for one start: docs/architecture.md "Start path"), but
 * for many sessions started at once those pieces ran back to back, as each one's awaited I/O completed in the
 * same turn: 200 starts held the event loop for ~1.2 s, 500 for ~1.3 s, while nothing else of the host could
 * run. Through a lane, the first piece of a turn runs at once (a lone start waits for nothing) and each other
 * one in a later turn, with the loop's I/O polled between two.
 */
export class TurnLane {
  #usedThisTurn = false;
  readonly #waiting: Array<() => void> = [];

  /**
   * Undefined when the caller may run its piece now (nothing ran through the lane in this turn); otherwise a
   * promise that resolves in the turn the piece gets. The caller runs it synchronously right after.
   */
  take(): Promise<void> | undefined {
    if (!this.#usedThisTurn) {
      this.#use();
      return undefined;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Marks this turn used; the next check phase frees it and hands the next turn to the oldest waiter. */
  #use(): void {
    this.#usedThisTurn = true;
    // An immediate queued now runs in the next loop iteration's check phase, after its I/O poll.
    setImmediate(() => {
      this.#usedThisTurn = false;
      const next = this.#waiting.shift();
      if (next) {
        this.#use();
        next();
      }
    });
  }
}

/** The host's lane for the synchronous parts of session starts. */
export const sessionStartLane = new TurnLane();
