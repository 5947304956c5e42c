/**
 * The logger the listener, the MCP server and the stdio relay report through.
 * Nothing here writes anywhere unless the host asks: the default only prints warnings and errors.
 */

/** Structured fields attached to a log line. Never put secrets (the session token, URLs carrying it) here. */
export type LogFields = Record<string, unknown>;

/** A minimal structured logger; `console`-shaped loggers and pino-style adapters both fit. */
export interface Logger {
  /** Detail useful when debugging, e.g. a tool handler's error already returned to the model. */
  debug(message: string, fields?: LogFields): void;
  /** Notable, expected events. */
  info(message: string, fields?: LogFields): void;
  /** Something failed and a safe default was used instead (e.g. a hook that threw). */
  warn(message: string, fields?: LogFields): void;
  /** Something failed that the host should look at (e.g. a request that could not be served). */
  error(message: string, fields?: LogFields): void;
}

/** Prints warnings and errors to stderr, drops debug and info. Used when no logger is passed. */
export const defaultLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message, fields) => console.warn(`[agy-sdk] ${message}`, ...(fields ? [fields] : [])),
  error: (message, fields) => console.error(`[agy-sdk] ${message}`, ...(fields ? [fields] : [])),
};

/** Best-effort message of an unknown thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** Wraps an unknown thrown value in an `Error`, keeping the original as `cause`. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(errorMessage(error), { cause: error });
}
