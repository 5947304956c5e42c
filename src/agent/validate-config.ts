/** Validates an `AgentConfig` up front, so bad input fails fast with a `ConfigError` naming the field. */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ACP_FIELD_SUPPORT } from '../connection/acp/index.js';
import {
  AGY_LAUNCH_FIELDS,
  AGY_SESSION_FIELDS,
  AGY_WATCHDOG_FIELDS,
  type AgyLaunchSettings,
  type AgySessionSettings,
  type AgyWatchdogSettings,
  alwaysOnRule,
  hiddenSegmentReal,
  renderInstructions,
  SessionRuntime,
  TOOL_SERVER_NAME,
  validateDataDir,
} from '../connection/agy/index.js';
import { ConfigError } from '../errors.js';
import type { Hook } from '../hooks/kinds.js';
import type { Exhausted } from '../internal/guards.js';
import { confirmRunCommand } from '../policy/presets.js';
import type { PolicyList } from '../policy/types.js';
import type { AgentConfig } from './config.js';
import { checkConfigShape } from './config-schema.js';
import { ControlPlane } from './control-plane.js';

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

// Compile-time completeness: the ACP table names every AgentConfig field, and no other.
const _acpComplete: Exhausted<
  | Exclude<keyof AgentConfig, keyof typeof ACP_FIELD_SUPPORT>
  | Exclude<keyof typeof ACP_FIELD_SUPPORT, keyof AgentConfig>
> = true;
void _acpComplete;

/**
 * On the ACP backend every field either means the same as on agy or is rejected here, naming the field and
 * the backend (the one table: `ACP_FIELD_SUPPORT`).
 */
function checkAcpFields(config: AgentConfig): void {
  for (const [field, value] of Object.entries(config)) {
    if (value === undefined) continue;
    const support: { support: string; why?: string } | undefined = Object.hasOwn(ACP_FIELD_SUPPORT, field)
      ? ACP_FIELD_SUPPORT[field as keyof typeof ACP_FIELD_SUPPORT]
      : undefined;
    if (support?.support === 'rejected')
      throw new ConfigError(
        field,
        `is not supported on the ACP backend (backend.kind 'acp'): ${support.why}`,
      );
  }
  for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
    if (typeof server === 'object' && server !== null && 'cwd' in server && server.cwd !== undefined)
      throw new ConfigError(
        `mcpServers.${name}.cwd`,
        'is not supported on the ACP backend: ACP stdio servers have no working directory',
      );
  }
}

/** What validation hands to the Agent: the config's groups, checked, with their defaults applied. */
export interface ValidatedConfig {
  /** The workspaces (default `[process.cwd()]`), each an existing, non-hidden absolute directory. */
  workspaces: string[];
  /** The policies (default `[confirmRunCommand()]`). */
  policies: PolicyList;
  /** The typed hooks (default none). */
  hooks: readonly Hook[];
  /** The agy session group (files, listener, hooks), forwarded whole to the agy backend. */
  session: AgySessionSettings;
  /** The agy launch group (binary, model, arguments, output handling), forwarded whole. */
  launch: AgyLaunchSettings;
  /** The time limits of the agy process and its turns, forwarded whole. */
  watchdog: AgyWatchdogSettings;
}

/** The fields of `config` named in `keys` that are set: one list of names per group, checked by the compiler. */
function pick<T extends object, K extends keyof T>(config: T, keys: readonly K[]): Pick<T, K> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (config[key] !== undefined) out[key] = config[key];
  return out as Pick<T, K>;
}

/**
 * Validates an `AgentConfig` once, in one place: its shape by one zod schema (`config-schema.ts`, issue path
 * → `ConfigError.field`), then what needs the file system or several fields (workspaces and `cwd` exist and
 * have no hidden segment, `dataDir`, the reserved tool server name, instructions and notes within the rule
 * size, the agy session options, and the write guard).
 */
export function validateConfig(config: AgentConfig): ValidatedConfig {
  if (typeof config !== 'object' || config === null) throw new ConfigError('config', 'must be an object');
  checkConfigShape(config);
  if (config.backend?.kind === 'acp') checkAcpFields(config);
  const workspaces = (config.workspaces ?? [process.cwd()]).map((w, i) =>
    validateWorkspace(w, `workspaces[${i}]`),
  );
  if (config.cwd !== undefined) validateWorkspace(config.cwd, 'cwd');
  if (config.dataDir !== undefined) validateDataDir(config.dataDir);
  // Caught here, not at start(): a server posing as the agent's own tool server would skip the policies.
  if (config.mcpServers !== undefined && Object.hasOwn(config.mcpServers, TOOL_SERVER_NAME)) {
    throw new ConfigError(
      `mcpServers.${TOOL_SERVER_NAME}`,
      `the name '${TOOL_SERVER_NAME}' is reserved for the agent's own tools; pick another server name`,
    );
  }
  if (config.systemInstructions !== undefined) {
    alwaysOnRule(
      'systemInstructions',
      'agy-sdk system instructions',
      renderInstructions(config.systemInstructions),
    );
  }
  if (config.provider) {
    // agy reads modelProvider from its settings and the key from its env: both must be the gateway's.
    if (config.isolation === 'none')
      throw new ConfigError('isolation', "provider needs isolation 'shadow-home' (its default); got 'none'");
    for (const name of ['GEMINI_API_KEY', 'GOOGLE_GEMINI_BASE_URL'])
      if (config.env?.[name] !== undefined)
        throw new ConfigError(`env.${name}`, 'is set by provider mode (the gateway); remove it');
    if (config.connection)
      throw new ConfigError(
        'provider',
        'runs agy through the gateway; it cannot be combined with connection',
      );
  }
  // A custom backend does not use the agy session options; agy's are checked whenever they are given.
  SessionRuntime.validate({
    notes: config.notes,
    mcpServers: config.mcpServers,
    hooks: config.agyHooks,
    hookPlacement: config.hookPlacement,
    isolation: config.isolation,
    linkNativeAuth: config.linkNativeAuth,
    settingsOverrides: config.settingsOverrides,
    skillsPaths: config.skillsPaths,
    subagents: config.subagents,
  });
  const policies = config.policies ?? [confirmRunCommand()];
  const hooks = config.hooks ?? [];
  ControlPlane.guard({
    policies,
    hooks,
    // An ACP agent always has its own write tools (Gemini CLI's write_file, run_shell_command), and every
    // permission request it sends is answered by the policies: with none, each would be approved.
    writeCapable:
      config.backend?.kind === 'acp' ||
      !!config.dangerouslySkipPermissions ||
      (config.tools?.length ?? 0) > 0 ||
      Object.keys(config.mcpServers ?? {}).length > 0,
  });
  return {
    workspaces,
    policies,
    hooks,
    session: pick(config, AGY_SESSION_FIELDS),
    launch: pick(config, AGY_LAUNCH_FIELDS),
    watchdog: pick(config, AGY_WATCHDOG_FIELDS),
  };
}
