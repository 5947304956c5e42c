/**
 * The names of the agent's own tool server, defined once for both backends. agy namespaces a plugin's servers
 * `<plugin>_<server>` (docs/reference/mcp.md#plugin-server-names), so the SDK's plugin `agy-sdk` serving `tools`
 * is `agy-sdk_tools` to agy; ACP agents are given the same name, so policies and `ToolCall.mcpServer` read
 * alike on both.
 */

/** The version the SDK's own MCP servers and clients report (`serverInfo` / `clientInfo`) when none is given. */
export const DEFAULT_SERVER_VERSION = '0.1.0';

/** The SDK's namespace: the plugin name agy sees. */
export const SDK_NAMESPACE = 'agy-sdk';

/** The own-tool server's name on the session listener (`/mcp/tools`) and in the SDK's plugin. */
export const TOOL_SERVER_NAME = 'tools';

/** The own-tool server's name as the agent knows it (`agy-sdk_tools`), on every backend. */
export const OWN_TOOL_SERVER = `${SDK_NAMESPACE}_${TOOL_SERVER_NAME}`;
