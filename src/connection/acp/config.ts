/**
 * `AgentConfig.backend` and how the rest of `AgentConfig` maps onto an ACP agent: each field's description
 * (`connection/config-fields.ts`) says whether it means the same on ACP, is mapped, or is rejected (a
 * `ConfigError` naming the field and the backend).
 */
import { CONFIG_FIELDS, type ConfigFieldName } from '../config-fields.js';
import type { AcpFieldSupport } from '../field-support.js';

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
export type { AcpFieldSupport };

/**
 * Every `AgentConfig` field on the ACP backend, derived from each field's description (`acp`,
 * `connection/config-fields.ts`). `same`: it means what it means on agy. `mapped`: it becomes `how`.
 * `rejected`: setting it is a `ConfigError` naming the field and the backend (checked at construction).
 */
export const ACP_FIELD_SUPPORT = Object.fromEntries(
  Object.entries(CONFIG_FIELDS).map(([field, { acp }]) => [field, acp]),
) as { readonly [K in ConfigFieldName]: (typeof CONFIG_FIELDS)[K]['acp'] };
