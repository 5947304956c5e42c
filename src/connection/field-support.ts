/**
 * The Python SDK's configuration fields (`google-antigravity` `LocalAgentConfig`, `GeminiConfig`,
 * `CapabilitiesConfig`, `CustomSystemInstructions`) per backend: each is honoured (and how) or refused with an
 * `UnsupportedError` naming the field and the backend. One table, read by `validate-config.ts` and by
 * `scripts/capability-table.mjs` (which writes it into docs/backends.md); it imports nothing.
 */

/** What one backend does with one field. */
export type FieldSupport =
  | {
      support: 'yes';
      /** How the backend honours it. */
      how: string;
    }
  | {
      support: 'unsupported';
      /** Why not, and what to use instead. */
      why: string;
    };

/** The backends the table covers. */
export interface FieldSupportRow {
  /** agy over stream-json. */
  agy: FieldSupport;
  /** An ACP agent (the mappings are Gemini CLI's). */
  acp: FieldSupport;
}

const yes = (how: string): FieldSupport => ({ support: 'yes', how });
const no = (why: string): FieldSupport => ({ support: 'unsupported', why });

/** The Python-parity fields, by the `AgentConfig` path a user writes. */
export const PARITY_FIELD_SUPPORT = {
  apiKey: {
    agy: yes(
      'API-key mode: `modelProvider: "gemini"` in the shadow settings (implies `isolation: \'shadow-home\'`) and `GEMINI_API_KEY` in its environment',
    ),
    acp: yes('`GEMINI_API_KEY` in its environment (Gemini CLI then selects API-key auth)'),
  },
  vertex: {
    agy: no('agy has no Vertex AI mode'),
    acp: yes('`GOOGLE_GENAI_USE_VERTEXAI=true` in its environment'),
  },
  project: {
    agy: no('agy has no Vertex AI mode (no Google Cloud project setting)'),
    acp: yes('`GOOGLE_CLOUD_PROJECT` in its environment'),
  },
  location: {
    agy: no('agy has no Vertex AI mode (no Google Cloud location setting)'),
    acp: yes('`GOOGLE_CLOUD_LOCATION` in its environment'),
  },
  "systemInstructions: { mode: 'replace' }": {
    agy: no(
      'agy cannot replace its system prompt; use a string or { identity, sections }, appended as an always-on rule',
    ),
    acp: yes(
      '`GEMINI_SYSTEM_MD` pointing at a private file (Gemini CLI preset only; other ACP agents: refused)',
    ),
  },
  'capabilities.disabledTools': {
    agy: yes(
      "a deny policy (the tool never runs) and, with shadow-home, `permissions.deny` in agy's settings; the model may still see the tool",
    ),
    acp: yes(
      "hidden from the model (`tools.exclude` in Gemini CLI's settings, with shadow-home) and a deny policy",
    ),
  },
  'capabilities.enabledTools': {
    agy: yes(
      "a deny policy for every other built-in tool and, with shadow-home, `permissions.deny` in agy's settings; the model may still see them",
    ),
    acp: yes(
      "the others hidden from the model (`tools.core` in Gemini CLI's settings, with shadow-home) and a deny policy",
    ),
  },
  'capabilities.enableSubagents': {
    agy: yes('`false`: `invoke_subagent`, `define_subagent` and `manage_subagents` disabled as above'),
    acp: no("`false`: the SDK knows no subagent tool of Gemini CLI's to disable"),
  },
  'capabilities.compactionThreshold': {
    agy: no('agy has no compaction setting'),
    acp: no("Gemini CLI's compression threshold is a fraction of the context window, not a token count"),
  },
  "capabilities.agentBehavior: 'interactive'": {
    agy: no(
      'agy runs headless here: it has no channel for the agent to ask the user (`onInteraction` never fires)',
    ),
    acp: no('the ACP client has no channel for the agent to ask the user (`onInteraction` never fires)'),
  },
  "capabilities.agentBehavior: 'minimal'": {
    agy: no(
      "agy has no setting that prunes its system prompt for small models, and it cannot replace the prompt ('autonomous' is what agy does)",
    ),
    acp: no(
      "Gemini CLI has no setting that prunes its system prompt; `systemInstructions: { mode: 'replace' }` replaces it whole",
    ),
  },
  allowOutsideWorkspaces: {
    agy: yes(
      "`true` drops the workspace-only policy and agy's `allowNonWorkspaceAccess: false` (shadow settings)",
    ),
    acp: yes(
      '`true` drops the workspace-only policy, which sees the calls that ask permission (writes, commands); writes over `fs/*` stay inside the workspaces',
    ),
  },
} as const satisfies Record<string, FieldSupportRow>;

/** A row's key. */
export type ParityField = keyof typeof PARITY_FIELD_SUPPORT;
