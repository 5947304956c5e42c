/**
 * The MCP clients agy keeps for the configured servers (agy-cli.md §D.5; seed 000 "The session's listener").
 * Every enabled server is connected in parallel right after `init`, with the official SDK's client
 * (`StdioClientTransport`, `StreamableHTTPClientTransport` with `requestInit.headers`), and its tools are
 * listed; a server that fails to start, initialize or list its tools within 10 s is dropped with a stderr
 * warning. The SDK is imported only here, and only when a server is configured, so plain runs start fast.
 *
 * A stdio server's stderr is read (its last lines go into a failure warning) but never copied to agy's
 * stderr. Stdio servers get the simulator's whole environment plus the entry's `env`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerSpec } from './mcp-config.js';

/** How long a server may take to start, initialize and list its tools. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000;

/** What a tool call produced: its output, or the error a tool step reports. */
export type ToolOutcome = { output?: unknown } | { error: { type: string; message: string } };

interface Connection {
  spec: McpServerSpec;
  client: Client;
  /** The stdio server's pid, once spawned. */
  pid: number | undefined;
  /** False once the transport has closed (the stdio process is gone). */
  alive: boolean;
  /** The server's tools, minus `disabledTools`. */
  tools: Set<string>;
  stderrTail: string;
}

function toolError(message: string): ToolOutcome {
  return { error: { type: 'TOOL_ERROR', message } };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The connected MCP servers of one simulator process. */
export class McpHub {
  private readonly connections = new Map<string, Connection>();

  constructor(
    /** Every configured (enabled) server, connected or not. */
    readonly specs: readonly McpServerSpec[],
  ) {}

  /**
   * Connects to every server in parallel; failures are reported through `warn` and the server dropped.
   *
   * @param clientVersion the version agy announces in `initialize`.
   */
  async connect(clientVersion: string, warn: (line: string) => Promise<void>): Promise<void> {
    const specs = this.specs;
    if (specs.length === 0) return;
    const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    await Promise.all(
      specs.map(async (spec) => {
        const client = new Client({ name: 'agy', version: clientVersion }, { capabilities: {} });
        const conn: Connection = {
          spec,
          client,
          pid: undefined,
          alive: true,
          tools: new Set(),
          stderrTail: '',
        };
        this.connections.set(spec.name, conn);
        client.onclose = () => {
          conn.alive = false;
        };
        client.onerror = () => {};
        try {
          const t = spec.transport;
          if (t.kind === 'stdio') {
            const transport = new StdioClientTransport({
              command: t.command,
              args: t.args,
              env: { ...(process.env as Record<string, string>), ...t.env },
              cwd: t.cwd,
              stderr: 'pipe',
            });
            transport.stderr?.on('data', (chunk: Buffer) => {
              conn.stderrTail = (conn.stderrTail + chunk.toString('utf8')).slice(-500);
            });
            // Learn the pid as soon as the process exists, so even a server that fails to initialize is killed.
            const start = transport.start.bind(transport);
            transport.start = async () => {
              await start();
              conn.pid = transport.pid ?? undefined;
            };
            await client.connect(transport, { timeout: MCP_CONNECT_TIMEOUT_MS });
          } else {
            const transport = new StreamableHTTPClientTransport(new URL(t.url), {
              requestInit: { headers: t.headers },
            });
            await client.connect(transport, { timeout: MCP_CONNECT_TIMEOUT_MS });
          }
          const disabled = new Set(spec.disabledTools);
          let cursor: string | undefined;
          do {
            const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
              timeout: MCP_CONNECT_TIMEOUT_MS,
            });
            for (const tool of page.tools) if (!disabled.has(tool.name)) conn.tools.add(tool.name);
            cursor = page.nextCursor;
          } while (cursor !== undefined);
        } catch (err) {
          this.connections.delete(spec.name);
          conn.alive = false;
          killPid(conn.pid, 'SIGTERM');
          void client.close().catch(() => {});
          const detail = conn.stderrTail.trim().split('\n').at(-1);
          await warn(
            `warning: MCP server "${spec.name}" (${spec.file}) failed to connect: ${errorText(err)}` +
              `${detail ? ` (stderr: ${detail})` : ''}; dropping it`,
          );
        }
      }),
    );
  }

  /** The connected servers' tools (minus `disabledTools`), by server name: what endpoint mode declares. */
  toolList(): { server: string; tools: string[] }[] {
    return [...this.connections.values()]
      .filter((conn) => conn.alive && conn.tools.size > 0)
      .map((conn) => ({ server: conn.spec.name, tools: [...conn.tools] }));
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
    const conn = this.connections.get(spec.name);
    if (conn === undefined || !conn.alive) return toolError(`MCP server "${spec.name}" is not connected`);
    if (!conn.tools.has(tool)) return toolError(`tool "${tool}" not found on MCP server "${spec.name}"`);
    let result: Record<string, unknown>;
    try {
      result = (await conn.client.callTool({ name: tool, arguments: args }, undefined, { signal })) as Record<
        string,
        unknown
      >;
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
   * Closes every client (a stdio server gets EOF on stdin, then SIGTERM/SIGKILL from the SDK); after
   * `boundMs` whatever still runs is killed.
   */
  async close(boundMs: number): Promise<void> {
    const closing = [...this.connections.values()].map((conn) => conn.client.close().catch(() => {}));
    if (closing.length === 0) return;
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

  /** Signals every stdio server still running (synchronous: for signal handlers and process exit). */
  kill(signal: NodeJS.Signals): void {
    for (const conn of this.connections.values()) if (conn.alive) killPid(conn.pid, signal);
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
