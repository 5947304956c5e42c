/** `every(ms, fn)`: a fixed-rate timer trigger. */

import { UsageError } from '../errors.js';
import type { MaybePromise } from '../hooks/types.js';
import { MAX_TIMER_MS } from '../internal/timing.js';
import { describeError } from '../logger.js';
import type { TriggerContext, TriggerObject } from './types.js';

/** Options of {@link every}. */
export interface EveryOptions {
  /** Name for logs; defaults to `every(<fn name or interval>)`. */
  name?: string;
}

/**
 * Calls `fn` every `intervalMs`. The first call comes one interval after start, not immediately. Runs never
 * overlap: a tick that comes while the previous run is still going is skipped. Errors are logged and the
 * timer keeps going. `stop()` clears the timer and waits for a run in progress.
 */
export function every(
  intervalMs: number,
  fn: (ctx: TriggerContext) => MaybePromise<void>,
  options: EveryOptions = {},
): TriggerObject {
  if (!Number.isFinite(intervalMs) || intervalMs <= 0 || intervalMs > MAX_TIMER_MS) {
    throw new RangeError(`every(): interval must be > 0 and <= 2^31-1 ms (got ${intervalMs})`);
  }
  if (typeof fn !== 'function') throw new TypeError('every(): fn must be a function');
  const name = options.name ?? `every(${fn.name || `${intervalMs}ms`})`;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  return {
    name,
    start(ctx) {
      if (timer !== undefined) throw new UsageError(`Trigger '${name}' is already started`);
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
