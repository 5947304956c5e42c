/**
 * The one duration check: every option of the SDK that is a time in ms (the Agent's config, per-turn options,
 * the pool's, the fleet's, the gateway's) goes through it. Node clamps a timer longer than 2^31−1 ms (about
 * 24.8 days) to 1 ms, so a "very long" timeout would fire at once: such values are refused by name, never
 * silently shortened.
 */

import type { z } from 'zod/v4';
import { ConfigError } from '../errors.js';
import { zod } from './load-sync.js';
import { MAX_TIMER_MS } from './timing.js';

/** What a duration may be. */
export interface DurationRule {
  /** Whether 0 is allowed (meaning "off" or "at once", as the option documents). Default false. */
  allowZero?: boolean | undefined;
  /** The smallest allowed value above 0. Default: any positive number. */
  min?: number | undefined;
  /** Whether it must be a whole number of ms. Default false. */
  integer?: boolean | undefined;
}

/** Why `value` is not a duration under `rule`, or undefined when it is one. */
export function durationProblem(value: unknown, rule: DurationRule = {}): string | undefined {
  const zero = rule.allowZero ? ' (or 0 for off)' : '';
  const what = rule.integer ? 'a whole number of ms' : 'a number of ms';
  const floor = rule.min !== undefined ? ` ≥ ${rule.min}` : '';
  const expected = `must be ${what}${floor}${zero}, at most ${MAX_TIMER_MS} (about 24.8 days)`;
  if (typeof value !== 'number' || Number.isNaN(value)) return expected;
  if (value === 0 && rule.allowZero) return undefined;
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) return expected;
  if (rule.integer && !Number.isInteger(value)) return expected;
  if (rule.min !== undefined && value < rule.min) return expected;
  return undefined;
}

/** Throws `ConfigError(field)` unless `value` is undefined or a duration under `rule`. */
export function checkDuration(field: string, value: unknown, rule: DurationRule = {}): void {
  if (value === undefined) return;
  const problem = durationProblem(value, rule);
  if (problem !== undefined) throw new ConfigError(field, `${problem}, got ${describe(value)}`);
}

/** The zod form of the same check, for config schemas (the message is the one `checkDuration` gives; zod loads on first call). */
export function durationSchema(rule: DurationRule = {}): z.ZodType<number> {
  const expected = durationProblem(undefined, rule);
  return zod()
    .number({ error: expected })
    .refine((value) => durationProblem(value, rule) === undefined, { error: expected });
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
