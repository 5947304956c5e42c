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
}

/** An MCP server for the agent. */
export type McpServerConfig = McpStdioServer | McpHttpServer;
