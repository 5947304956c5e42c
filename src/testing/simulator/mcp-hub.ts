/**
 * The MCP clients agy keeps for the configured servers (docs/reference/mcp.md#mcp-config-file, docs/reference/mcp.md#calling-mcp-tools).
 * Every enabled server is connected in parallel right after `init` (`mcp-client.ts`: Streamable HTTP with the
 * entry's headers, or stdio), and its tools are listed; a server that fails to start, initialize or list its tools
 * within 10 s is dropped with a stderr warning, and connected again on the first call to it (once per call), as
 * agy does: a host that is slow to answer during a start storm must not lose its tools for the whole session.
 *
 * A stdio server's stderr is read (its last lines go into a failure warning) but never copied to agy's
 * stderr. Stdio servers get the simulator's whole environment plus the entry's `env`.
 */
import { createHttpFetch } from './http-fetch.js';
import { HttpChannel, McpClient, StdioChannel } from './mcp-client.js';
import type { McpServerSpec } from './mcp-config.js';

/** How long a server may take to start, initialize and list its tools (`AGY_SIM_MCP_CONNECT_TIMEOUT_MS` for tests). */
export const MCP_CONNECT_TIMEOUT_MS =
  Number(process.env.AGY_SIM_MCP_CONNECT_TIMEOUT_MS) > 0
    ? Number(process.env.AGY_SIM_MCP_CONNECT_TIMEOUT_MS)
    : 10_000;

/** One listed tool of a connected server: what the default script picks a call from. */
export interface ListedTool {
  name: string;
  description: string | undefined;
  /** The tool's `inputSchema` as the server listed it. */
  inputSchema: unknown;
}

/** What a tool call produced: its output, or the error a tool step reports. */
export type ToolOutcome = { output?: unknown } | { error: { type: string; message: string } };

interface Connection {
  spec: McpServerSpec;
  client: McpClient;
  /** The stdio server's pid, once spawned. */
  pid: number | undefined;
  /** False once the transport has closed (the stdio process is gone). */
  alive: boolean;
  /** The server's tools, minus `disabledTools`. */
  tools: Set<string>;
  /** The same tools with their descriptions and input schemas, in listing order. */
  listed: ListedTool[];
  stderrTail: string;
}

function toolError(message: string): ToolOutcome {
  return { error: { type: 'TOOL_ERROR', message } };
}

/** The message, with the cause's when there is one (`fetch failed` alone says nothing about the socket). */
function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause : undefined;
  if (!cause) return err.message;
  const code = (cause as { code?: unknown }).code;
  return `${err.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
}

/** The connected MCP servers of one simulator process. */
export class McpHub {
  readonly #connections = new Map<string, Connection>();
  /** The Streamable HTTP servers' `fetch`, made at the first one. */
  #httpFetch: ReturnType<typeof createHttpFetch> | undefined;

  constructor(
    /** Every configured (enabled) server, connected or not. */
    readonly specs: readonly McpServerSpec[],
  ) {}

  /**
   * Connects to every server in parallel; failures are reported through `warn` and the server dropped until
   * the next call to it tries again.
   *
   * @param clientVersion the version agy announces in `initialize`.
   */
  async connect(clientVersion: string, warn: (line: string) => Promise<void>): Promise<void> {
    this.#clientVersion = clientVersion;
    this.#warn = warn;
    await Promise.all(this.specs.map((spec) => this.#connectOne(spec)));
  }

  #clientVersion = '';
  #warn: (line: string) => Promise<void> = async () => {};
  /** Connection attempts in progress, so concurrent calls share one. */
  readonly #attempts = new Map<string, Promise<string | undefined>>();

  /** Connects one server (sharing an attempt already running); resolves with the failure, if any. */
  #connectOne(spec: McpServerSpec): Promise<string | undefined> {
    let attempt = this.#attempts.get(spec.name);
    if (!attempt) {
      attempt = this.#tryConnect(spec).finally(() => this.#attempts.delete(spec.name));
      this.#attempts.set(spec.name, attempt);
    }
    return attempt;
  }

  async #tryConnect(spec: McpServerSpec): Promise<string | undefined> {
    const client = new McpClient({ name: 'agy', version: this.#clientVersion });
    const conn: Connection = {
      spec,
      client,
      pid: undefined,
      alive: true,
      tools: new Set(),
      listed: [],
      stderrTail: '',
    };
    this.#connections.set(spec.name, conn);
    client.onclose = () => {
      conn.alive = false;
    };
    try {
      const t = spec.transport;
      if (t.kind === 'stdio') {
        const channel = new StdioChannel({
          command: t.command,
          args: t.args,
          env: { ...(process.env as Record<string, string>), ...t.env },
          ...(t.cwd !== undefined ? { cwd: t.cwd } : {}),
        });
        try {
          await channel.start();
        } finally {
          // Known as soon as the process exists, so even a server that fails to initialize is killed.
          conn.pid = channel.pid;
        }
        channel.stderr?.on('data', (chunk: Buffer) => {
          conn.stderrTail = (conn.stderrTail + chunk.toString('utf8')).slice(-500);
        });
        await client.connect(channel, MCP_CONNECT_TIMEOUT_MS);
      } else {
        this.#httpFetch ??= createHttpFetch();
        await client.connect(
          new HttpChannel(new URL(t.url), t.headers, this.#httpFetch.fetch),
          MCP_CONNECT_TIMEOUT_MS,
        );
      }
      const disabled = new Set(spec.disabledTools);
      for (const tool of await client.listTools(MCP_CONNECT_TIMEOUT_MS)) {
        if (disabled.has(tool.name)) continue;
        conn.tools.add(tool.name);
        conn.listed.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
      }
    } catch (err) {
      this.#connections.delete(spec.name);
      conn.alive = false;
      killPid(conn.pid, 'SIGTERM');
      void client.close().catch(() => {});
      const detail = conn.stderrTail.trim().split('\n').at(-1);
      const reason = `${errorText(err)}${detail ? ` (stderr: ${detail})` : ''}`;
      await this.#warn(
        `warning: MCP server "${spec.name}" (${spec.file}) failed to connect: ${reason}; dropping it until a call retries it`,
      );
      return reason;
    }
    return undefined;
  }

  /** The connected servers' tools (minus `disabledTools`), by server name: what endpoint mode declares. */
  toolList(): { server: string; tools: string[] }[] {
    return [...this.#connections.values()]
      .filter((conn) => conn.alive && conn.tools.size > 0)
      .map((conn) => ({ server: conn.spec.name, tools: [...conn.tools] }));
  }

  /** The tools a connected server listed (minus `disabledTools`); empty when it is not connected. */
  listedTools(server: string): readonly ListedTool[] {
    const conn = this.#connections.get(server);
    return conn?.alive ? conn.listed : [];
  }

  /**
   * The configured server a name means: an exact match, else the first server whose config key it is (a
   * plugin's server named without its `<plugin>_` prefix).
   */
  resolve(server: string): McpServerSpec | undefined {
    return this.specs.find((spec) => spec.name === server) ?? this.specs.find((spec) => spec.key === server);
  }

  /**
   * Calls a tool. Every failure (unknown server or tool, a disabled tool, a transport or protocol error, an
   * `isError` result) is a `TOOL_ERROR` outcome; an aborted `signal` rejects instead.
   */
  async call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const spec = this.resolve(server);
    if (spec === undefined) return toolError(`MCP server "${server}" not found`);
    // A connection still being made (at start, or by another call) is waited for, not reported missing.
    await this.#attempts.get(spec.name);
    let conn = this.#connections.get(spec.name);
    if (conn === undefined || !conn.alive) {
      // Lazy reconnect: the server may have been slow at start (or its stdio process died).
      if (conn) this.#connections.delete(spec.name);
      const failure = await this.#connectOne(spec);
      conn = this.#connections.get(spec.name);
      if (conn === undefined || !conn.alive)
        return toolError(`MCP server "${spec.name}" is not connected${failure ? ` (${failure})` : ''}`);
    }
    if (!conn.tools.has(tool)) return toolError(`tool "${tool}" not found on MCP server "${spec.name}"`);
    let result: Record<string, unknown>;
    try {
      result = await conn.client.callTool(tool, args, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return toolError(errorText(err));
    }
    const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
    const text = content
      .filter((item) => item.type === 'text' && typeof item.text === 'string')
      .map((item) => item.text as string)
      .join('\n');
    if (result.isError === true) return toolError(text || `tool "${tool}" returned an error`);
    if (text !== '' || result.structuredContent === undefined) return { output: text };
    return { output: JSON.stringify(result.structuredContent) };
  }

  /**
   * Closes every client (a stdio server gets EOF on stdin, then SIGTERM, then SIGKILL); after
   * `boundMs` whatever still runs is killed.
   */
  async close(boundMs: number): Promise<void> {
    const closing = [...this.#connections.values()].map((conn) => conn.client.close().catch(() => {}));
    if (closing.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(closing),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, boundMs);
        }),
      ]);
      clearTimeout(timer);
      this.kill('SIGKILL');
    }
    this.#httpFetch?.close();
  }

  /** Signals every stdio server still running (synchronous: for signal handlers and process exit). */
  kill(signal: NodeJS.Signals): void {
    for (const conn of this.#connections.values()) if (conn.alive) killPid(conn.pid, signal);
  }
}

function killPid(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}
