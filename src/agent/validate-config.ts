/** Validates an `AgentConfig` up front, so bad input fails fast with a `ConfigError` naming the field. */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AcpSettings } from '../connection/acp/index.js';
import type { AgyLaunchSettings, AgySessionSettings, AgyWatchdogSettings } from '../connection/agy/index.js';
import {
  AGY_LAUNCH_FIELDS,
  AGY_SESSION_FIELDS,
  AGY_WATCHDOG_FIELDS,
  alwaysOnRule,
  hiddenSegmentReal,
  isReplaceInstructions,
  renderInstructions,
  validateDataDir,
  validateSession,
} from '../connection/agy/settings.js';
import { CONFIG_FIELDS } from '../connection/config-fields.js';
import { fieldsFeeding } from '../connection/config-groups.js';
import type { ConfigField, FieldSupportRow } from '../connection/field-support.js';
import { TOOL_SERVER_NAME } from '../connection/tool-server/server-name.js';
import { AttachmentFiles } from '../content/attachment-files.js';
import { ConfigError, UnsupportedError } from '../errors.js';
import type { Hook } from '../hooks/kinds.js';
import {
  AGY_SUBAGENT_TOOLS,
  agyEffort,
  agyToolNames,
  type CapabilitiesConfig,
  disabledBuiltinTools,
  enablesBuiltinWriteTools,
  geminiToolNames,
  toolFamily,
} from '../model/builtin-tools.js';
import { deny } from '../policy/builders.js';
import { confirmRunCommand } from '../policy/presets.js';
import type { Policy, PolicyList } from '../policy/types.js';
import { sdkWorkspaceConfinement } from '../policy/workspace.js';
import type { AgentConfig } from './config.js';
import { checkConfigShape } from './config-schema.js';
import { ControlPlane } from './control-plane.js';

/** ACP's settings group, derived once from the config description. */
const ACP_FIELDS = fieldsFeeding('acp');

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

/** The description of every field, as a list (each entry's literal types are not needed here). */
const FIELDS = Object.entries(CONFIG_FIELDS) as [keyof AgentConfig, ConfigField][];

/**
 * On the ACP backend every field either means the same as on agy, is mapped, or is rejected here, naming the
 * field and the backend (each field's `acp` in its one description, `CONFIG_FIELDS`).
 */
function checkAcpFields(config: AgentConfig): void {
  // In the config's own order: of several rejected fields, the first the user wrote is named.
  for (const [field, value] of Object.entries(config)) {
    if (value === undefined || !Object.hasOwn(CONFIG_FIELDS, field)) continue;
    const { acp } = CONFIG_FIELDS[field as keyof typeof CONFIG_FIELDS] as ConfigField;
    if (acp.support === 'rejected')
      throw new ConfigError(field, `is not supported on the ACP backend (backend.kind 'acp'): ${acp.why}`);
  }
  for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
    if (typeof server === 'object' && server !== null && 'cwd' in server && server.cwd !== undefined)
      throw new ConfigError(
        `mcpServers.${name}.cwd`,
        'is not supported on the ACP backend: ACP stdio servers have no working directory',
      );
  }
}

/** Which backend a config runs on, for the per-backend field table. */
type BackendKind = 'agy' | 'acp' | 'custom';

function backendOf(config: AgentConfig): BackendKind {
  if (config.connection) return 'custom';
  return config.backend?.kind === 'acp' ? 'acp' : 'agy';
}

const BACKEND_NAMES = { agy: 'agy (the default backend)', acp: "the ACP backend (backend.kind 'acp')" };

/** The feature an `UnsupportedError` names for a Python row: its path, without the value (`capabilities.agentBehavior`). */
function featureOf(row: string): string {
  return row.split(':')[0]!;
}

/** Throws `UnsupportedError` when `backend` refuses a Python setting the config asks for (its `python` rows). */
function refuseUnsupported(config: AgentConfig, backend: 'agy' | 'acp'): void {
  for (const [field, { python }] of FIELDS) {
    const value = config[field];
    if (value === undefined || python === undefined) continue;
    for (const [row, support] of Object.entries(python) as [string, FieldSupportRow][]) {
      const refusal = support[backend];
      if (refusal.support === 'unsupported' && (support.when?.(value) ?? true))
        throw new UnsupportedError(
          featureOf(row),
          `is not supported on ${BACKEND_NAMES[backend]}: ${refusal.why}`,
        );
    }
  }
}

/**
 * The Python SDK's fields on the backend in use: each is honoured or refused by name (each field's `python`
 * rows in `CONFIG_FIELDS`). A custom `connection` gets the SDK-side parts (policies) only.
 */
function checkParityFields(config: AgentConfig, backend: BackendKind): void {
  if (backend === 'custom') return;
  refuseUnsupported(config, backend);
  const si = config.systemInstructions;
  if (isReplaceInstructions(si)) {
    if (backend === 'acp' && config.backend?.kind === 'acp' && config.backend.preset !== 'gemini-cli')
      throw new UnsupportedError(
        'systemInstructions',
        "{ mode: 'replace' } is supported on the ACP backend with preset 'gemini-cli' only (GEMINI_SYSTEM_MD)",
      );
  } else if (si !== undefined && backend === 'acp') {
    throw new ConfigError(
      'systemInstructions',
      "is not supported on the ACP backend (backend.kind 'acp') unless { mode: 'replace', text } (Gemini CLI): ACP has no channel for appended instructions; put them in the prompt (reminder)",
    );
  }
  if (backend === 'agy') checkSubagentFields(config);
}

/**
 * Python `SubagentConfig` fields a port may carry that agy's `agent.md` cannot express: each refused by name
 * (the frontmatter agy reads: docs/reference/plugins-and-config.md), never written and dropped.
 */
const SUBAGENT_REFUSED: Record<string, string> = {
  model:
    "agy's agent.md takes only name, description and subagent: no per-subagent model (subagents run on the agent's model)",
  capabilities:
    "agy's agent.md has no tool list: built-in tools, policies and capabilities apply to the whole agent, subagents included",
  tools:
    "agy's agent.md has no tool list: the agent's own tools are served to the whole agent, subagents included",
};

/** Refuses, by name, the Python subagent fields agy has nothing to map to. */
function checkSubagentFields(config: AgentConfig): void {
  for (const [i, s] of (config.subagents ?? []).entries()) {
    if (typeof s !== 'object' || s === null) continue;
    for (const [key, why] of Object.entries(SUBAGENT_REFUSED)) {
      if ((s as unknown as Record<string, unknown>)[key] !== undefined)
        throw new UnsupportedError(
          `subagents[${i}].${key}`,
          `is not supported on ${BACKEND_NAMES.agy}: ${why}`,
        );
    }
  }
}

/** Whether `workspaces` confine the file tools (explicit workspaces, no `allowOutsideWorkspaces`). */
function confines(config: AgentConfig): boolean {
  return config.workspaces !== undefined && config.allowOutsideWorkspaces !== true;
}

/**
 * The deny policies `capabilities` implies: each disabled built-in tool by name (specific: no `allow` reopens
 * it), and with an allowlist any other built-in tool the SDK does not know by name.
 */
export function capabilityPolicies(caps: CapabilitiesConfig | undefined): Policy[] {
  if (!caps) return [];
  const name = 'capabilities';
  // Each denial names the tool as the user wrote it (`run_command`), not the alias that matched the call
  // (`execute`): the first writer of a name in a family wins, then subagents, then the allowlist's complement.
  const why = new Map<string, string>();
  for (const written of caps.disabledTools ?? [])
    for (const n of toolFamily(written))
      if (!why.has(n)) why.set(n, `'${written}' is disabled by capabilities.disabledTools`);
  if (caps.enableSubagents === false)
    for (const n of AGY_SUBAGENT_TOOLS)
      if (!why.has(n)) why.set(n, `'${n}' is disabled by capabilities.enableSubagents: false`);
  const out: Policy[] = disabledBuiltinTools(caps).map((tool) =>
    deny(tool, {
      name,
      message: why.get(tool) ?? `'${tool}' is not in capabilities.enabledTools`,
    }),
  );
  if (caps.enabledTools) {
    const enabled = new Set([...caps.enabledTools.flatMap(toolFamily), 'finish', 'call_mcp_tool']);
    out.push(
      deny('*', {
        name,
        message: 'this built-in tool is not in capabilities.enabledTools',
        when: (_args, call) => call.server === undefined && !enabled.has(call.name),
      }),
    );
  }
  return out;
}

/** Deep-merges settings objects (`over` wins; arrays under `permissions` are concatenated). */
function mergeSettings(
  base: Record<string, unknown>,
  over: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over ?? {})) {
    const prev = out[key];
    if (Array.isArray(prev) && Array.isArray(value)) out[key] = [...prev, ...value];
    else if (isPlainObject(prev) && isPlainObject(value)) out[key] = mergeSettings(prev, value);
    else out[key] = value;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What the backend gets from the Python-parity fields: environment and settings, per backend. */
export interface BackendAdditions {
  /** Variables over `AgentConfig.env` (the API key among them: never in argv or logs). */
  env: Record<string, string>;
  /** Settings merged under the user's `settingsOverrides` (written only with a shadow HOME). */
  settings: Record<string, unknown>;
  /** ACP only: the system prompt that replaces the agent's (`GEMINI_SYSTEM_MD`). */
  systemPrompt?: string | undefined;
}

function backendAdditions(config: AgentConfig, backend: BackendKind): BackendAdditions {
  const env: Record<string, string> = {};
  let settings: Record<string, unknown> = {};
  if (config.apiKey !== undefined) {
    if (config.provider)
      throw new ConfigError('apiKey', "provider mode gives agy the gateway's key; remove apiKey");
    if (config.env?.GEMINI_API_KEY !== undefined)
      throw new ConfigError('env.GEMINI_API_KEY', 'is set by apiKey too; set one of them');
    env.GEMINI_API_KEY = config.apiKey;
  }
  const disabled = config.capabilities ? disabledBuiltinTools(config.capabilities) : [];
  if (backend === 'agy') {
    if (config.apiKey !== undefined) {
      if (config.isolation === 'none')
        throw new ConfigError(
          'isolation',
          "apiKey needs isolation 'shadow-home' (its default with apiKey): agy reads modelProvider from its settings, and the user's are never modified; got 'none'",
        );
      settings.modelProvider = 'gemini';
    }
    if (confines(config)) settings.allowNonWorkspaceAccess = false;
    const agyNames = agyToolNames(disabled);
    if (agyNames.length > 0) settings.permissions = { deny: agyNames };
  } else if (backend === 'acp') {
    if (config.vertex === true) {
      env.GOOGLE_GENAI_USE_VERTEXAI = 'true';
      settings = mergeSettings(settings, { security: { auth: { selectedType: 'vertex-ai' } } });
    }
    if (config.project !== undefined) env.GOOGLE_CLOUD_PROJECT = config.project;
    if (config.location !== undefined) env.GOOGLE_CLOUD_LOCATION = config.location;
    for (const name of Object.keys(env))
      if (name !== 'GEMINI_API_KEY' && config.env?.[name] !== undefined)
        throw new ConfigError(`env.${name}`, 'is set by vertex/project/location too; set one of them');
    const caps = config.capabilities;
    const gemini = (names: readonly string[]) => geminiToolNames([...new Set(names.flatMap(toolFamily))]);
    if (caps?.disabledTools)
      settings = mergeSettings(settings, { tools: { exclude: gemini(caps.disabledTools) } });
    if (caps?.enabledTools)
      settings = mergeSettings(settings, { tools: { core: gemini(caps.enabledTools) } });
  }
  const si = config.systemInstructions;
  return {
    env,
    settings: mergeSettings(settings, config.settingsOverrides),
    ...(backend === 'acp' && isReplaceInstructions(si) && { systemPrompt: si.text }),
  };
}

/** What validation hands to the Agent: the config's groups, checked, with their defaults applied. */
export interface ValidatedConfig {
  /** The workspaces (default `[process.cwd()]`), each an existing, non-hidden absolute directory. */
  workspaces: string[];
  /**
   * The policies: the SDK's own first (the workspace-only rule for explicit `workspaces`, the `capabilities`
   * denials), then the user's (default `[confirmRunCommand()]`).
   */
  policies: PolicyList;
  /**
   * The agent's attachment files: the media parts the SDK writes into its session directory. The workspace
   * confinement (here and on ACP's file system) admits exactly these to the model's file reads.
   */
  attachments: AttachmentFiles;
  /** The environment and settings the Python-parity fields add for the backend. */
  additions: BackendAdditions;
  /** The typed hooks (default none). */
  hooks: readonly Hook[];
  /** The agy session group (files, listener, hooks), forwarded whole to the agy backend. */
  session: AgySessionSettings;
  /** The agy launch group (binary, model, arguments, output handling), forwarded whole. */
  launch: AgyLaunchSettings;
  /** The time limits of the agy process and its turns, forwarded whole. */
  watchdog: AgyWatchdogSettings;
  /**
   * The ACP backend's group (the fields it takes as they are; on ACP also the parity fields' settings, the
   * replacing system prompt, and provider mode's shadow HOME), forwarded whole.
   */
  acp: AcpSettings;
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
  const backend = backendOf(config);
  if (backend === 'acp') checkAcpFields(config);
  checkParityFields(config, backend);
  const workspaces = checkPaths(config);
  checkReservedServerName(config);
  checkInstructions(config);
  checkProviderMode(config);
  const additions = backendAdditions(config, backend);
  // apiKey on agy is API-key mode: modelProvider in the settings, so a shadow HOME to write them in.
  const isolation =
    backend === 'agy' && (config.apiKey !== undefined || config.provider) ? 'shadow-home' : config.isolation;
  checkSessionOptions(config, isolation);
  const userPolicies = config.policies ?? [confirmRunCommand()];
  const hooks = config.hooks ?? [];
  ControlPlane.guard({ policies: userPolicies, hooks, writeCapable: isWriteCapable(config) });
  // The Python SDK prepends workspace_only(workspaces); the capabilities' denials are specific rules too.
  // The confinement admits the agent's attachment files (in its session directory) to the read tools.
  const attachments = new AttachmentFiles();
  const sdkPolicies = [
    ...(confines(config) ? sdkWorkspaceConfinement(workspaces, attachments) : []),
    ...capabilityPolicies(config.capabilities),
  ];
  const policies = sdkPolicies.length > 0 ? [...sdkPolicies, ...userPolicies] : userPolicies;
  return {
    workspaces,
    policies,
    attachments,
    hooks,
    additions,
    session: sessionGroup(config, backend, isolation, additions),
    launch: launchGroup(config),
    watchdog: pick(config, AGY_WATCHDOG_FIELDS),
    acp: acpGroup(config, backend, additions),
  };
}

/** The workspaces (default: the current directory), `cwd` and `dataDir`, checked on the file system. */
function checkPaths(config: AgentConfig): string[] {
  const workspaces = (config.workspaces ?? [process.cwd()]).map((w, i) =>
    validateWorkspace(w, `workspaces[${i}]`),
  );
  if (config.cwd !== undefined) validateWorkspace(config.cwd, 'cwd');
  if (config.dataDir !== undefined) validateDataDir(config.dataDir);
  return workspaces;
}

/** Caught here, not at start(): a server posing as the agent's own tool server would skip the policies. */
function checkReservedServerName(config: AgentConfig): void {
  if (config.mcpServers !== undefined && Object.hasOwn(config.mcpServers, TOOL_SERVER_NAME)) {
    throw new ConfigError(
      `mcpServers.${TOOL_SERVER_NAME}`,
      `the name '${TOOL_SERVER_NAME}' is reserved for the agent's own tools; pick another server name`,
    );
  }
}

/** Appended system instructions must fit in one always-on rule (rendering them checks the size). */
function checkInstructions(config: AgentConfig): void {
  if (config.systemInstructions !== undefined && !isReplaceInstructions(config.systemInstructions)) {
    alwaysOnRule(
      'systemInstructions',
      'agy-sdk system instructions',
      renderInstructions(config.systemInstructions),
    );
  }
}

/** agy reads modelProvider from its settings and the key from its env: in provider mode both must be the gateway's. */
function checkProviderMode(config: AgentConfig): void {
  if (!config.provider) return;
  if (config.isolation === 'none')
    throw new ConfigError('isolation', "provider needs isolation 'shadow-home' (its default); got 'none'");
  for (const name of ['GEMINI_API_KEY', 'GOOGLE_GEMINI_BASE_URL'])
    if (config.env?.[name] !== undefined)
      throw new ConfigError(`env.${name}`, 'is set by provider mode (the gateway); remove it');
  if (config.connection)
    throw new ConfigError('provider', 'runs agy through the gateway; it cannot be combined with connection');
}

/** A custom backend does not use the agy session options; agy's are checked whenever they are given. */
function checkSessionOptions(config: AgentConfig, isolation: AgentConfig['isolation']): void {
  validateSession({
    notes: config.notes,
    mcpServers: config.mcpServers,
    hooks: config.agyHooks,
    hookPlacement: config.hookPlacement,
    isolation,
    linkNativeAuth: config.linkNativeAuth,
    settingsOverrides: config.settingsOverrides,
    skillsPaths: config.skillsPaths,
    subagents: config.subagents,
  });
}

/** Whether the agent can write or run anything (then the write guard wants a policy or hook on it). */
function isWriteCapable(config: AgentConfig): boolean {
  return (
    // An ACP agent always has its own write tools (Gemini CLI's write_file, run_shell_command), and every
    // permission request it sends is answered by the policies: with none, each would be approved. On agy,
    // `capabilities` leaving a write tool on counts, as in Python.
    config.backend?.kind === 'acp' ||
    enablesBuiltinWriteTools(config.capabilities) ||
    !!config.dangerouslySkipPermissions ||
    // agy then runs edits (accept-edits) or commands (its sandbox) without its own permission check.
    config.mode === 'accept-edits' ||
    !!config.sandbox ||
    (config.tools?.length ?? 0) > 0 ||
    Object.keys(config.mcpServers ?? {}).length > 0
  );
}

/** The agy session group, with the isolation and the parity fields' settings on agy. */
function sessionGroup(
  config: AgentConfig,
  backend: BackendKind,
  isolation: AgentConfig['isolation'],
  additions: BackendAdditions,
): AgySessionSettings {
  const session = pick(config, AGY_SESSION_FIELDS);
  if (backend === 'agy') {
    if (isolation !== undefined) session.isolation = isolation;
    // Written only with a shadow HOME (the user's settings are never modified).
    if (isolation === 'shadow-home' && Object.keys(additions.settings).length > 0)
      session.settingsOverrides = additions.settings;
  }
  return session;
}

/** The agy launch group, with the effort in agy's words. */
function launchGroup(config: AgentConfig): AgyLaunchSettings {
  const { effort, ...launch } = pick(config, AGY_LAUNCH_FIELDS);
  return {
    ...launch,
    // xhigh/max go to agy as they are (refused before launch where unknown: flag-support.ts).
    ...(effort !== undefined && {
      effort: effort === 'xhigh' || effort === 'max' ? effort : agyEffort(effort),
    }),
  };
}

/** The ACP group, with the parity fields' settings, the replacing system prompt and provider mode's HOME on ACP. */
function acpGroup(config: AgentConfig, backend: BackendKind, additions: BackendAdditions): AcpSettings {
  const acp: AcpSettings = pick(config, ACP_FIELDS);
  if (backend === 'acp') {
    // Provider mode points the agent at the gateway from a shadow HOME, as on agy.
    if (config.provider) acp.isolation = 'shadow-home';
    acp.settingsOverrides = additions.settings;
    if (additions.systemPrompt !== undefined) acp.systemPrompt = additions.systemPrompt;
  }
  return acp;
}
