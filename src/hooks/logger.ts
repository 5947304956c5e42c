/**
 * The logger every control-plane component reports through. Hooks, policies and triggers never swallow an
 * error silently: they log it here, so the host decides where it goes.
 */

/** A minimal leveled logger; `console` satisfies it, and so do pino/winston-style adapters. */
export interface Logger {
  /** Fine-grained diagnostics (decisions taken, skipped ticks). */
  debug(message: string, ...details: unknown[]): void;
  /** Notable but expected events. */
  info(message: string, ...details: unknown[]): void;
  /** Something was wrong but handled (e.g. a hook returned an invalid value). */
  warn(message: string, ...details: unknown[]): void;
  /** A failure that was contained (a hook or trigger threw). */
  error(message: string, ...details: unknown[]): void;
}

/** The default: warnings and errors go to `console`; debug and info are dropped to keep hosts quiet. */
export const consoleLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message, ...details) => console.warn(message, ...details),
  error: (message, ...details) => console.error(message, ...details),
};

/** Drops everything. Useful in tests and for hosts that really want silence. */
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
