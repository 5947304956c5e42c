/**
 * `mcp_config.json` entries that point agy at a listener's MCP endpoint, in either form agy accepts:
 * directly over HTTP (`serverUrl`), or through the stdio relay, for agy versions or setups where its HTTP
 * MCP client does not work. The relay gets the URL from its environment, never from argv, because argv is
 * visible to every local user in `ps` and the URL carries the session token.
 *
 * Unlike a hook's `command` (a command line agy hands to a shell, see hook-commands.ts), a stdio server
 * entry is an argv vector: `command` is the executable and each `args` element one argument, started
 * without a shell (MCP's stdio transport; the simulator starts it the same way). So the paths go in
 * verbatim: shell quotes here would become part of the file names. Nothing in the entry is ever parsed by a
 * shell, so a path with shell syntax in it is inert.
 */
import { scriptPath } from '../../../internal/script-path.js';

/** The environment variable the relay reads its listener URL from. */
export const MCP_URL_ENV = 'AGY_SDK_MCP_URL';

/** An `mcp_config.json` server entry agy starts as a stdio process. */
export interface StdioMcpServerConfig {
  /** The executable: the running Node binary, so the relay needs no executable bit or `PATH` lookup. */
  command: string;
  /** The relay script's absolute path. */
  args: string[];
  /** The relay's environment; holds the listener URL (agy requires string values). */
  env: Record<string, string>;
}

/** An `mcp_config.json` server entry agy reaches over Streamable HTTP. */
export interface HttpMcpServerConfig {
  /** The listener's MCP endpoint (agy's key; Gemini CLI calls it `url`/`httpUrl`). */
  serverUrl: string;
}

/** Options of {@link stdioRelayServerConfig}. */
export interface StdioRelayConfigOptions {
  /** The relay script; default {@link relayScriptPath}. */
  relayPath?: string;
  /** The Node binary; default `process.execPath`. */
  nodePath?: string;
}

/** The compiled relay (`dist/connection/agy/session/mcp-stdio-relay.js` in the published package). */
export function relayScriptPath(): string {
  return scriptPath('connection/agy/session/mcp-stdio-relay.js');
}

/** The stdio form: `{ command: node, args: [relay], env: { AGY_SDK_MCP_URL: url } }`. */
export function stdioRelayServerConfig(
  url: string,
  options: StdioRelayConfigOptions = {},
): StdioMcpServerConfig {
  return {
    command: options.nodePath ?? process.execPath,
    args: [options.relayPath ?? relayScriptPath()],
    env: { [MCP_URL_ENV]: url },
  };
}

/** The direct form: `{ serverUrl: url }`. */
export function httpServerConfig(url: string): HttpMcpServerConfig {
  return { serverUrl: url };
}
