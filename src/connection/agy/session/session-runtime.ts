/**
 * The session runtime: everything agy needs on disk and on the loopback interface for one session.
 *
 *   <session>/                                  passed to agy with --add-dir (a second workspace)
 *     .agents/plugins/agy-sdk/plugin.json       {"name":"agy-sdk"}
 *     .agents/plugins/agy-sdk/rules/*.md        system instructions and notes, trigger: always_on
 *     .agents/plugins/agy-sdk/mcp_config.json   our tool server (serverUrl on the listener) + user servers
 *     .agents/plugins/agy-sdk/skills/<name>     links to the configured skills
 *     .agents/hooks.json                        hook relays (placement "workspace", the default)
 *     .agents/agents/<name>/agent.md            custom subagents
 *     hooks/<Event>.sh + private relay config   the absolute-path hook commands (the scripts go to a
 *                                               directory of their own when this path is not a plain word:
 *                                               `hook-bin-dir.ts`)
 *     home/                                     the shadow HOME (isolation "shadow-home")
 *     attachments/                              media parts of prompts
 *
 * Every file is validated against the shape agy documents before it is written (`agy-files.ts`), because
 * agy drops wrong shapes silently. Everything is private (0700/0600) and removed on close.
 */
import { createHash } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, symlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { ConfigError } from '../../../errors.js';
import { sessionStartLane } from '../../../internal/turn-lane.js';
import type { Logger } from '../../../logger.js';
import type { ToolDefinition } from '../../../model/tool.js';
import {
  AgentFrontmatterSchema,
  type McpConfigEntry,
  McpConfigSchema,
  PluginJsonSchema,
  renderFrontmatter,
  validated,
} from '../../../protocol/agy-files.js';
import type { AgyHookRegistration } from '../../../protocol/hook-wire.js';
import type { McpServerConfig } from '../../mcp-server-config.js';
import { SessionListener } from '../../tool-server/listener.js';
import { DEFAULT_HOOK_TIMEOUT_MS, type HookEndpoint } from '../../tool-server/listener-hook.js';
import type { McpExchangeObserver } from '../../tool-server/listener-mcp.js';
import type { OwnToolHooks } from '../../tool-server/mcp-tool-call.js';
import { OWN_TOOL_SERVER, SDK_NAMESPACE, TOOL_SERVER_NAME } from '../../tool-server/server-name.js';
import { type PrivateFile, SessionDir } from '../../tool-server/session-dir.js';
import type { HookRelayKind, QueueFile } from './hook-commands.js';
import { createHookDispatcher } from './hook-dispatcher.js';
import { queueHooksFile } from './hooks-file.js';
import { toAgyMcpEntry } from './mcp-config.js';
import { stdioRelayServerConfig } from './mcp-stdio-relay-config.js';
import { alwaysOnRule, renderInstructions, type SystemInstructions } from './rules.js';
import { buildShadowHome } from './shadow-home.js';
import { validateSession } from './validate-session.js';

/** Name of the plugin the SDK writes into the session directory. agy namespaces its servers `agy-sdk_<name>`. */
export const PLUGIN_NAME = SDK_NAMESPACE;

/** Where the hooks file goes. */
export type HookPlacement = 'workspace' | 'plugin' | 'home';
/** How agy is isolated from the user's own agy configuration. */
export type Isolation = 'none' | 'shadow-home';

/** A custom subagent, written as `.agents/agents/<name>/agent.md`. */
export interface SubagentConfig {
  /** `[a-zA-Z0-9-_]+`. */
  name: string;
  /** When to use it (shown to the model). */
  description: string;
  /** Its instructions (the body of agent.md). */
  instructions: string;
  /** Usable as a subagent (frontmatter `subagent`). Default true. */
  subagent?: boolean;
}

/** Everything the runtime builds from. */
export interface SessionRuntimeOptions {
  dataDir?: string | undefined;
  systemInstructions?: SystemInstructions | undefined;
  notes?: string | undefined;
  /** The JSON Schema for `--json-schema`. */
  jsonSchema?: Record<string, unknown> | undefined;
  tools?: readonly ToolDefinition[] | undefined;
  /** `http` (default): agy connects to the listener with `serverUrl`; `stdio`: through the stdio relay. */
  toolTransport?: 'http' | 'stdio' | undefined;
  mcpServers?: Record<string, McpServerConfig> | undefined;
  hooks?: readonly AgyHookRegistration[] | undefined;
  hookPlacement?: HookPlacement | undefined;
  hookTimeoutMs?: number | undefined;
  /** `auto` (default): curl when installed, else bash (`/dev/tcp`), else the Node relay. */
  hookRelay?: 'auto' | HookRelayKind | undefined;
  isolation?: Isolation | undefined;
  linkNativeAuth?: boolean | undefined;
  settingsOverrides?: Record<string, unknown> | undefined;
  skillsPaths?: readonly string[] | undefined;
  subagents?: readonly SubagentConfig[] | undefined;
  /** The environment agy will run with (for HOME and PATH). */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** The host's hooks on each call of `tools` (gate, after, observer, context), passed whole to the listener. */
  ownTools?: OwnToolHooks | undefined;
  /**
   * Answers the calls of the commands `hooks` installs, and sees each answer sent (the agy hook adapter, which
   * runs the registrations itself and tells the host). Without it, a plain dispatcher over `hooks` answers.
   */
  hookEndpoint?: HookEndpoint | undefined;
  /** Sees each answered MCP POST on the listener (a cassette recorder). */
  onMcpExchange?: McpExchangeObserver | undefined;
  /** The caller ran `SessionRuntime.validate` on these options already (the Agent does, once, up front). */
  prevalidated?: boolean | undefined;
  /**
   * The PreInvocation command calls the listener only while its gate is open ({@link SessionRuntime.setPreInvocationGate});
   * while it is closed the script answers `{}` itself. For a PreInvocation hook that only delivers steering:
   * agy runs it before every model call, and a relay call each time costs a curl start and a listener request.
   */
  gatePreInvocation?: boolean | undefined;
}

export class SessionRuntime {
  /** The session directory. */
  readonly dir: SessionDir;
  /** The listener, when tools or hooks need one. */
  readonly listener: SessionListener | undefined;
  /** Environment overrides for agy (HOME under shadow-home isolation). */
  readonly env: Record<string, string>;
  /** The `--json-schema` file, if any. */
  readonly jsonSchemaFile: string | undefined;
  /** The hooks file written, if any. */
  readonly hooksFile: string | undefined;
  /** agy's name for each configured MCP server (`<config name>` → `agy-sdk_<config name>`). */
  readonly agyServerNames: ReadonlyMap<string, string>;
  /** The PreInvocation gate file, when the PreInvocation command is gated. */
  readonly #preInvocationGate: string | undefined;
  /** The hook scripts' own directory, when the session directory's path is not a plain word. */
  readonly hookBinDir: SessionDir | undefined;

  private constructor(init: {
    dir: SessionDir;
    hookBinDir: SessionDir | undefined;
    listener: SessionListener | undefined;
    env: Record<string, string>;
    jsonSchemaFile: string | undefined;
    hooksFile: string | undefined;
    agyServerNames: Map<string, string>;
    preInvocationGate: string | undefined;
  }) {
    this.dir = init.dir;
    this.listener = init.listener;
    this.env = init.env;
    this.jsonSchemaFile = init.jsonSchemaFile;
    this.hooksFile = init.hooksFile;
    this.agyServerNames = init.agyServerNames;
    this.#preInvocationGate = init.preInvocationGate;
    this.hookBinDir = init.hookBinDir;
  }

  /** Whether the PreInvocation command is gated (see `SessionRuntimeOptions.gatePreInvocation`). */
  get preInvocationGated(): boolean {
    return this.#preInvocationGate !== undefined;
  }

  /**
   * Opens or closes the PreInvocation gate. Synchronous, so a steering message queued before a model call
   * starts is asked for by that call. Throws what the file system throws.
   */
  setPreInvocationGate(open: boolean): void {
    const gate = this.#preInvocationGate;
    if (gate === undefined) return;
    if (open) writeFileSync(gate, '', { mode: 0o600 });
    else rmSync(gate, { force: true });
  }

  /** Validates options that need no I/O; throws `ConfigError`. Called from the Agent constructor. */
  static validate(o: Omit<SessionRuntimeOptions, 'env' | 'logger'>): void {
    validateSession(o);
  }

  /** Builds the session directory, starts the listener, writes every file. Cleans up after itself on failure. */
  static async create(o: SessionRuntimeOptions): Promise<SessionRuntime> {
    if (!o.prevalidated) SessionRuntime.validate(o);
    const hooks = o.hooks ?? [];
    const tools = o.tools ?? [];
    // The directory and the files are made synchronously: one start's at a time per event-loop turn.
    await sessionStartLane.take();
    // The directory and the listener do not depend on each other: both at once, each cleaned up if the other
    // failed (the directory's error first, as when they were made one after the other).
    const [made, started] = await Promise.allSettled([
      SessionDir.create({ dataDir: o.dataDir }),
      tools.length > 0 || hooks.length > 0
        ? SessionListener.start({
            ...(tools.length > 0 && { mcpServers: { [TOOL_SERVER_NAME]: tools } }),
            ...(hooks.length > 0 && {
              hooks: o.hookEndpoint ?? { answer: createHookDispatcher(hooks, o.logger) },
            }),
            onMcpExchange: o.onMcpExchange,
            hookTimeoutMs: o.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
            logger: o.logger,
            ownTools: o.ownTools,
          })
        : Promise.resolve(undefined),
    ]);
    if (made.status === 'rejected' || started.status === 'rejected') {
      if (started.status === 'fulfilled') await started.value?.close();
      if (made.status === 'fulfilled') await made.value.remove();
      throw made.status === 'rejected' ? made.reason : (started as PromiseRejectedResult).reason;
    }
    const dir = made.value;
    const listener = started.value;
    // The hook scripts' own directory, once made: removed with the rest if a later step fails.
    const owned: { hookBinDir?: SessionDir } = {};
    try {
      await sessionStartLane.take();
      const built = await writeSessionFiles(dir, listener, o, owned);
      return new SessionRuntime({ dir, listener, hookBinDir: owned.hookBinDir, ...built });
    } catch (err) {
      await listener?.close();
      await Promise.all([dir.remove(), owned.hookBinDir?.remove()]);
      throw err;
    }
  }

  /**
   * Writes a turn's own `--json-schema` file (`turn-schemas/<hash>.json`, 0600) and returns its path. Named by
   * content, so one schema always gives one path (and the process launched with it is reused).
   */
  turnSchemaFile(schema: Record<string, unknown>): Promise<string> {
    const text = JSON.stringify(schema);
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
    return this.dir.writePrivate(`turn-schemas/${hash}.json`, text);
  }

  /** The attachments directory (created on first use). */
  attachmentsDir(): Promise<string> {
    return this.dir.subdir('attachments');
  }

  /** Stops the listener and removes the session directory (and the hook scripts' own). Idempotent. */
  async close(): Promise<void> {
    try {
      await this.listener?.close();
    } finally {
      await Promise.all([this.dir.remove(), this.hookBinDir?.remove()]);
    }
  }
}

async function writeSessionFiles(
  dir: SessionDir,
  listener: SessionListener | undefined,
  o: SessionRuntimeOptions,
  owned: { hookBinDir?: SessionDir },
) {
  const plugin = `.agents/plugins/${PLUGIN_NAME}`;
  const isolation = o.isolation ?? 'none';
  const env: Record<string, string> = {};
  // Every file is queued here and written at once below (a start used to wait on ~40 file operations in a
  // row, ~12 ms before agy could be spawned).
  const files: PrivateFile[] = [];
  const queue: QueueFile = (relative, content, mode) => {
    files.push({ relative, content, mode });
    return dir.resolve(relative);
  };
  queue(
    `${plugin}/plugin.json`,
    JSON.stringify(validated(PluginJsonSchema, { name: PLUGIN_NAME }, 'plugin.json')),
  );
  queueRules(queue, plugin, o);

  const jsonSchemaFile = o.jsonSchema
    ? queue('response-schema.json', JSON.stringify(o.jsonSchema))
    : undefined;

  const { servers, agyServerNames } = mcpServerEntries(listener, o);

  // Hooks: one relay command per registered event; only events with handlers are installed.
  const { hooksFile, preInvocationGate, scripts } = await queueHooksFile(dir, listener, o, queue, owned);
  const placement = o.hookPlacement ?? (isolation === 'shadow-home' ? 'home' : 'workspace');

  let hooksPath: string | undefined;
  if (isolation === 'shadow-home') {
    const shadowHome = join(dir.path, 'home');
    await buildShadowHome({
      userHome: o.env.HOME ?? homedir(),
      shadowHome,
      settingsOverrides: o.settingsOverrides,
      mcpServers: Object.fromEntries(Object.entries(servers).map(([k, v]) => [`${PLUGIN_NAME}_${k}`, v])),
      hooks: placement === 'home' ? hooksFile : undefined,
      linkNativeAuth: o.linkNativeAuth,
      warn: (m) => o.logger.warn(m),
    });
    env.HOME = shadowHome;
    if (hooksFile && placement === 'home') hooksPath = join(shadowHome, '.gemini/config/hooks.json');
  } else if (Object.keys(servers).length > 0) {
    queue(
      `${plugin}/mcp_config.json`,
      JSON.stringify(validated(McpConfigSchema, { mcpServers: servers }, 'mcp_config.json'), null, 2),
    );
  }
  if (hooksFile && placement !== 'home') {
    hooksPath = queue(
      placement === 'plugin' ? `${plugin}/hooks.json` : '.agents/hooks.json',
      JSON.stringify(hooksFile, null, 2),
    );
  }

  queueSubagents(queue, o.subagents ?? []);
  await dir.writeAllPrivate(files);
  if (scripts) await scripts.dir.writeAllPrivate(scripts.files);
  if (o.skillsPaths?.length) await linkSkills(await dir.subdir(`${plugin}/skills`), o.skillsPaths);

  return { env, jsonSchemaFile, hooksFile: hooksPath, agyServerNames, preInvocationGate };
}

/** The plugin's always-on rules: the system instructions and the notes, each when given. */
function queueRules(queue: QueueFile, plugin: string, o: SessionRuntimeOptions): void {
  if (o.systemInstructions !== undefined) {
    queue(
      `${plugin}/rules/system-instructions.md`,
      alwaysOnRule(
        'systemInstructions',
        'agy-sdk system instructions',
        renderInstructions(o.systemInstructions),
      ),
    );
  }
  if (o.notes !== undefined)
    queue(`${plugin}/rules/notes.md`, alwaysOnRule('notes', 'agy-sdk notes', o.notes));
}

/**
 * MCP servers: ours on the listener, then the user's. Keys are the names agy will show, minus the plugin prefix;
 * `agyServerNames` maps each to the name agy shows.
 *
 * @throws ConfigError when a user's server takes our own server's name.
 */
function mcpServerEntries(
  listener: SessionListener | undefined,
  o: SessionRuntimeOptions,
): { servers: Record<string, McpConfigEntry>; agyServerNames: Map<string, string> } {
  const servers: Record<string, McpConfigEntry> = {};
  const agyServerNames = new Map<string, string>();
  if (listener && (o.tools?.length ?? 0) > 0) {
    const url = listener.mcpUrl(TOOL_SERVER_NAME);
    servers[TOOL_SERVER_NAME] =
      o.toolTransport === 'stdio' ? stdioRelayServerConfig(url) : { serverUrl: url };
    agyServerNames.set(TOOL_SERVER_NAME, OWN_TOOL_SERVER);
  }
  for (const [name, server] of Object.entries(o.mcpServers ?? {})) {
    if (name === TOOL_SERVER_NAME)
      throw new ConfigError(`mcpServers.${name}`, "is reserved for the agent's own tools");
    servers[name] = toAgyMcpEntry(name, server);
    agyServerNames.set(name, `${PLUGIN_NAME}_${name}`);
  }
  return { servers, agyServerNames };
}

/** One `.agents/agents/<name>/agent.md` per subagent. */
function queueSubagents(queue: QueueFile, subagents: readonly SubagentConfig[]): void {
  for (const s of subagents) {
    const fm = validated(
      AgentFrontmatterSchema,
      { name: s.name, description: s.description, subagent: s.subagent ?? true },
      'agent.md',
    );
    queue(`.agents/agents/${s.name}/agent.md`, `${renderFrontmatter(fm)}\n${s.instructions.trim()}\n`);
  }
}

/**
 * Links each skill into the plugin's `skills/`: a path holding `SKILL.md` is one skill, any other path is a
 * folder whose subfolders holding one are. An existing link is kept.
 */
async function linkSkills(skillsDir: string, skillsPaths: readonly string[]): Promise<void> {
  for (const p of skillsPaths) {
    const skillDirs = existsSync(join(p, 'SKILL.md'))
      ? [p]
      : (await readdir(p, { withFileTypes: true }))
          .filter((d) => d.isDirectory() && existsSync(join(p, d.name, 'SKILL.md')))
          .map((d) => join(p, d.name));
    for (const skill of skillDirs) {
      const link = join(skillsDir, basename(skill));
      if (!existsSync(link)) await symlink(skill, link);
    }
  }
}
