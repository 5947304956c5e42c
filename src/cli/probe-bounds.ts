/**
 * How long the CLI's probes of agy may run (`doctor`'s `agy --version`, `agy models` and `agy -p /hooks`;
 * each `--conformance` probe's turn), and how long agy then gets between SIGTERM and SIGKILL. Two variables
 * override the defaults, for a slow machine or a test that must not wait the production bounds.
 */
import { ConfigError } from '../index.js';
import { DEFAULT_TERM_GRACE_MS } from '../platform/index.js';

/** The bound on each probe, in ms (default: the command's own). */
export const PROBE_TIMEOUT_VAR = 'AGY_SDK_PROBE_TIMEOUT_MS';
/** From SIGTERM to SIGKILL of a probe past its bound, in ms (default {@link DEFAULT_TERM_GRACE_MS}). */
export const PROBE_GRACE_VAR = 'AGY_SDK_PROBE_GRACE_MS';

/** A probe's bounds. */
export interface ProbeBounds {
  /** From the spawn to SIGTERM. */
  timeoutMs: number;
  /** From SIGTERM to SIGKILL. */
  graceMs: number;
}

/**
 * The bounds `env` sets, else `defaultTimeoutMs` and {@link DEFAULT_TERM_GRACE_MS}.
 *
 * @throws ConfigError naming the variable when it is set but not a whole number of ms (at least 1 for the
 *   timeout, 0 for the grace).
 */
export function probeBounds(env: NodeJS.ProcessEnv, defaultTimeoutMs: number): ProbeBounds {
  return {
    timeoutMs: readMs(env, PROBE_TIMEOUT_VAR, 1) ?? defaultTimeoutMs,
    graceMs: readMs(env, PROBE_GRACE_VAR, 0) ?? DEFAULT_TERM_GRACE_MS,
  };
}

function readMs(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min)
    throw new ConfigError(name, `must be a whole number of milliseconds, at least ${min}; got "${text}"`);
  return value;
}
