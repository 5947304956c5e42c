/**
 * User-facing MCP server configuration (the Python SDK's `McpStdioServer` / `McpStreamableHttpServer`),
 * shared by both backends: agy gets it as `mcp_config.json` entries (`agy/session/mcp-config.ts`), an ACP agent
 * as `session/new`'s `mcpServers` (`acp/mcp-servers.ts`).
 */

/** An MCP server agy starts as a child process and talks to over stdio. */
export interface McpStdioServer {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Extra environment for the server (string values). */
  env?: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** Only these tools may be called (enforced in-process through agy's PreToolUse hook). */
  enabledTools?: string[];
  /** These tools are hidden from the model (agy's `disabledTools`). */
  disabledTools?: string[];
  /** Keep the entry but do not start it. */
  disabled?: boolean;
  /**
   * `start()` fails with `McpServerStartError` when the SDK's start check of this server fails (it could
   * not be started, exited, or did not answer `initialize` and `tools/list` in time). Without it a failure is
   * reported on the next turn's `notices` and in `agent.mcpServers`, and the agent starts without the server.
   */
  required?: boolean;
  /**
   * `false` skips the SDK's start check of this server (its state is then `unchecked`): for a server that must
   * not be started twice (an exclusive lock or port, side effects at start) or is costly to start. Default
   * `true`. Cannot be combined with `required`, which needs the check.
   */
  startCheck?: boolean;
}

/** An MCP server agy reaches over Streamable HTTP. */
export interface McpHttpServer {
  /** The server's URL. */
  url: string;
  /** Extra request headers (e.g. `Authorization`). Written only to the private session config. */
  headers?: Record<string, string>;
  /** Only these tools may be called (enforced in-process through agy's PreToolUse hook). */
  enabledTools?: string[];
  /** These tools are hidden from the model (agy's `disabledTools`). */
  disabledTools?: string[];
  /** Keep the entry but do not connect. */
  disabled?: boolean;
  /**
   * `start()` fails with `McpServerStartError` when the SDK's start check of this server fails (it could
   * not be started, exited, or did not answer `initialize` and `tools/list` in time). Without it a failure is
   * reported on the next turn's `notices` and in `agent.mcpServers`, and the agent starts without the server.
   */
  required?: boolean;
  /**
   * `false` skips the SDK's start check of this server (its state is then `unchecked`): for a server that must
   * not be started twice (an exclusive lock or port, side effects at start) or is costly to start. Default
   * `true`. Cannot be combined with `required`, which needs the check.
   */
  startCheck?: boolean;
}

/** An MCP server for the agent. */
export type McpServerConfig = McpStdioServer | McpHttpServer;
