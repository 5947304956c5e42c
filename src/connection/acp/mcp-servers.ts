/**
 * The MCP servers a session is opened with (`session/new` / `session/load` `mcpServers`): the SDK's own-tool
 * server on the loopback listener, then the user's enabled servers. HTTP servers need the agent to advertise
 * `mcpCapabilities.http`; without it the start fails rather than silently dropping them.
 */
import { StartError } from '../../errors.js';
import type { AcpInitializeResponse, AcpMcpServer } from '../../protocol/acp.js';
import type { McpServerConfig } from '../mcp-server-config.js';
import type { SessionListener } from '../tool-server/listener.js';
import { OWN_TOOL_SERVER, TOOL_SERVER_NAME } from '../tool-server/server-name.js';

/** The session's `mcpServers`; `stderrTail` goes into the error when the own tools cannot be served. */
export function acpMcpServers(
  init: AcpInitializeResponse | undefined,
  listener: SessionListener | undefined,
  mcpServers: Record<string, McpServerConfig> | undefined,
  stderrTail: string,
): AcpMcpServer[] {
  const http = init?.agentCapabilities?.mcpCapabilities?.http === true;
  const out: AcpMcpServer[] = [];
  if (listener) {
    // The listener's URL carries its per-session token; it travels on the agent's stdin, never in argv.
    if (!http)
      throw new StartError(
        "the ACP agent does not advertise HTTP MCP servers; the agent's own tools need them",
        {
          exitCode: null,
          signal: null,
          stderrTail,
        },
      );
    out.push({
      type: 'http',
      name: OWN_TOOL_SERVER,
      url: listener.mcpUrl(TOOL_SERVER_NAME),
      headers: [],
    });
  }
  for (const [name, server] of Object.entries(mcpServers ?? {})) {
    if (server.disabled) continue;
    if ('command' in server && typeof server.command === 'string') {
      out.push({
        name,
        command: server.command,
        args: [...(server.args ?? [])],
        env: Object.entries(server.env ?? {}).map(([k, v]) => ({ name: k, value: v })),
      });
    } else if ('url' in server) {
      if (!http)
        throw new StartError(`mcpServers.${name}: the ACP agent does not advertise HTTP MCP servers`, {
          exitCode: null,
          signal: null,
          stderrTail: '',
        });
      out.push({
        type: 'http',
        name,
        url: server.url,
        headers: Object.entries(server.headers ?? {}).map(([k, v]) => ({ name: k, value: v })),
      });
    }
  }
  return out;
}
