/**
 * What the SDK knows about each of the user's MCP servers (`AgentConfig.mcpServers`), as `agent.mcpServers`
 * shows it. Neither backend reports its MCP clients (agy's stream-json has no such event, ACP's `session/new`
 * answer no such field), so the state is the SDK's own start check: at `start()` the SDK connects to each
 * enabled server itself with the official MCP client (a stdio server is started once, in a process group of
 * its own, and stopped again; an HTTP server is reached once), sends `initialize` and `tools/list`, and
 * records what happened. A server that fails that check fails in the backend too (same command, arguments,
 * environment and working directory), which is what the user needs to know.
 */

/**
 * Where a server is:
 * - `checking`: the start check is still running;
 * - `ready`: it answered `initialize` and `tools/list` (its tools are in {@link McpServerState.tools});
 * - `failed`: it could not be started, exited, or did not answer within the check's time limit;
 * - `disabled`: the config says `disabled: true`, so nothing starts it;
 * - `unchecked`: the config says `startCheck: false`, so the SDK does not know (the backend still starts it).
 */
export type McpServerStatus = 'checking' | 'ready' | 'failed' | 'disabled' | 'unchecked';

/** One user MCP server's state. */
export interface McpServerState {
  /** The server's key in `AgentConfig.mcpServers`. */
  name: string;
  /** How it is reached: a process over stdio (`command`), or Streamable HTTP (`url`). */
  transport: 'stdio' | 'http';
  /** Where it is. */
  status: McpServerStatus;
  /** Whether the config marks it `required` (a failure then fails `start()`). */
  required: boolean;
  /** With `failed`: why, e.g. `exited with code 1 before answering initialize`. */
  error?: string | undefined;
  /** For a stdio server that has run: the last lines it wrote to stderr (at most 2,000 characters). */
  stderrTail?: string | undefined;
  /** With `ready`: the names of its tools, minus `disabledTools`. */
  tools?: readonly string[] | undefined;
}
