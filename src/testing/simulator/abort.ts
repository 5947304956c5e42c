/**
 * Cancelling a running turn. SIGINT and the `--print-timeout` timer abort the turn's signal; the turn runner
 * notices at its next await (never in the middle of a line) and ends the turn the way agy would.
 */

/** Why a turn was cut short. */
export type AbortReason = 'interrupt' | 'printTimeout';

/** Thrown inside a turn once its signal is aborted. */
export class TurnAborted extends Error {
  constructor(readonly reason: AbortReason) {
    super(`turn aborted: ${reason}`);
  }
}

/** Throws `TurnAborted` if the turn has been aborted. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new TurnAborted(signal.reason as AbortReason);
}

/** Waits `ms`, or rejects with `TurnAborted` as soon as the turn is aborted. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new TurnAborted(signal.reason as AbortReason));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Waits until the turn is aborted (a stall, a hung tool). A long ref'd interval keeps the process alive even
 * after stdin has closed: only a signal or the print timeout ends a stall, as with a wedged agy.
 */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const keepAlive = setInterval(() => {}, 1 << 30);
    const onAbort = (): void => {
      clearInterval(keepAlive);
      reject(new TurnAborted(signal.reason as AbortReason));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
