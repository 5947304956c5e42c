/** Validates an `AgentConfig` up front, so bad input fails fast with a `ConfigError` naming the field. */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { hiddenSegmentReal, TOOL_SERVER_NAME, validateDataDir } from '../connection/agy/index.js';
import { ConfigError } from '../errors.js';
import type { AgentConfig } from './config.js';

const EFFORTS = new Set(['low', 'medium', 'high']);

function positiveNumber(config: AgentConfig, key: keyof AgentConfig, allowZero = false): void {
  const v = config[key];
  if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (v === 0 && !allowZero))) {
    throw new ConfigError(
      key,
      `must be a positive number${allowZero ? ' (or 0 for off)' : ''}, got ${JSON.stringify(v)}`,
    );
  }
}

/** Checks one workspace directory. */
export function validateWorkspace(path: unknown, field: string): string {
  if (typeof path !== 'string' || !isAbsolute(path)) {
    throw new ConfigError(field, `must be an absolute path, got ${JSON.stringify(path)}`);
  }
  const hidden = hiddenSegmentReal(path);
  if (hidden) {
    throw new ConfigError(
      field,
      `${path} has a hidden segment (${hidden.segment}${hidden.path === path ? '' : ` in its real path ${hidden.path}`}); agy would silently ignore it as a workspace ("is hidden: ignore uri")`,
    );
  }
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new ConfigError(field, `${path} does not exist`);
  }
  if (!isDir) throw new ConfigError(field, `${path} is not a directory`);
  return path;
}

/** Returns the validated workspaces (default `[process.cwd()]`). */
export function validateConfig(config: AgentConfig): { workspaces: string[] } {
  if (typeof config !== 'object' || config === null) throw new ConfigError('config', 'must be an object');
  const workspaces = (config.workspaces ?? [process.cwd()]).map((w, i) =>
    validateWorkspace(w, `workspaces[${i}]`),
  );
  if (!Array.isArray(config.workspaces) && config.workspaces !== undefined) {
    throw new ConfigError('workspaces', 'must be an array of absolute paths');
  }
  if (config.cwd !== undefined) validateWorkspace(config.cwd, 'cwd');
  for (const key of ['model', 'conversationId', 'agyPath', 'dataDir'] as const) {
    const v = config[key];
    if (v !== undefined && (typeof v !== 'string' || v.trim() === '')) {
      throw new ConfigError(key, `must be a non-empty string, got ${JSON.stringify(v)}`);
    }
  }
  if (config.dataDir !== undefined) validateDataDir(config.dataDir);
  if (config.effort !== undefined && !EFFORTS.has(config.effort)) {
    throw new ConfigError('effort', `must be one of low, medium, high; got ${JSON.stringify(config.effort)}`);
  }
  for (const key of [
    'startTimeoutMs',
    'interruptGraceMs',
    'closeGraceMs',
    'maxLineBytes',
    'historyLimit',
    'hookTimeoutMs',
  ] as const) {
    positiveNumber(config, key);
  }
  positiveNumber(config, 'idleTimeoutMs', true);
  positiveNumber(config, 'turnTimeoutMs', true);
  if (config.env !== undefined) {
    for (const [k, v] of Object.entries(config.env)) {
      if (v !== undefined && typeof v !== 'string')
        throw new ConfigError(`env.${k}`, 'values must be strings');
    }
  }
  if (config.mcpServers !== undefined) {
    if (typeof config.mcpServers !== 'object' || config.mcpServers === null) {
      throw new ConfigError('mcpServers', 'must be an object of server name to server config');
    }
    // Caught here, not at start(): a server posing as the agent's own tool server would skip the policies.
    if (Object.hasOwn(config.mcpServers, TOOL_SERVER_NAME)) {
      throw new ConfigError(
        `mcpServers.${TOOL_SERVER_NAME}`,
        `the name '${TOOL_SERVER_NAME}' is reserved for the agent's own tools; pick another server name`,
      );
    }
  }
  if (config.extraArgs !== undefined && !config.extraArgs.every((a) => typeof a === 'string')) {
    throw new ConfigError('extraArgs', 'must be an array of strings');
  }
  return { workspaces };
}
