import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Logger } from '../../src/logger.js';

/** Structured fields a log line carries. */
export type LogFields = Record<string, unknown>;

/** One captured log line. */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields | undefined;
}

/** A logger that keeps every line, so tests can assert on what was (and was not) logged. */
export function captureLogger(): Logger & { entries: LogEntry[]; text(): string } {
  const entries: LogEntry[] = [];
  const push =
    (level: LogEntry['level']) =>
    (message: string, ...details: unknown[]) => {
      entries.push({ level, message, fields: details[0] as LogFields | undefined });
    };
  return {
    entries,
    debug: push('debug'),
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
    text: () => entries.map((entry) => `${entry.message} ${safeJson(entry.fields)}`).join('\n'),
  };
}

function safeJson(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    field instanceof Error ? { message: field.message, stack: field.stack } : field,
  );
}

/** A real MCP client connected to `url` over Streamable HTTP. */
export async function connectClient(url: string): Promise<Client> {
  const client = new Client({ name: 'agy-sdk-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A promise with its resolve function, for making handlers wait on the test. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Number of active timers in this process (`Timeout` resources). */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}
