/**
 * Counts only the timers a part of the SDK makes, under `vi.useFakeTimers()`: `vi.getTimerCount()` counts every
 * fake timer, and vitest's worker makes timers of its own under load (its RPC batching), which then count too.
 * Call after `vi.useFakeTimers()`; the spies go with `vi.restoreAllMocks()`, which the file's `afterEach` must
 * call before `vi.useRealTimers()`.
 */
import { vi } from 'vitest';

/** The SDK's timers made from files under `src/<folder>/`: how many were made, how many are still pending. */
export interface OwnTimers {
  /** Timers made so far. */
  made(): number;
  /** Timers neither fired (timeouts) nor cleared. */
  pending(): number;
}

export function ownTimers(folder: string): OwnTimers {
  const from = new RegExp(`[\\\\/]src[\\\\/]${folder}[\\\\/]`);
  const live = new Set<unknown>();
  let made = 0;
  const fakeTimeout = globalThis.setTimeout;
  const fakeInterval = globalThis.setInterval;
  const fakeClearTimeout = globalThis.clearTimeout;
  const fakeClearInterval = globalThis.clearInterval;
  const ours = () => from.test(new Error().stack ?? '');
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
    fn: (...a: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ) => {
    if (!ours()) return fakeTimeout(fn, ms, ...args);
    made++;
    const handle = fakeTimeout(() => {
      live.delete(handle);
      fn(...args);
    }, ms);
    live.add(handle);
    return handle;
  }) as typeof setTimeout);
  vi.spyOn(globalThis, 'setInterval').mockImplementation(((
    fn: (...a: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ) => {
    const handle = fakeInterval(fn, ms, ...args);
    if (ours()) {
      made++;
      live.add(handle);
    }
    return handle;
  }) as typeof setInterval);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((handle?: NodeJS.Timeout) => {
    live.delete(handle);
    fakeClearTimeout(handle);
  }) as typeof clearTimeout);
  vi.spyOn(globalThis, 'clearInterval').mockImplementation(((handle?: NodeJS.Timeout) => {
    live.delete(handle);
    fakeClearInterval(handle);
  }) as typeof clearInterval);
  return { made: () => made, pending: () => live.size };
}
