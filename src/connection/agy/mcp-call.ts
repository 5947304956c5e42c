/**
 * agy calls every MCP tool (the agent's own and the user's) through its built-in `call_mcp_tool` with
 * `{ServerName, ToolName, Arguments}` (docs/reference/mcp.md#calling-mcp-tools). The control plane (hook payloads) and step normalization
 * both unwrap it here, so a call has one name whichever way it is observed.
 */
import { isRecord } from '../../internal/guards.js';
import { OWN_TOOL_SERVER, SDK_NAMESPACE } from '../tool-server/server-name.js';

/** agy's built-in tool that calls MCP tools. */
export const CALL_MCP_TOOL = 'call_mcp_tool';

/** An unwrapped `call_mcp_tool` call. */
export interface McpCall {
  /** The server as agy names it (plugin servers carry the plugin prefix, e.g. `agy-sdk_tools`). */
  agyServer: string;
  /** The tool's name as the server serves it. */
  toolName: string;
  /** The model's arguments to the tool. */
  args: Record<string, unknown>;
}

/**
 * The server's name as the user configured it: agy shows the servers of the SDK's plugin as
 * `agy-sdk_<name>` (docs/reference/mcp.md#plugin-server-names), so `agy-sdk_calc` is the user's `calc`. The
 * agent's own server keeps agy's name (`agy-sdk_tools`, the same on every backend); any other name is not ours
 * and stays as agy sent it.
 */
export function configuredServerName(agyServer: string): string {
  const prefix = `${SDK_NAMESPACE}_`;
  if (agyServer === OWN_TOOL_SERVER || !agyServer.startsWith(prefix)) return agyServer;
  const name = agyServer.slice(prefix.length);
  return name === '' ? agyServer : name;
}

/** The MCP call inside a `call_mcp_tool` call, or `undefined` for any other tool (or a malformed call). */
export function unwrapMcpCall(name: string, args: Record<string, unknown>): McpCall | undefined {
  if (name !== CALL_MCP_TOOL || typeof args.ServerName !== 'string' || typeof args.ToolName !== 'string')
    return undefined;
  return {
    agyServer: args.ServerName,
    toolName: args.ToolName,
    args: isRecord(args.Arguments) ? args.Arguments : {},
  };
}
