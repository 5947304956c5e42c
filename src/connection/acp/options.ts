/**
 * What the ACP backend is built from, and its defaults. Apart from `acp-connection.ts` so that its collaborators
 * can read the options without importing the class that composes them.
 */
import type { AttachmentFiles } from '../../content/attachment-files.js';
import type { Logger } from '../../logger.js';
import type { ToolDefinition } from '../../model/tool.js';
import { fieldsFeeding } from '../config-groups.js';
import type { McpServerConfig } from '../mcp-server-config.js';
import type { WireTap } from '../wire-tap.js';
import type { ACP_FIELD_SUPPORT, AcpPreset } from './config.js';

/** Default time for `initialize` and `session/new` (Gemini CLI takes 7–8 s to initialize on 2 cores). */
export const DEFAULT_ACP_START_TIMEOUT_MS = 60_000;
/** Default stall watchdog of a turn: no sign of life from the agent for 30 minutes ends it `timeout`. */
export const DEFAULT_ACP_IDLE_TIMEOUT_MS = 30 * 60_000;
/** Default time a permission request may wait for the policies and `askUser` before it is denied. */
export const DEFAULT_ACP_PERMISSION_TIMEOUT_MS = 30_000;

/** The `AgentConfig` fields that mean on ACP what they mean on agy (`acp: same` in their description). */
type SameOnAcp = {
  [K in keyof typeof ACP_FIELD_SUPPORT]: (typeof ACP_FIELD_SUPPORT)[K] extends { support: 'same' }
    ? K
    : never;
}[keyof typeof ACP_FIELD_SUPPORT];

/**
 * The `AgentConfig` fields the ACP backend takes as the user set them, in the one group `validateConfig` checks
 * and the Agent forwards whole: derived from each field's description (`feeds: ['acp']`,
 * `connection/config-fields.ts`). Each is the `AgentConfig` field of the same name, whose TSDoc is its one
 * description; the compiler checks each is `same` on ACP and a member of {@link AcpSettings}.
 */
export const ACP_SETTINGS_FIELDS = fieldsFeeding('acp') satisfies readonly (keyof AcpSettings & SameOnAcp)[];

/**
 * The validated config group of the ACP backend: the fields of {@link ACP_SETTINGS_FIELDS} (described on
 * `AgentConfig`), and the two that validation derives for ACP.
 */
export interface AcpSettings {
  dataDir?: string | undefined;
  isolation?: 'none' | 'shadow-home' | undefined;
  mcpServers?: Record<string, McpServerConfig> | undefined;
  conversationId?: string | undefined;
  model?: string | undefined;
  startTimeoutMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  turnTimeoutMs?: number | undefined;
  interruptGraceMs?: number | undefined;
  closeGraceMs?: number | undefined;
  maxLineBytes?: number | undefined;
  onStderr?: ((line: string) => void) | undefined;
  /** The user's `settingsOverrides` over what the Python-parity fields add (Gemini CLI's `settings.json`). */
  settingsOverrides?: Record<string, unknown> | undefined;
  /** `systemInstructions: { mode: 'replace', text }`'s text: replaces the agent's system prompt (`GEMINI_SYSTEM_MD`). */
  systemPrompt?: string | undefined;
}

/** Everything the ACP backend is built from: the validated group, and what the Agent derives for this run. */
export interface AcpConnectionOptions extends AcpSettings {
  /** The agent's executable: a path or a name on PATH (the preset's, or `backend.command`). */
  command: string;
  /** Its arguments (the preset's, or `backend.args`). */
  args: readonly string[];
  /** The preset, for its setup (Gemini CLI's settings in a shadow HOME). */
  preset?: AcpPreset | undefined;
  /** The agent's environment overrides (over `process.env`); `undefined` removes a variable. */
  env?: Record<string, string | undefined> | undefined;
  /** The session's working directory (`session/new` `cwd`). */
  cwd: string;
  /** The workspaces: file reads and writes are served inside them only. */
  workspaces: readonly string[];
  /** The files the SDK wrote for media parts: readable over `fs/read_text_file` though outside the workspaces. */
  attachments?: AttachmentFiles | undefined;
  /** The agent's own tools, served over MCP on the loopback listener. */
  tools?: readonly ToolDefinition[] | undefined;
  /** How long a permission request may wait for the host's answer before it is denied. */
  permissionTimeoutMs?: number | undefined;
  /** Where the backend logs. */
  logger: Logger;
  /** A recorder that sees every JSON-RPC message, stderr line and exit (`AgentConfig.record`); contained here. */
  tap?: WireTap | undefined;
}
