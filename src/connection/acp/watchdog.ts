/**
 * The turn's watchdog: a stall timer that any sign of life from the agent (a stdout line, a request, an own-tool
 * call) starts over, and an optional whole-turn limit. When one fires, the turn gets a `WatchdogTimeoutError`
 * and is cancelled; every timer is cleared when the turn ends.
 */
import { WatchdogTimeoutError } from '../../errors.js';
import type { AcpTurn } from './acp-turn.js';

/** What the watchdog reads from, and acts on, the connection. */
export interface WatchdogDeps {
  /** Stall limit (ms); `0` is off. */
  readonly idleTimeoutMs: number;
  /** The running turn, if any. */
  current(): AcpTurn | undefined;
  /** The agent's recent stderr, for the error. */
  stderrTail(): string;
  /** Cancels the timed-out turn. */
  cancel(turn: AcpTurn): void;
}

/** The stall and whole-turn timers of the running turn. */
export class TurnWatchdog {
  readonly #deps: WatchdogDeps;
  #idleTimer: NodeJS.Timeout | undefined;
  #turnTimer: NodeJS.Timeout | undefined;

  constructor(deps: WatchdogDeps) {
    this.#deps = deps;
  }

  /** Starts both timers for `turn` (`turnLimit` 0 is no whole-turn limit). */
  arm(turn: AcpTurn, turnLimit: number): void {
    if (turnLimit > 0) this.#turnTimer = setTimeout(() => this.#fire(turn, 'turn', turnLimit), turnLimit);
    this.activity(undefined);
  }

  /** Clears both timers. */
  disarm(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#turnTimer);
    this.#idleTimer = undefined;
    this.#turnTimer = undefined;
  }

  /** A sign of life from the agent: the stall timer starts over; `what` becomes the turn's last event. */
  activity(what: string | undefined): void {
    const turn = this.#deps.current();
    if (!turn) return;
    if (what) turn.lastEvent = what;
    const limit = this.#deps.idleTimeoutMs;
    clearTimeout(this.#idleTimer);
    if (limit > 0) this.#idleTimer = setTimeout(() => this.#fire(turn, 'idle', limit), limit);
  }

  #fire(turn: AcpTurn, kind: 'idle' | 'turn', limit: number): void {
    if (this.#deps.current() !== turn || turn.timeout) return;
    this.disarm();
    turn.timeout = new WatchdogTimeoutError(
      kind,
      limit,
      Date.now() - turn.started,
      turn.lastEvent,
      this.#deps.stderrTail(),
      'the ACP agent',
    );
    this.#deps.cancel(turn);
  }
}
