/**
 * `AgentConfig.backend`: which backend an Agent runs on. The union and each member live here, in the seam, so
 * the config and the root name them without loading a backend; each backend re-exports its member.
 */

/** The default backend: agy over stream-json. */
export interface AgyBackendConfig {
  /** agy over stream-json (the default). */
  kind: 'agy';
}

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

/** Which backend an Agent runs on. */
export type BackendConfig = AgyBackendConfig | AcpBackendConfig;
