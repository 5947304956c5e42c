#!/usr/bin/env node
/**
 * A stdio MCP server that relays to a session listener, for when agy should start our tools as a stdio
 * server rather than reach them over HTTP. Each newline-delimited JSON-RPC message on stdin is POSTed to
 * the listener; the JSON reply, if any (a notification gets 202 and no reply), is written to stdout as one
 * line. Messages are forwarded concurrently, so concurrent tool calls stay concurrent.
 *
 * The URL comes from `AGY_SDK_MCP_URL`, never argv: argv is visible in `ps` and the URL holds the session
 * token. For the same reason the URL never appears in anything this relay prints.
 */
import { realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { MCP_URL_ENV } from './mcp-stdio-relay-config.js';

/** Options of {@link runStdioRelay}. */
export interface StdioRelayOptions {
  /** The listener's MCP endpoint, token included. */
  url: string;
  /** Where JSON-RPC messages arrive, one per line. */
  input: Readable;
  /** Where replies go, one per line. */
  output: Writable;
  /** Diagnostics (stderr in the executable). Never receives the URL. */
  log: (message: string) => void;
}

/** Relays until `input` ends and every forwarded message has been answered. Never rejects. */
export async function runStdioRelay(options: StdioRelayOptions): Promise<void> {
  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const task = relayLine(line, options).catch((error: unknown) =>
      options.log(`relay failed: ${describe(error)}`),
    );
    pending.add(task);
    void task.finally(() => pending.delete(task));
  }
  await Promise.all(pending);
}

async function relayLine(line: string, options: StdioRelayOptions): Promise<void> {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    options.log('dropped a line that is not JSON');
    write(options, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: invalid JSON' },
    });
    return;
  }
  let status: number;
  let text: string;
  try {
    const response = await fetch(options.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: line,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    // fetch errors name the host and port at most, never the path that holds the token.
    const detail = describe(error);
    options.log(`listener unreachable: ${detail}`);
    failRequests(message, `listener unreachable: ${detail}`, -32603, options);
    return;
  }
  if (status >= 200 && status < 300) {
    if (text.trim() === '') return;
    try {
      write(options, JSON.parse(text));
    } catch {
      options.log(`listener answered HTTP ${status} with a body that is not JSON`);
      failRequests(message, 'listener answered with invalid JSON', -32603, options);
    }
    return;
  }
  const remote = jsonRpcError(text);
  options.log(`listener answered HTTP ${status}${remote ? `: ${remote.message}` : ''}`);
  failRequests(
    message,
    `listener answered HTTP ${status}${remote ? `: ${remote.message}` : ''}`,
    remote?.code ?? -32603,
    options,
  );
}

/** Answers every request in `message` (one or a batch) with an error, so the client does not wait forever. */
function failRequests(message: unknown, text: string, code: number, options: StdioRelayOptions): void {
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null || !('method' in item) || !('id' in item)) continue;
    const id = (item as { id: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    write(options, { jsonrpc: '2.0', id, error: { code, message: `agy-sdk relay: ${text}` } });
  }
}

function jsonRpcError(text: string): { code: number; message: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const error = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (typeof error?.code === 'number' && typeof error.message === 'string')
      return { code: error.code, message: error.message };
  } catch {
    // Not JSON (e.g. a plain 404 page): the status alone describes it.
  }
  return undefined;
}

function write(options: StdioRelayOptions, value: unknown): void {
  // One write per message keeps lines whole even when replies finish concurrently.
  options.output.write(`${JSON.stringify(value)}\n`);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code ? `${error.message} (${code})` : error.message;
}

async function main(): Promise<void> {
  const log = (message: string) => process.stderr.write(`agy-sdk relay: ${message}\n`);
  const url = process.env[MCP_URL_ENV];
  if (!url || !URL.canParse(url)) {
    log(`${MCP_URL_ENV} must hold the listener's MCP URL`);
    process.exitCode = 2;
    return;
  }
  // stdout closing under us (the client went away) ends the relay; nothing is left to answer.
  process.stdout.on('error', (error) => {
    log(`stdout failed: ${error.message}`);
    process.exit(1);
  });
  await runStdioRelay({ url, input: process.stdin, output: process.stdout, log });
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    // An argv[1] that does not resolve is not this file.
    return false;
  }
}

if (isMain()) {
  main().catch((error: unknown) => {
    process.stderr.write(`agy-sdk relay: ${describe(error)}\n`);
    process.exitCode = 1;
  });
}
