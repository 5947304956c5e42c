/**
 * The one logger every part of the SDK reports through. Contained failures (a hook that threw, a relay that
 * failed, a trigger error) are never swallowed: they are logged here, and the host decides where they go.
 */
import { ConfigError } from './errors.js';

/** A minimal leveled logger; `console` satisfies it, and so do pino- or winston-style adapters. */
export interface Logger {
  /** Fine-grained diagnostics (decisions taken, a tool error already returned to the model). */
  debug(message: string, ...details: unknown[]): void;
  /** Notable, expected events. */
  info(message: string, ...details: unknown[]): void;
  /** Something failed and a safe default was used instead (e.g. a hook that threw). */
  warn(message: string, ...details: unknown[]): void;
  /** A failure the host should look at. */
  error(message: string, ...details: unknown[]): void;
}

/** The default: warnings and errors go to stderr with an `[agy-sdk]` prefix; debug and info are dropped. */
export const consoleLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message, ...details) => console.warn(`[agy-sdk] ${message}`, ...details),
  error: (message, ...details) => console.error(`[agy-sdk] ${message}`, ...details),
};

/** Drops everything: for tests, and hosts that want silence. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** Renders a thrown value for a message; non-Error throws (strings, objects) are common in JS. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** Wraps an unknown thrown value in an `Error`, keeping the original as `cause`. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(describeError(error), { cause: error });
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * A user's logger made safe to call: `undefined` is {@link consoleLogger}; a level it lacks is a no-op (a
 * logger without `debug` must not turn every debug call into a `TypeError`); a level that is there but not a
 * function, or a logger that is not an object, is a `ConfigError` naming it. Each level is called on the
 * user's object (`this` kept). `field` names the option in the error.
 */
export function checkedLogger(logger: unknown, field = 'logger'): Logger {
  if (logger === undefined) return consoleLogger;
  if (typeof logger !== 'object' || logger === null)
    throw new ConfigError(field, 'must be an object with debug, info, warn and error functions');
  const source = logger as Record<string, unknown>;
  const out = {} as Record<(typeof LEVELS)[number], Logger['debug']>;
  for (const level of LEVELS) {
    const fn = source[level];
    if (fn === undefined) out[level] = () => {};
    else if (typeof fn !== 'function') throw new ConfigError(`${field}.${level}`, 'must be a function');
    else out[level] = (message, ...details) => (fn as Logger['debug']).call(logger, message, ...details);
  }
  return out;
}
