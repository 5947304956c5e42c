/**
 * Which MCP server a tool the agent names belongs to. Gemini CLI names MCP tools `mcp_<server>_<tool>`; server
 * names may contain `_` themselves, so the known server names (longest first) say where the tool part starts.
 */
import type { SessionListener } from '../tool-server/listener.js';
import { OWN_TOOL_SERVER, TOOL_SERVER_NAME } from '../tool-server/server-name.js';
import type { ResolvedTool, ToolResolver } from './normalize.js';

/** Gemini CLI's MCP tool names: `mcp_<server>_<tool>` (docs/reference/acp.md#tool-names). */
export const GEMINI_CLI_MCP_PREFIX = 'mcp_';

/**
 * The resolver for one session: the own-tool server when `listener` serves the agent's tools (whose wire names
 * map back to the names `tool()` was given), and the user's MCP servers by name.
 */
export function toolResolver(
  listener: SessionListener | undefined,
  mcpServerNames: readonly string[],
): ToolResolver {
  const servers = [...(listener ? [OWN_TOOL_SERVER] : []), ...mcpServerNames].sort(
    (a, b) => b.length - a.length,
  );
  return (wireName, title): ResolvedTool => {
    const name = wireName ?? title ?? 'unknown';
    if (name.startsWith(GEMINI_CLI_MCP_PREFIX)) {
      const rest = name.slice(GEMINI_CLI_MCP_PREFIX.length);
      for (const server of servers) {
        if (!rest.startsWith(`${server}_`)) continue;
        const tool = rest.slice(server.length + 1);
        const own =
          server === OWN_TOOL_SERVER
            ? listener?.catalog(TOOL_SERVER_NAME)?.names.resolve(tool)?.originalName
            : undefined;
        return { name: own ?? tool, server, wireName: name };
      }
    }
    return { name, wireName: name };
  };
}
