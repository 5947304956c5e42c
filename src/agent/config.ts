/**
 * Agent configuration (Layer 1). Mirrors the Python SDK's `LocalAgentConfig` where agy can honour it.
 */

import type { RecordConfig } from '../cassette/recorder.js';
import type {
  AgyHookRegistration,
  AgyMode,
  BadLine,
  HookPlacement,
  Isolation,
  McpServerConfig,
  SubagentConfig,
  SystemInstructions,
} from '../connection/agy/index.js';
import type { BackendConfig } from '../connection/backend-config.js';
import type { ConnectionFactory } from '../connection/connection.js';
import type { BudgetConfig } from '../conversation/budget.js';
import type { ProviderConfig } from '../gateway/provider-bridge.js';
import type { Hook } from '../hooks/kinds.js';
import type { Logger } from '../logger.js';
import type { CapabilitiesConfig, ThinkingLevel } from '../model/builtin-tools.js';
import type { PricingTable } from '../model/pricing.js';
import type { ResponseSchemaInput } from '../model/response-schema.js';
import type { PolicyList } from '../policy/types.js';
import type { TelemetryConfig } from '../telemetry/telemetry-config.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { Trigger } from '../triggers/types.js';

/** `AgentConfig.effort`: the Python SDK's `ThinkingLevel` names, plus `xhigh` and `max`. */
export type Effort = ThinkingLevel | 'xhigh' | 'max';

/** Everything an `Agent` can be configured with. All fields are optional. */
export interface AgentConfig {
  /**
   * The backend: agy over stream-json (default, `{ kind: 'agy' }`), or an agent over the Agent Client Protocol
   * (`{ kind: 'acp', preset: 'gemini-cli' }` runs `gemini --acp`; `command`/`args` override the preset's).
   * On ACP every other field means the same as on agy, or setting it is a `ConfigError` naming the field
   * (see docs/backends.md).
   */
  backend?: BackendConfig | undefined;
  /** Path of the agy binary. Otherwise `AGY_PATH`, then PATH. */
  agyPath?: string | undefined;
  /** Environment overrides, merged over `process.env` (a value of `undefined` removes the variable). */
  env?: Record<string, string | undefined>;
  /** Working directory of agy. Default: the first workspace, else `process.cwd()`. */
  cwd?: string | undefined;
  /**
   * Tool workspaces, each passed with `--add-dir`. Absolute, existing, and without a hidden segment (agy
   * silently ignores those). Default: `[process.cwd()]`.
   */
  workspaces?: string[] | undefined;
  /** The model (`--model`). */
  model?: string | undefined;
  /**
   * Reasoning effort: the Python SDK's `ThinkingLevel` names, or `xhigh`/`max`. agy takes `low`, `medium` and
   * `high` (`--effort`); `minimal`, which agy does not have, runs as `low`, its nearest level. `xhigh` and `max`
   * are passed only to an agy known to accept them, and no build is known to yet: on every one the start is an
   * `UnsupportedError` naming the flag and the version (docs/reference/stream-json.md#flags-by-version).
   * Refused on ACP.
   */
  effort?: Effort | undefined;
  /**
   * agy's `--mode`: `plan` (the agent plans and does not edit; agy 1.1.2 did not enforce it headless, so for a
   * guarantee also set `capabilities: { enabledTools: BuiltinTools.readOnly() }`) or `accept-edits` (file edits
   * in the workspaces run without agy's permission check). Passed only to builds known to accept it (`plan`
   * from 1.1.2, `accept-edits` from 1.3.1); an older one is an `UnsupportedError` before launch naming the flag
   * and the version (docs/reference/stream-json.md#flags-by-version). Refused on ACP.
   */
  mode?: AgyMode | undefined;
  /**
   * agy's `--sandbox`: its terminal tools run in agy's sandbox (commands only: file edits are not confined by
   * it). Passed only to builds known to accept it (from 1.1.9); an older one is an `UnsupportedError` before
   * launch naming the flag and the version. Refused on ACP.
   */
  sandbox?: boolean | undefined;
  /**
   * A Gemini API key (Python `GeminiConfig.api_key`): the model is called with this key instead of the user's
   * login. On agy: API-key mode, `modelProvider: "gemini"` in the shadow HOME's settings (so it implies
   * `isolation: 'shadow-home'`) plus `GEMINI_API_KEY` in agy's environment; on Gemini CLI (ACP):
   * `GEMINI_API_KEY` with API-key auth selected. Never in argv or logs. Unset: the backend's own auth (which
   * reads `GEMINI_API_KEY` from `env` / the environment, as before).
   */
  apiKey?: string | undefined;
  /**
   * Use Vertex AI (Python `GeminiConfig.vertex`). Gemini CLI (ACP): `GOOGLE_GENAI_USE_VERTEXAI=true`. agy has
   * no Vertex mode: refused there (`UnsupportedError`).
   */
  vertex?: boolean | undefined;
  /** The Google Cloud project (Gemini CLI: `GOOGLE_CLOUD_PROJECT`). Refused on agy (`UnsupportedError`). */
  project?: string | undefined;
  /** The Google Cloud location (Gemini CLI: `GOOGLE_CLOUD_LOCATION`). Refused on agy (`UnsupportedError`). */
  location?: string | undefined;
  /**
   * Which built-in tools exist for the model (Python `CapabilitiesConfig`). See {@link CapabilitiesConfig} for
   * what each backend does with it.
   */
  capabilities?: CapabilitiesConfig | undefined;
  /**
   * Turn off the workspace confinement. By default, as in the Python SDK (`workspace_only(workspaces)`
   * prepended to the policies), the path arguments of the built-in file tools must resolve inside
   * `workspaces` (symlinks followed) or the call is denied, and agy's shadow settings get
   * `allowNonWorkspaceAccess: false`. `true` drops both.
   */
  allowOutsideWorkspaces?: boolean | undefined;
  /** Resume this conversation (`--conversation`). */
  conversationId?: string | undefined;
  /**
   * When agy does not know `conversationId` (it warns `conversation "<id>" not found` and starts a new one):
   * `'allow'` (default) goes on in the new conversation (`TurnResult.resumed: false`, a notice, a logger warning,
   * `agent.conversationId` the new id); `'require'` fails the start with a `ConversationNotFoundError`.
   */
  resume?: 'allow' | 'require' | undefined;
  /**
   * System instructions. A string or `{ identity?, sections? }` (Python `TemplatedSystemInstructions`) is
   * appended to agy's defaults as an always-on rule (at most 24,000 bytes). `{ mode: 'replace', text }` (Python
   * `CustomSystemInstructions`) replaces the backend's system prompt where it can: Gemini CLI over ACP
   * (`GEMINI_SYSTEM_MD`); agy cannot, so it is refused there (`UnsupportedError`).
   */
  systemInstructions?: SystemInstructions | undefined;
  /** Structured output: a zod schema or a JSON Schema. Passed as `--json-schema`; results are validated. */
  responseSchema?: ResponseSchemaInput | undefined;
  /**
   * Pass `--dangerously-skip-permissions` (agy's `always-proceed`). Without it, headless agy soft-denies
   * actions that need approval, and those turns end `denied`.
   */
  dangerouslySkipPermissions?: boolean | undefined;
  /** Extra agy flags, appended verbatim. */
  extraArgs?: string[] | undefined;
  /** Parent of the per-session directory. Default: see `defaultDataDir()`. */
  dataDir?: string | undefined;
  /** How long to wait for agy's `init`. Default 60 s. */
  startTimeoutMs?: number | undefined;
  /**
   * End a turn `timeout` when agy shows no sign of life (no stdout line, no hook, no tool call) for this long.
   * Default 30 minutes; `0` turns the watchdog off.
   */
  idleTimeoutMs?: number | undefined;
  /** End a turn `timeout` when it runs longer than this. Off by default (`0` also means off). */
  turnTimeoutMs?: number | undefined;
  /** After an interrupt or a watchdog SIGINT, how long before agy's tree is killed. Default 5 s. */
  interruptGraceMs?: number | undefined;
  /** On close: how long agy gets after stdin EOF before SIGTERM. Default 3 s (then 2 s to SIGKILL). */
  closeGraceMs?: number | undefined;
  /** Longest stdout line accepted, in bytes. Default 64 MiB. */
  maxLineBytes?: number | undefined;
  /** Steps kept in `conversation.history`. Default 10,000; `0` keeps every step. */
  historyLimit?: number | undefined;
  /** Lines agy wrote that were not understood (not JSON, unknown event, too long, truncated). Never thrown. */
  onBadLine?: ((bad: BadLine) => void) | undefined;
  /** Every line agy writes to stderr. */
  onStderr?: ((line: string) => void) | undefined;

  // Session runtime (tools, MCP, hooks, isolation).

  /** In-process tools (`tool()`), served to agy over MCP on the session listener as server `agy-sdk_tools`. */
  tools?: ToolDefinition[] | undefined;
  /** How agy reaches the tool server: `http` (default, `serverUrl`) or `stdio` (a relay agy starts). */
  toolTransport?: 'http' | 'stdio' | undefined;
  /** The user's MCP servers (stdio or Streamable HTTP), written to the session's MCP config. */
  mcpServers?: Record<string, McpServerConfig> | undefined;
  /** Raw agy hook handlers, run in-process through the hook relay. */
  agyHooks?: AgyHookRegistration[] | undefined;
  /**
   * Where the hooks file goes: `workspace` (the session dir's `.agents/hooks.json`; default without
   * isolation), `plugin` (the session plugin's `hooks.json`), or `home` (the shadow HOME's
   * `~/.gemini/config/hooks.json`; default with `isolation: 'shadow-home'`).
   */
  hookPlacement?: HookPlacement | undefined;
  /** How long a hook handler may run before the fail-closed answer is sent. Default 30 s. */
  hookTimeoutMs?: number | undefined;
  /**
   * How hook commands reach the listener: `auto` (curl if installed, else bash's `/dev/tcp` if bash is,
   * else Node), `curl`, `bash` or `node`.
   */
  hookRelay?: 'auto' | 'curl' | 'bash' | 'node' | undefined;
  /** `none` (default): the user's HOME, login and settings. `shadow-home`: agy runs with a private HOME. */
  isolation?: Isolation | undefined;
  /** With shadow-home: link native auth/session state (and macOS keychain paths) so the login still works. */
  linkNativeAuth?: boolean | undefined;
  /** With shadow-home: merged over the user's `settings.json`, e.g. `{ modelProvider: 'gemini' }`. */
  settingsOverrides?: Record<string, unknown> | undefined;
  /**
   * Provider mode: run agy on another model provider (OpenAI Chat, OpenAI Responses or Anthropic) through an
   * in-process Gemini-compatible gateway on 127.0.0.1, pinned to `provider.model`. Implies
   * `isolation: 'shadow-home'` (with `modelProvider: "gemini"` merged into agy's settings); agy gets the
   * gateway's per-run token, never `apiKey`. Each turn reports the upstream's own counts in
   * `TurnResult.providerUsage`.
   */
  provider?: ProviderConfig | undefined;
  /** Notes: a second always-on rule (at most 24,000 bytes). */
  notes?: string | undefined;
  /** Prepended to every user message as a `<system-reminder>` text block. */
  reminder?: string | undefined;
  /** Skill directories (each a skill with SKILL.md, or a directory of skills), linked into the session plugin. */
  skillsPaths?: string[] | undefined;
  /** Custom subagents, written as `.agents/agents/<name>/agent.md`. */
  subagents?: SubagentConfig[] | undefined;
  /** Where the SDK reports contained failures (hooks that threw, relays that failed). Default: stderr. */
  logger?: Logger | undefined;

  // Control plane (hooks, policies, triggers, budgets).

  /** Typed hooks (`hooks.preToolCall(fn)`, hook classes…). See docs/architecture.md for where each runs. */
  hooks?: Hook[] | undefined;
  /**
   * Tool policies (`policy.allow`, `policy.deny`, `policy.askUser`, …), enforced in-process. Default:
   * `policy.confirmRunCommand()` (deny `run_command`, allow the rest). `[]` means no policy.
   */
  policies?: PolicyList | undefined;
  /** How long an `askUser` handler has before the call is denied. Default 5 minutes. */
  askUserTimeoutMs?: number | undefined;
  /** Triggers (`every`, `onFileChange`, …): started with the agent, stopped on close. */
  triggers?: Trigger[] | undefined;
  /** Budgets; exceeding one interrupts the turn, which ends `budget_exceeded`. */
  budget?: BudgetConfig | undefined;
  /**
   * Prices in USD per million tokens, by model id, over the built-in table (`defaultPrices`); `'*'` prices any
   * other model. Usage of an unpriced model has `costUsd: null`.
   */
  pricing?: PricingTable | undefined;
  /**
   * OpenTelemetry traces and metrics (docs/observability.md). On by default when the optional peer
   * `@opentelemetry/api` is installed and a provider is registered; costs nothing otherwise.
   */
  telemetry?: TelemetryConfig | undefined;
  /**
   * Install agy's `PreInvocation` hook so `steer(text, { when: 'next-step' })` can inject at the next model
   * call. The hook calls the SDK only while such a message waits (otherwise it answers by itself: one shell
   * start per model call). Default true; with false, next-step messages wait for the next prompt.
   */
  steering?: boolean | undefined;
  /**
   * Record the session into a cassette file in `record.dir` (one per session; sanitized; see
   * docs/guides/testing-your-agent.md#cassettes). `AGY_SDK_RECORD=<dir>` in the environment does the same for
   * any program. agy backend only.
   */
  record?: RecordConfig | undefined;
  /**
   * The backend to run on, instead of agy: called once by `start()` with the host interface the backend calls
   * back through. The agy-specific fields above (agyPath, hooks files, isolation, …) are then unused. For
   * tests, `agy-sdk/testing` ships an in-memory connection (`InMemoryConnection`).
   */
  connection?: ConnectionFactory | undefined;
}
