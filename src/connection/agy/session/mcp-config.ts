/**
 * The user's MCP server configuration (`mcp-server-config.ts`) translated to agy's `mcp_config.json` entries
 * (docs/reference/mcp.md#mcp-config-file).
 */
import { ConfigError } from '../../../errors.js';
import type { McpConfigEntry } from '../../../protocol/agy-files.js';
import type { McpServerConfig } from '../../mcp-server-config.js';

const SERVER_NAME = /^[A-Za-z0-9_-]{1,48}$/;

const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isStringRecord = (v: unknown): boolean =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((x) => typeof x === 'string');

/** Validates a user server config and converts it to agy's entry shape. */
export function toAgyMcpEntry(name: string, server: McpServerConfig): McpConfigEntry {
  const field = `mcpServers.${name}`;
  if (!SERVER_NAME.test(name)) throw new ConfigError(field, 'server names must match [A-Za-z0-9_-]{1,48}');
  if (typeof server !== 'object' || server === null) throw new ConfigError(field, 'must be an object');
  // agy silently drops an entry of the wrong shape, so every list and map is checked here, not by agy.
  for (const key of ['args', 'disabledTools', 'enabledTools'] as const) {
    const value = (server as unknown as Record<string, unknown>)[key];
    if (value !== undefined && !isStringList(value))
      throw new ConfigError(`${field}.${key}`, 'must be an array of strings');
  }
  for (const key of ['disabled', 'required', 'startCheck'] as const) {
    const value = (server as unknown as Record<string, unknown>)[key];
    if (value !== undefined && typeof value !== 'boolean')
      throw new ConfigError(`${field}.${key}`, 'must be a boolean');
  }
  if (server.required === true && server.disabled === true)
    throw new ConfigError(`${field}.required`, 'a disabled server cannot be required; drop one of the two');
  if (server.required === true && server.startCheck === false)
    throw new ConfigError(
      `${field}.startCheck`,
      'a required server needs its start check; drop one of the two',
    );
  const headers = (server as unknown as Record<string, unknown>).headers;
  if (headers !== undefined && !isStringRecord(headers))
    throw new ConfigError(`${field}.headers`, 'values must be strings (agy requires it)');
  const common = {
    ...(server.disabled !== undefined && { disabled: server.disabled }),
    ...(server.disabledTools !== undefined && { disabledTools: [...server.disabledTools] }),
  };
  if ('command' in server && typeof server.command === 'string') {
    if (server.command.trim() === '') throw new ConfigError(`${field}.command`, 'must be a non-empty string');
    if (server.env !== undefined && !isStringRecord(server.env)) {
      throw new ConfigError(`${field}.env`, 'values must be strings (agy requires it)');
    }
    return {
      command: server.command,
      ...(server.args !== undefined && { args: [...server.args] }),
      ...(server.env !== undefined && { env: { ...server.env } }),
      ...(server.cwd !== undefined && { cwd: server.cwd }),
      ...common,
    };
  }
  if ('url' in server && typeof server.url === 'string') {
    let url: URL;
    try {
      url = new URL(server.url);
    } catch {
      throw new ConfigError(`${field}.url`, `is not a valid URL: ${JSON.stringify(server.url)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(`${field}.url`, 'must be http(s)');
    return {
      serverUrl: server.url,
      ...(server.headers !== undefined && { headers: { ...server.headers } }),
      ...common,
    };
  }
  throw new ConfigError(field, 'needs either `command` (stdio) or `url` (Streamable HTTP)');
}
