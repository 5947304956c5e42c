/**
 * The interval of `every()`, read so that it cannot be misread. Python's `every(interval_seconds, fn)` takes
 * seconds; a bare number here has always meant milliseconds, so a call ported as written (`every(60, fn)`)
 * would fire 16 times a second. The interval therefore says its unit (`'60s'`, `'500ms'`, `'5m'`, `'1h'`), and
 * a bare number is refused below 1000: no sub-second interval without the unit saying so. A bare number of at
 * least 1000 is still milliseconds (the form documented before units), with a warning naming the unit form;
 * such numbers will be refused too in a later release.
 */

import { ConfigError } from '../errors.js';
import { durationProblem } from '../internal/duration.js';
import { MAX_TIMER_MS } from '../internal/timing.js';

/** A unit `every()` reads: milliseconds, seconds, minutes, hours. */
export type IntervalUnit = 'ms' | 's' | 'm' | 'h';

/**
 * An interval with its unit, e.g. `'60s'`, `'500ms'`, `'1.5m'`, `'1h'`; or a bare number of milliseconds of at
 * least 1000 (deprecated: a bare number is refused below 1000 and warned about above).
 */
export type EveryInterval = `${number}${IntervalUnit}` | number;

const UNIT_MS: Record<IntervalUnit, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const FORM = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** The smallest bare number `every()` takes (below it, the unit must be written). */
export const BARE_MIN_MS = 1000;

/** What `every()` made of its interval. */
export interface ReadInterval {
  /** The interval in milliseconds. */
  ms: number;
  /** How to write it (`'60s'`, or `'60000ms'` for a bare number). */
  label: string;
  /** Set for a bare number: the warning to log once at start. */
  warning?: string | undefined;
}

/** Reads `every()`'s interval; throws `ConfigError('every.interval')` naming what was wrong and the fix. */
export function readInterval(interval: unknown): ReadInterval {
  const field = 'every.interval';
  if (typeof interval === 'number') {
    if (Number.isFinite(interval) && interval > 0 && interval < BARE_MIN_MS) {
      throw new ConfigError(
        field,
        `every(${interval}) is ambiguous: a bare number is milliseconds here, but Python's every() takes ` +
          `seconds. Write the unit: every('${interval}s', fn) for ${interval} seconds, or ` +
          `every('${interval}ms', fn) for ${interval} milliseconds`,
      );
    }
    check(field, interval, String(interval));
    return {
      ms: interval,
      label: `${interval}ms`,
      warning:
        `every(${interval}): a bare number is read as milliseconds (${interval / 1000} s); write ` +
        `every('${interval}ms', fn) or every('${interval / 1000}s', fn). Bare numbers will be refused in a later release`,
    };
  }
  if (typeof interval !== 'string') {
    throw new ConfigError(
      field,
      `must be a string with a unit such as '60s' or '500ms', got ${typeof interval}`,
    );
  }
  const m = FORM.exec(interval.trim());
  if (!m) {
    throw new ConfigError(
      field,
      `${JSON.stringify(interval)} is not an interval: write a number and one of the units ms, s, m, h (e.g. '60s', '500ms', '5m')`,
    );
  }
  const ms = Number(m[1]) * UNIT_MS[m[2] as IntervalUnit];
  check(field, ms, JSON.stringify(interval));
  return { ms, label: interval.trim() };
}

/** At least 1 ms (a timer fires no sooner) and at most Node's timer maximum (longer ones fire at once). */
function check(field: string, ms: number, written: string): void {
  if (durationProblem(ms, { min: 1 }) === undefined) return;
  throw new ConfigError(
    field,
    `${written} is ${ms} ms; an interval must be at least 1 ms and at most ${MAX_TIMER_MS} ms (about 24.8 days)`,
  );
}
