/**
 * `AgentConfig.backend` and how the rest of `AgentConfig` maps onto an ACP agent: one table says, for every
 * field, whether it means the same on ACP or is rejected (a `ConfigError` naming the field and the backend).
 */

/** Ready-made ACP agents: their command and their setup. */
export type AcpPreset = 'gemini-cli' | 'agy-acp';

/** An agent spoken to over the Agent Client Protocol (JSON-RPC on its stdin/stdout). */
export interface AcpBackendConfig {
  /** The Agent Client Protocol. */
  kind: 'acp';
  /**
   * `gemini-cli`: `gemini --acp` from PATH, with Gemini CLI's own settings written in the shadow HOME;
   * `agy-acp`: Antigravity's `agy_acp_server` from PATH. Without a preset, `command` is required.
   */
  preset?: AcpPreset | undefined;
  /** The agent's executable (a path, or a name looked up on PATH); overrides the preset's. */
  command?: string | undefined;
  /** Its arguments; override the preset's (`--acp` for Gemini CLI). */
  args?: string[] | undefined;
  /** Extra environment for the agent, over `AgentConfig.env`. */
  env?: Record<string, string> | undefined;
}

/** What the ACP backend does with an `AgentConfig` field. */
export type AcpFieldSupport =
  | { support: 'same' }
  | {
      support: 'mapped';
      /** What it becomes on ACP (docs/backends.md, "Python SDK fields per backend"). */
      how: string;
    }
  | {
      support: 'rejected';
      /** Why, and what to use instead. */
      why: string;
    };

const same = { support: 'same' } as const;
const rejected = (why: string): AcpFieldSupport => ({ support: 'rejected', why });
const mapped = (how: string): AcpFieldSupport => ({ support: 'mapped', how });

/**
 * Every `AgentConfig` field on the ACP backend. `same`: it means what it means on agy. `rejected`: setting it
 * is a `ConfigError` naming the field and the backend (checked at construction).
 */
export const ACP_FIELD_SUPPORT = {
  backend: same,
  env: same,
  cwd: same,
  workspaces: same,
  model: same,
  conversationId: same,
  resume: rejected(
    "agy's unknown-conversation fallback is not an ACP behaviour: `session/load` of an unknown session fails",
  ),
  startTimeoutMs: same,
  idleTimeoutMs: same,
  turnTimeoutMs: same,
  interruptGraceMs: same,
  closeGraceMs: same,
  maxLineBytes: same,
  historyLimit: same,
  onStderr: same,
  tools: same,
  mcpServers: same,
  isolation: same,
  settingsOverrides: same,
  provider: same,
  dataDir: same,
  reminder: same,
  logger: same,
  hooks: same,
  policies: same,
  askUserTimeoutMs: same,
  triggers: same,
  budget: same,
  steering: same,
  telemetry: same,
  pricing: same,
  apiKey: mapped('`GEMINI_API_KEY` (see the Python SDK fields table)'),
  vertex: mapped('`GOOGLE_GENAI_USE_VERTEXAI` (see the Python SDK fields table)'),
  project: mapped('`GOOGLE_CLOUD_PROJECT` (see the Python SDK fields table)'),
  location: mapped('`GOOGLE_CLOUD_LOCATION` (see the Python SDK fields table)'),
  capabilities: mapped("Gemini CLI's tool settings and a deny policy (see the Python SDK fields table)"),
  allowOutsideWorkspaces: same,
  agyPath: rejected('agy-only; set backend.command for the ACP agent'),
  effort: rejected('ACP has no reasoning-effort setting'),
  mode: rejected("agy's --mode; ACP session modes are not mapped"),
  sandbox: rejected("agy's --sandbox; Gemini CLI's sandbox is set by its own command line (backend.args)"),
  systemInstructions: mapped(
    "only `{ mode: 'replace', text }`, on Gemini CLI (`GEMINI_SYSTEM_MD`); appended instructions are rejected (`ConfigError`): ACP has no channel for them, put them in the prompt (reminder)",
  ),
  responseSchema: rejected('ACP has no structured-output channel'),
  dangerouslySkipPermissions: rejected('permission requests are answered by policies; use policy.allowAll()'),
  extraArgs: rejected('agy flags; set backend.args for the ACP agent'),
  onBadLine: rejected('stream-json lines only; ACP framing errors are logged'),
  toolTransport: rejected("the agent's own tools always go over HTTP on ACP"),
  agyHooks: rejected('agy hook payloads; use typed hooks and policies'),
  hookPlacement: rejected('agy hook files; ACP has permission requests instead'),
  hookTimeoutMs: rejected('agy hook relays; ACP permission requests follow askUserTimeoutMs'),
  hookRelay: rejected('agy hook relays; ACP has permission requests instead'),
  linkNativeAuth: rejected("agy's native sign-in state"),
  notes: rejected('agy rules; put notes in the prompt (reminder)'),
  skillsPaths: rejected('agy plugin skills'),
  subagents: rejected('agy subagents'),
  connection: rejected('a custom connection replaces the backend; use one or the other'),
  record: same,
} as const satisfies Record<string, AcpFieldSupport>;
