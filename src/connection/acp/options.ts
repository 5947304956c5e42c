/**
 * What the ACP backend is built from, and its defaults. Apart from `acp-connection.ts` so that its collaborators
 * can read the options without importing the class that composes them.
 */
import type { Logger } from '../../logger.js';
import type { ToolDefinition } from '../../tools/tool.js';
import type { McpServerConfig } from '../mcp-server-config.js';
import type { WireTap } from '../wire-tap.js';
import type { AcpPreset } from './config.js';

/** Default time for `initialize` and `session/new` (Gemini CLI takes 7–8 s to initialize on 2 cores). */
export const DEFAULT_ACP_START_TIMEOUT_MS = 60_000;
/** Default stall watchdog of a turn: no sign of life from the agent for 30 minutes ends it `timeout`. */
export const DEFAULT_ACP_IDLE_TIMEOUT_MS = 30 * 60_000;
/** Default time a permission request may wait for the policies and `askUser` before it is denied. */
export const DEFAULT_ACP_PERMISSION_TIMEOUT_MS = 30_000;

/** Everything the ACP backend is built from (validated by the Agent). */
export interface AcpConnectionOptions {
  /** The agent's executable: a path or a name on PATH. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** The preset, for its setup (Gemini CLI's settings in a shadow HOME). */
  preset?: AcpPreset | undefined;
  /** The agent's environment overrides (over `process.env`); `undefined` removes a variable. */
  env?: Record<string, string | undefined> | undefined;
  /** The session's working directory (`session/new` `cwd`). */
  cwd: string;
  /** The workspaces: file reads and writes are served inside them only. */
  workspaces: readonly string[];
  /** Parent of the private session directory. */
  dataDir?: string | undefined;
  /** `shadow-home`: the agent runs with a private HOME the SDK sets up. */
  isolation?: 'none' | 'shadow-home' | undefined;
  /** With shadow-home: merged over the preset's settings (Gemini CLI's `settings.json`). */
  settingsOverrides?: Record<string, unknown> | undefined;
  /** Replaces the agent's system prompt (Gemini CLI: `GEMINI_SYSTEM_MD`, a private file). */
  systemPrompt?: string | undefined;
  /** The agent's own tools, served over MCP on the loopback listener. */
  tools?: readonly ToolDefinition[] | undefined;
  /** The user's MCP servers. */
  mcpServers?: Record<string, McpServerConfig> | undefined;
  /** Resume this session (`session/load`). */
  conversationId?: string | undefined;
  /** Switch to this model after the session starts (`session/set_model`). */
  model?: string | undefined;
  /** Time for `initialize` and for `session/new`/`session/load`, each. */
  startTimeoutMs?: number | undefined;
  /** Stall watchdog; `0` is off. */
  idleTimeoutMs?: number | undefined;
  /** Whole-turn limit; `0` or undefined is off. */
  turnTimeoutMs?: number | undefined;
  /** After `session/cancel`, how long before the process is killed. Default 5 s. */
  interruptGraceMs?: number | undefined;
  /** On close: time after stdin EOF before the group is killed. Default 2 s. */
  closeGraceMs?: number | undefined;
  /** Largest JSON-RPC message accepted from the agent. */
  maxLineBytes?: number | undefined;
  /** How long a permission request may wait for the host's answer before it is denied. */
  permissionTimeoutMs?: number | undefined;
  /** Every line the agent writes to stderr. */
  onStderr?: ((line: string) => void) | undefined;
  /** Where the backend logs. */
  logger: Logger;
  /** A recorder that sees every JSON-RPC message, stderr line and exit (`AgentConfig.record`); contained here. */
  tap?: WireTap | undefined;
}
