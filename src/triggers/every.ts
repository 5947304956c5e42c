/** `every(interval, fn)`: a fixed-rate timer trigger. */

import { ConfigError, UsageError } from '../errors.js';
import type { MaybePromise } from '../hooks/types.js';
import { describeError } from '../logger.js';
import { type EveryInterval, readInterval } from './interval.js';
import type { TriggerContext, TriggerObject } from './types.js';

/** Options of {@link every}. */
export interface EveryOptions {
  /** Name for logs; defaults to `every(<fn name or interval>)`. */
  name?: string;
}

/**
 * Calls `fn` every `interval`, written with its unit: `every('60s', fn)`, `every('500ms', fn)`, `every('5m', fn)`,
 * `every('1h', fn)`. The first call comes one interval after start, not immediately. Runs never overlap: a tick
 * that comes while the previous run is still going is skipped. Errors are logged and the timer keeps going.
 * `stop()` clears the timer and waits for a run in progress.
 *
 * Python's `every(interval_seconds, fn)` takes seconds; a bare number here is milliseconds, so a bare number
 * below 1000 (`every(60, fn)`, ported from Python) is refused with a `ConfigError` that names both readings. A
 * bare number of at least 1000 still works as milliseconds, with a warning at start; write the unit instead.
 *
 * @throws ConfigError (`field` `every.interval` or `every.fn`) for an interval without a readable unit, a bare
 * number below 1000, an interval under 1 ms or over Node's timer maximum (about 24.8 days), or a `fn` that is not a
 * function.
 */
export function every(
  interval: EveryInterval,
  fn: (ctx: TriggerContext) => MaybePromise<void>,
  options: EveryOptions = {},
): TriggerObject {
  const { ms: intervalMs, label, warning } = readInterval(interval);
  if (typeof fn !== 'function') throw new ConfigError('every.fn', `must be a function, got ${typeof fn}`);
  const name = options.name ?? `every(${fn.name || label})`;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  return {
    name,
    start(ctx) {
      if (timer !== undefined) throw new UsageError(`Trigger '${name}' is already started`);
      if (warning !== undefined) ctx.logger.warn(`trigger '${name}': ${warning}`);
      timer = setInterval(() => {
        if (ctx.signal.aborted) return;
        if (running) {
          ctx.logger.debug(`trigger '${name}': previous run still in progress; skipping this tick`);
          return;
        }
        running = (async () => {
          try {
            await fn(ctx);
          } catch (error) {
            ctx.logger.error(`trigger '${name}' failed: ${describeError(error)}`, error);
          }
        })().finally(() => {
          running = undefined;
        });
      }, intervalMs);
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
