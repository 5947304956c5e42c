/**
 * The turn that is running: what it accumulates (the tracker), where its steps go (the sink), how it was asked
 * to end, and its watchdog. It ends once, with the process's exit or `null` after the turn's `result`.
 */
import {
  type AgySdkError,
  LineTooLongError,
  ProcessExitError,
  WatchdogTimeoutError,
} from '../../../errors.js';
import type { Logger } from '../../../logger.js';
import type { Step } from '../../../model/step.js';
import type { TurnSink } from '../../connection.js';
import type { ExitInfo } from '../../process/child-process.js';
import type { AgyEvent } from './agy-event.js';
import type { AgyProcess } from './agy-process.js';
import type { TurnRequestedEnd } from './outcome.js';
import type { TurnTracker } from './turn-tracker.js';

/** The start of agy's `result` line (docs/reference/stream-json.md#envelope: `{"event":"result",…}`). */
const RESULT_LINE_HEAD = /^\s*\{\s*"event"\s*:\s*"result"/;

let nextTurnId = 0;

/** One running turn of the agy connection (a stream-json turn or a slash command's print-mode run). */
export class ActiveTurn {
  /** Names the turn in its watchdog's `stall` events (a late one of an ended turn is ignored). */
  readonly id = ++nextTurnId;
  /** What the turn produced so far. */
  readonly tracker: TurnTracker;
  /** Where its steps go. */
  readonly sink: TurnSink;
  /** How the SDK asked it to end (interrupt, cancel, watchdog), if it did. */
  requested: TurnRequestedEnd = null;
  /** The user line has been written to agy. */
  sent = false;
  /** The process the turn runs in; output of any other (an old one still shutting down) is ignored. */
  process: AgyProcess | undefined;
  /** The typed error the turn ends with, when something on our side decided it (overflow, stall, exit). */
  error: AgySdkError | undefined;
  /** When agy last showed activity (`performance.now()`): the idle watchdog measures quiet from here. */
  lastActivity = 0;
  /** Stops a slash command's print-mode run (set only for those). */
  readonly stopCommand: (() => void) | undefined;
  #finish: (exit: ExitInfo | null) => void = () => {};
  #timers: NodeJS.Timeout[] = [];
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(tracker: TurnTracker, sink: TurnSink, stopCommand?: () => void) {
    this.tracker = tracker;
    this.sink = sink;
    this.stopCommand = stopCommand;
  }

  /** Settles with the turn's end: `null` after its `result`, the exit when the process ended it. */
  ended(): Promise<ExitInfo | null> {
    return new Promise((resolve) => {
      this.#finish = resolve;
    });
  }

  /** Ends the turn (a second call is a no-op: the promise settled). */
  finish(exit: ExitInfo | null): void {
    this.#finish(exit);
  }

  /**
   * Ends the turn once the event loop drained what is readable: stdout and stderr are separate pipes, and a
   * stderr marker agy wrote just before its `result` (print timeout, quota) may not have been read yet.
   */
  finishAfterDrain(): void {
    setImmediate(() => setImmediate(() => this.#finish(null)));
  }

  /**
   * A stdout line over `maxLineBytes` was dropped during the turn: it fails closed. The result repeats the turn's
   * whole text (`response`, docs/reference/stream-json.md#text-streaming), so a turn with one long text has an
   * even longer result line; when that is the one dropped, nothing else ends the turn: it ends now.
   */
  lineDropped(head: string, maxLineBytes: number): void {
    this.tracker.lineTooLong = true;
    this.error ??= new LineTooLongError(maxLineBytes);
    if (RESULT_LINE_HEAD.test(head) && !this.tracker.resultTooLong) {
      this.tracker.resultTooLong = true;
      this.finishAfterDrain();
    }
  }

  /** The watchdog fired: true when that ends the turn (`timeout`), false when it was already asked to end. */
  timedOut(kind: 'idle' | 'turn', limitMs: number, stderrTail: string): boolean {
    if (this.requested) return false;
    this.requested = 'timeout';
    this.error = new WatchdogTimeoutError(
      kind,
      limitMs,
      Date.now() - this.tracker.startedAt,
      this.tracker.lastLine,
      stderrTail,
    );
    return true;
  }

  /** agy exited during the turn, before its `result`: the turn ends with the exit (an error unless asked). */
  exited(exit: ExitInfo, stderrTail: string): void {
    if (this.tracker.result) return;
    if (!this.requested) {
      this.error ??= new ProcessExitError(
        exit.signal
          ? `agy was killed by ${exit.signal} during the turn`
          : `agy exited with code ${exit.code} during the turn`,
        { exitCode: exit.code, signal: exit.signal, stderrTail },
      );
    }
    this.finish(exit);
  }

  /** Delivers a step to the sink; a consumer's bug must not break the transport (reported, reading goes on). */
  deliver(step: Step, logger: Logger): void {
    try {
      this.sink.onStep(step);
    } catch (err) {
      logger.error('a turn sink threw while handling a step; the step was dropped for it', err);
    }
  }

  /**
   * Arms the stall watchdog: a `stall` event goes into `events` (the process's stream, read by the same switch)
   * when agy is quiet for `idleMs` or the turn runs `turnMs`.
   */
  armWatchdog(
    idleMs: number | undefined,
    turnMs: number | undefined,
    events: { push(e: AgyEvent): void },
  ): void {
    if (idleMs && idleMs > 0) {
      // Activity only stamps `lastActivity`; the timer looks at it when it fires and waits out the rest of the
      // limit. Refreshing the timer on every line cost a timer-list insert per event on the hot path.
      const check = (): void => {
        const quietMs = performance.now() - this.lastActivity;
        if (quietMs >= idleMs) events.push({ type: 'stall', kind: 'idle', limitMs: idleMs, turnId: this.id });
        else this.#idleTimer = setTimeout(check, Math.ceil(idleMs - quietMs));
      };
      this.lastActivity = performance.now();
      this.#idleTimer = setTimeout(check, idleMs);
    }
    if (turnMs && turnMs > 0) {
      this.#timers.push(
        setTimeout(
          () => events.push({ type: 'stall', kind: 'turn', limitMs: turnMs, turnId: this.id }),
          turnMs,
        ),
      );
    }
  }

  /** Stops the idle watchdog (the turn is being stopped). */
  stopIdleWatch(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  /** Adds a timer that dies with the turn (the interrupt's grace). */
  addTimer(timer: NodeJS.Timeout): void {
    this.#timers.push(timer);
  }

  /** Clears every timer of the turn. */
  clearTimers(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers = [];
    this.stopIdleWatch();
  }
}
