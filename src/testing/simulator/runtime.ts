/**
 * What agy loads around the conversation: configuration (plugins, rules, custom agents, hooks, MCP servers),
 * the hook runner's settings and the MCP clients. Created before `init` (an unparsable `mcp_config.json` ends
 * the run there), started right after it (MCP servers connect in parallel while `SessionStart` hooks run),
 * and closed on exit.
 */
import { homedir } from 'node:os';
import { discoverConfig, type RuntimeConfig } from './discovery.js';
import type { HookCommand, HookEvent } from './hook-config.js';
import { type HookExec, hookCwd, killRunningHooks } from './hook-runner.js';
import { McpHub } from './mcp-hub.js';
import { type AgyProfile, profileFor } from './profile.js';

/** The model name hooks are told when `--model` is absent (the Python SDK's `DEFAULT_MODEL`, docs/reference/design-sources.md#python-sdk-default-model). */
export const DEFAULT_MODEL_NAME = 'gemini-3.7-flash';

/** How long closing the MCP clients may take at exit before the stragglers are killed. */
const CLOSE_BOUND_MS = 1500;

/** Startup inputs of the runtime. */
export interface RuntimeOptions {
  /** Usable `--add-dir` workspaces. */
  workspaces: readonly string[];
  /** `--model`, if given. */
  model: string | undefined;
  /** Whether `--dangerously-skip-permissions` was given. */
  skipPermissions: boolean;
  /** The version announced to MCP servers. */
  version: string;
  /** The user's home (read-only). Default `os.homedir()`, which follows `$HOME`. */
  home?: string;
}

/** The loaded configuration plus the live parts (MCP clients) of one simulator process. */
export class SimRuntime {
  /** Set by `start()`; absent when no MCP server is configured. */
  mcp: McpHub | undefined;
  /** The directory hook commands run in. */
  readonly hookCwd: string;
  /** How hook commands are run: through a shell, or split on spaces (the imitated version's `hookCommand`). */
  readonly hookExec: HookExec;
  /** How a PreToolUse answer is read (the imitated version's `preToolUseAnswers`). */
  readonly preToolUseAnswers: AgyProfile['preToolUseAnswers'];
  /** `init.permission_mode`: the flag, else `settings.json`'s `toolPermission`, else `request-review`. */
  readonly permissionMode: string;
  /** The model name hooks see. */
  readonly modelName: string;

  readonly #options: RuntimeOptions;

  private constructor(
    readonly config: RuntimeConfig,
    options: RuntimeOptions,
  ) {
    this.#options = options;
    this.hookCwd = hookCwd(config.workspaces, process.cwd());
    const profile = profileFor(options.version);
    this.hookExec = profile.hookCommand;
    this.preToolUseAnswers = profile.preToolUseAnswers;
    this.permissionMode = options.skipPermissions
      ? 'always-proceed'
      : (config.toolPermission ?? 'request-review');
    this.modelName = options.model ?? DEFAULT_MODEL_NAME;
  }

  /**
   * Discovers the configuration.
   *
   * @throws McpConfigError when an `mcp_config.json` cannot be parsed.
   */
  static load(options: RuntimeOptions, warn: (line: string) => void): SimRuntime {
    const config = discoverConfig(options.workspaces, options.home ?? homedir(), warn);
    return new SimRuntime(config, options);
  }

  /** Whether a PreToolUse `ask` lets the tool run: only in `always-proceed` mode (headless agy cannot ask). */
  get asksProceed(): boolean {
    return this.permissionMode === 'always-proceed';
  }

  /** The hooks of `event`, for `toolName` when it is a tool event. */
  hooksFor(event: HookEvent, toolName?: string): HookCommand[] {
    const hooks = this.config.hooks[event];
    if (toolName === undefined) return hooks;
    return hooks.filter((hook) => hook.matcher === undefined || hook.matcher.test(toolName));
  }

  /** Connects the MCP servers (in parallel). */
  async connectMcp(warn: (line: string) => Promise<void>): Promise<void> {
    if (this.config.mcpServers.length === 0) return;
    this.mcp = new McpHub(this.config.mcpServers);
    await this.mcp.connect(this.#options.version, warn);
  }

  /** Closes the MCP clients, bounded; stdio servers still running afterwards are killed. */
  async close(): Promise<void> {
    killRunningHooks();
    await this.mcp?.close(CLOSE_BOUND_MS);
  }

  /** Kills stdio MCP servers and hook commands now (synchronous: signal handlers, process exit). */
  killNow(signal: NodeJS.Signals = 'SIGTERM'): void {
    killRunningHooks();
    this.mcp?.kill(signal);
  }
}
