/**
 * The SDK's start check of one user MCP server (see `model/mcp-server-state.ts` for why the SDK checks
 * rather than asks the backend): connect with the official MCP client, `initialize`, `tools/list` (every
 * page), close. A stdio server runs in its own process group (`stdio-process.ts`) and is stopped whatever
 * happened; an HTTP server's session is closed. Never throws: every failure is a `failed` state naming why.
 */
import { describeError } from '../../logger.js';
import type { McpServerState } from '../../model/mcp-server-state.js';
import type { McpServerConfig } from '../mcp-server-config.js';
import { DEFAULT_SERVER_VERSION } from '../tool-server/server-name.js';
import { type ServerExit, StdioServerProcess } from './stdio-process.js';

/** The default time a server gets to answer `initialize` and list its tools. */
export const DEFAULT_MCP_CHECK_TIMEOUT_MS = 30_000;

/** What a check needs besides the server's own config. */
export interface McpCheckContext {
  /** The environment the backend starts its servers with; the server's `env` is laid over it. */
  env: Record<string, string>;
  /** The working directory when the server names none (the backend's). */
  cwd: string;
  /** How long the server gets for `initialize` plus `tools/list`, in ms. */
  timeoutMs: number;
  /** Aborts the check (the agent is closing). */
  signal: AbortSignal;
}

/** A check's outcome: the public state, and how a stdio server's process ended (for a typed error). */
export interface McpCheckResult {
  /** `ready` or `failed`. */
  state: McpServerState;
  /** A failed stdio server's exit, when it exited on its own before the check stopped it. */
  exit?: ServerExit | undefined;
}

/** Checks one enabled server; resolves with `ready` or `failed`. */
export async function checkMcpServer(
  name: string,
  server: McpServerConfig,
  context: McpCheckContext,
): Promise<McpCheckResult> {
  const base = {
    name,
    transport: 'command' in server ? ('stdio' as const) : ('http' as const),
    required: server.required === true,
  };
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client({ name: 'agy-sdk', version: DEFAULT_SERVER_VERSION }, { capabilities: {} });
  // Errors also come back as rejected requests; the handler only keeps the client from logging them.
  client.onerror = () => {};
  let stdio: StdioServerProcess | undefined;
  let phase = 'start';
  // One deadline for the whole check, so a server that answers slowly twice cannot take twice as long.
  const deadline = AbortSignal.timeout(context.timeoutMs);
  const signal = AbortSignal.any([context.signal, deadline]);
  try {
    if ('command' in server) {
      stdio = new StdioServerProcess({
        command: server.command,
        args: server.args ?? [],
        env: { ...context.env, ...server.env },
        cwd: server.cwd ?? context.cwd,
      });
      phase = 'initialize';
      await client.connect(stdio, { signal, timeout: context.timeoutMs });
    } else {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { ...server.headers } },
      });
      phase = 'initialize';
      await client.connect(transport, { signal, timeout: context.timeoutMs });
    }
    phase = 'tools/list';
    const disabled = new Set(server.disabledTools ?? []);
    const tools: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        signal,
        timeout: context.timeoutMs,
      });
      for (const tool of page.tools) if (!disabled.has(tool.name)) tools.push(tool.name);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { state: { ...base, status: 'ready', tools, ...tail(stdio) } };
  } catch (error) {
    // Read before the finally block stops the group, which would make any server look exited. A write that
    // failed with EPIPE means the server closed its stdin, usually by exiting: its exit is awaited, briefly.
    if (stdio && isBrokenPipe(error)) await stdio.exitWithin(EXIT_AFTER_EPIPE_MS);
    const exit = stdio?.exit;
    return {
      state: {
        ...base,
        status: 'failed',
        error: failure(error, phase, stdio, deadline.aborted, context.timeoutMs),
        ...tail(stdio),
      },
      exit,
    };
  } finally {
    // The client closes its transport: the stdio group is stopped, the HTTP session ended.
    await client.close().catch(() => {});
    await stdio?.stop();
  }
}

/** How long a check waits for a server's exit after writing to it failed with EPIPE. */
const EXIT_AFTER_EPIPE_MS = 1_000;

/** Whether `error` (or its cause) is a write to a closed pipe. */
function isBrokenPipe(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return code === 'EPIPE' || cause?.code === 'EPIPE';
}

/** The stderr tail of a stdio server, when it wrote any. */
function tail(stdio: StdioServerProcess | undefined): { stderrTail?: string } {
  const text = stdio?.stderrTail.trim();
  return text ? { stderrTail: text } : {};
}

/** Why the check failed, in the server's terms (its exit, its spawn error, the time limit) before the client's. */
function failure(
  error: unknown,
  phase: string,
  stdio: StdioServerProcess | undefined,
  timedOut: boolean,
  timeoutMs: number,
): string {
  if (stdio?.spawnError) return `could not be started: ${stdio.spawnError.message}`;
  const exit = stdio?.exit;
  if (exit) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    return `${how} before answering ${phase}`;
  }
  if (timedOut) return `did not answer ${phase} within ${timeoutMs} ms`;
  return `${phase} failed: ${withCause(error)}`;
}

/** The message, with its cause's (`fetch failed` alone does not say the connection was refused). */
function withCause(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return describeError(error);
  const code = (cause as NodeJS.ErrnoException).code;
  return `${describeError(error)} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
}
