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

/** The cancels of each signal's pending delays: one abort listener per turn, not one per delay. */
const pendingDelays = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Waits `ms`, or rejects with `TurnAborted` as soon as the turn is aborted. A streaming action waits between
 * every two of its lines, so a delay only adds itself to its signal's set: an abort listener per delay, with its
 * bookkeeping, was ~0.3 KB of the ~4.6 KB of garbage the simulator made per streamed line (allocation profile of
 * bench/latency.mjs's turns).
 */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  let pending = pendingDelays.get(signal);
  if (pending === undefined) {
    const cancels = new Set<() => void>();
    pending = cancels;
    pendingDelays.set(signal, cancels);
    signal.addEventListener(
      'abort',
      () => {
        for (const cancel of cancels) cancel();
        cancels.clear();
      },
      { once: true },
    );
  }
  const cancels = pending;
  return new Promise((resolve, reject) => {
    const cancel = (): void => {
      clearTimeout(timer);
      reject(new TurnAborted(signal.reason as AbortReason));
    };
    const timer = setTimeout(() => {
      cancels.delete(cancel);
      resolve();
    }, ms);
    cancels.add(cancel);
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
