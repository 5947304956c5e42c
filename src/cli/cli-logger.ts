/**
 * The SDK's log, as the CLI shows it: warnings and errors become one terminal-safe `[agy-sdk] …` line handed to
 * whoever owns the screen at that moment (the running turn's renderer, which stops its spinner first, or the
 * REPL, which reprints its prompt under the line), so a log line never lands inside a spinner or over `you ›`.
 * Debug and info are dropped, as with `consoleLogger`.
 */
import { inspect } from 'node:util';
import type { Logger } from '../index.js';
import { terminalSafe } from '../internal/terminal-text.js';

/** Where a log line goes; replaceable while the command runs. */
export interface LogSink {
  /** Prints one line. */
  line: (text: string) => void;
}

function render(message: string, details: unknown[]): string {
  const rest = details.map((d) => (typeof d === 'string' ? d : inspect(d, { breakLength: Infinity })));
  return terminalSafe(['[agy-sdk]', message, ...rest].join(' ')).replace(/\s*\n\s*/g, ' ');
}

/** A logger writing through `sink` (read at each call, so the owner of the screen can change). */
export function cliLogger(sink: LogSink): Logger {
  return {
    debug: () => {},
    info: () => {},
    warn: (message, ...details) => sink.line(render(message, details)),
    error: (message, ...details) => sink.line(render(message, details)),
  };
}
