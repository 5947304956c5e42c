/**
 * `mcp_config.json` files (docs/reference/mcp.md#mcp-config-file): `{"mcpServers": {"<name>": entry}}`, an entry being
 * `{command, args?, env?, cwd?, disabled?, disabledTools?}` (stdio) or `{serverUrl, headers?, disabled?,
 * disabledTools?}` (Streamable HTTP). A JSON syntax error (or a top level that is not such an object) makes agy
 * exit 1; a bad server entry is dropped with a stderr warning and the rest load.
 */

/** An unusable `mcp_config.json`: agy reports it on stderr and exits 1. */
export class McpConfigError extends Error {}

/** One MCP server to connect to. */
export interface McpServerSpec {
  /** The name agy knows it by: the config key, or `<plugin>_<key>` for a plugin's server. */
  name: string;
  /** The key in its `mcp_config.json`. */
  key: string;
  /** The plugin that declared it, if any. */
  plugin?: string | undefined;
  /** The file it came from. */
  file: string;
  transport: McpStdioSpec | McpHttpSpec;
  /** Tools agy hides: calling one fails like calling an unknown tool. */
  disabledTools: string[];
}

export interface McpStdioSpec {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
}

export interface McpHttpSpec {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
}

/** Server names agy (and the Python SDK) accept. */
const NAME = /^[a-zA-Z0-9_-]+$/;

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isObj(value) && Object.values(value).every((item) => typeof item === 'string');
}

/**
 * Parses one `mcp_config.json`. Disabled servers are left out.
 *
 * @param plugin the declaring plugin's name: its servers are named `<plugin>_<key>`.
 * @throws McpConfigError when the file is not JSON or has no usable `mcpServers` object.
 */
export function parseMcpConfig(
  text: string,
  file: string,
  plugin: string | undefined,
  warn: (line: string) => void,
): McpServerSpec[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`failed to parse MCP config ${file}: ${(err as Error).message}`);
  }
  if (!isObj(value)) throw new McpConfigError(`failed to parse MCP config ${file}: not a JSON object`);
  if (value.mcpServers === undefined || value.mcpServers === null) return [];
  if (!isObj(value.mcpServers)) {
    throw new McpConfigError(`failed to parse MCP config ${file}: "mcpServers" must be an object`);
  }
  const specs: McpServerSpec[] = [];
  for (const [key, entry] of Object.entries(value.mcpServers)) {
    const problem = entryProblem(key, entry);
    if (problem !== undefined) {
      warn(`warning: ignoring MCP server "${key}" in ${file}: ${problem}`);
      continue;
    }
    const e = entry as Obj;
    if (e.disabled === true) continue;
    const transport: McpStdioSpec | McpHttpSpec =
      typeof e.command === 'string'
        ? {
            kind: 'stdio',
            command: e.command,
            args: (e.args as string[] | undefined) ?? [],
            env: (e.env as Record<string, string> | undefined) ?? {},
            cwd: e.cwd as string | undefined,
          }
        : {
            kind: 'http',
            url: e.serverUrl as string,
            headers: (e.headers as Record<string, string> | undefined) ?? {},
          };
    specs.push({
      name: plugin === undefined ? key : `${plugin}_${key}`,
      key,
      plugin,
      file,
      transport,
      disabledTools: (e.disabledTools as string[] | undefined) ?? [],
    });
  }
  return specs;
}

/** Why a server entry is unusable, or `undefined` when it is fine. */
function entryProblem(key: string, entry: unknown): string | undefined {
  if (!NAME.test(key)) return 'the name must match ^[a-zA-Z0-9_-]+$';
  if (!isObj(entry)) return 'the entry must be an object';
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.serverUrl !== undefined;
  if (hasCommand === hasUrl) return 'the entry needs exactly one of "command" and "serverUrl"';
  if (hasCommand) {
    if (typeof entry.command !== 'string' || entry.command === '')
      return '"command" must be a non-empty string';
    if (entry.args !== undefined && !isStringArray(entry.args)) return '"args" must be an array of strings';
    if (entry.env !== undefined && !isStringMap(entry.env)) return '"env" values must be strings';
    if (entry.cwd !== undefined && typeof entry.cwd !== 'string') return '"cwd" must be a string';
  } else {
    if (typeof entry.serverUrl !== 'string') return '"serverUrl" must be a string';
    try {
      const url = new URL(entry.serverUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return '"serverUrl" must be an http(s) URL';
    } catch {
      return '"serverUrl" is not a valid URL';
    }
    if (entry.headers !== undefined && !isStringMap(entry.headers)) return '"headers" values must be strings';
  }
  if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean')
    return '"disabled" must be a boolean';
  if (entry.disabledTools !== undefined && !isStringArray(entry.disabledTools)) {
    return '"disabledTools" must be an array of strings';
  }
  return undefined;
}
