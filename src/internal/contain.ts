/**
 * Runs a user callback so that it cannot take the host down: a throw, or a rejection of a promise it returns
 * (an `async` callback fits a `void` signature), is reported through the logger and goes no further. These
 * callbacks run inside stream and socket handlers, where an escaping exception is uncaught and ends the
 * process.
 */
import type { Logger } from '../logger.js';
import { isThenable } from './guards.js';

/** Calls `fn(...args)`; failures are logged as `<what> threw` and never propagate. */
export function callContained<A extends unknown[]>(
  logger: Logger,
  what: string,
  fn: ((...args: A) => unknown) | undefined,
  ...args: A
): void {
  if (!fn) return;
  try {
    const result = fn(...args);
    if (isThenable(result)) {
      result.then(undefined, (error: unknown) => report(logger, what, error));
    }
  } catch (error) {
    report(logger, what, error);
  }
}

function report(logger: Logger, what: string, error: unknown): void {
  try {
    logger.error(`${what} threw; the SDK carried on without it`, error);
  } catch {
    // A logger that throws has nowhere left to report to; the host must still not crash.
  }
}
