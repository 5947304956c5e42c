/**
 * `AgentConfig`, described once: for every field, its validation, the backend groups it feeds, what the ACP
 * backend does with it, and the Python SDK settings it carries per backend. Its type and TSDoc are
 * `AgentConfig`'s (`agent/config.ts`), and the compiler checks that the two name the same fields
 * (`agent/config-schema.ts`). Everything else is derived from this table: the zod schema, agy's session, launch
 * and watchdog field lists, the ACP settings list, the ACP and Python support checks, and the tables of
 * docs/backends.md (`scripts/capability-table.mjs`). Imports types at most: zod loads on the first config check.
 */
import type { ConfigField } from './field-support.js';
import { checked, mapped, member, no, rejected, same, yes } from './field-support.js';

/** Every `AgentConfig` field (in the order the schema reports issues: the first bad field is the one named). */
export const CONFIG_FIELDS = {
  backend: {
    feeds: [],
    acp: same,
    schema: checked((k) =>
      k.z
        .discriminatedUnion(
          'kind',
          [
            k.z.strictObject({ kind: k.z.literal('agy') }, { error: "must be { kind: 'agy' }" }),
            k.z.strictObject(
              {
                kind: k.z.literal('acp'),
                preset: k.z
                  .enum(['gemini-cli', 'agy-acp'], { error: "must be 'gemini-cli' or 'agy-acp'" })
                  .optional(),
                command: k.nonEmpty.optional(),
                args: k.z.array(k.z.string(), { error: 'must be an array of strings' }).optional(),
                env: k.z.record(k.z.string(), k.z.string({ error: 'values must be strings' })).optional(),
              },
              { error: 'must be { kind, preset?, command?, args?, env? }' },
            ),
          ],
          { error: "must be { kind: 'agy' } or { kind: 'acp', preset?, command?, args?, env? }" },
        )
        .refine((b) => b.kind === 'agy' || b.preset !== undefined || b.command !== undefined, {
          error: 'an ACP backend needs a preset or a command',
        }),
    ),
  },
  agyPath: {
    feeds: ['launch'],
    acp: rejected('agy-only; set backend.command for the ACP agent'),
    schema: checked((k) => k.nonEmpty),
  },
  env: {
    feeds: [],
    acp: same,
    schema: checked((k) =>
      k.z.record(k.z.string(), k.z.string({ error: 'values must be strings' }).optional()),
    ),
  },
  cwd: { feeds: [], acp: same, schema: checked((k) => k.z.string()) },
  workspaces: {
    feeds: [],
    acp: same,
    schema: checked((k) => k.z.array(k.z.string(), { error: 'must be an array of absolute paths' })),
  },
  model: { feeds: ['launch', 'acp'], acp: same, schema: checked((k) => k.nonEmpty) },
  effort: {
    feeds: ['launch'],
    acp: rejected('ACP has no reasoning-effort setting'),
    schema: checked((k) =>
      k.z.enum(['minimal', 'low', 'medium', 'high', 'xhigh', 'max'], {
        error: 'must be one of minimal, low, medium, high, xhigh, max',
      }),
    ),
  },
  mode: {
    feeds: ['launch'],
    acp: rejected("agy's --mode; ACP session modes are not mapped"),
    schema: checked((k) => k.z.enum(['plan', 'accept-edits'], { error: "must be 'plan' or 'accept-edits'" })),
  },
  sandbox: {
    feeds: ['launch'],
    acp: rejected("agy's --sandbox; Gemini CLI's sandbox is set by its own command line (backend.args)"),
    schema: checked((k) => k.z.boolean({ error: 'must be a boolean' })),
  },
  apiKey: {
    feeds: [],
    acp: mapped('`GEMINI_API_KEY` (see the Python SDK fields table)'),
    python: {
      apiKey: {
        agy: yes(
          'API-key mode: `modelProvider: "gemini"` in the shadow settings (implies `isolation: \'shadow-home\'`) and `GEMINI_API_KEY` in its environment',
        ),
        acp: yes('`GEMINI_API_KEY` in its environment (Gemini CLI then selects API-key auth)'),
      },
    },
    schema: checked((k) => k.nonEmpty),
  },
  vertex: {
    feeds: [],
    acp: mapped('`GOOGLE_GENAI_USE_VERTEXAI` (see the Python SDK fields table)'),
    python: {
      vertex: {
        agy: no('agy has no Vertex AI mode'),
        acp: yes('`GOOGLE_GENAI_USE_VERTEXAI=true` in its environment'),
        // Not asking for Vertex is what agy does anyway.
        when: (v) => v === true,
      },
    },
    schema: checked((k) => k.z.boolean()),
  },
  project: {
    feeds: [],
    acp: mapped('`GOOGLE_CLOUD_PROJECT` (see the Python SDK fields table)'),
    python: {
      project: {
        agy: no('agy has no Vertex AI mode (no Google Cloud project setting)'),
        acp: yes('`GOOGLE_CLOUD_PROJECT` in its environment'),
      },
    },
    schema: checked((k) => k.nonEmpty),
  },
  location: {
    feeds: [],
    acp: mapped('`GOOGLE_CLOUD_LOCATION` (see the Python SDK fields table)'),
    python: {
      location: {
        agy: no('agy has no Vertex AI mode (no Google Cloud location setting)'),
        acp: yes('`GOOGLE_CLOUD_LOCATION` in its environment'),
      },
    },
    schema: checked((k) => k.nonEmpty),
  },
  capabilities: {
    feeds: [],
    acp: mapped("Gemini CLI's tool settings and a deny policy (see the Python SDK fields table)"),
    python: {
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
        when: (c) => member(c, 'enableSubagents') === false,
      },
      'capabilities.compactionThreshold': {
        agy: no('agy has no compaction setting'),
        acp: no("Gemini CLI's compression threshold is a fraction of the context window, not a token count"),
        when: (c) => member(c, 'compactionThreshold') !== undefined,
      },
      "capabilities.agentBehavior: 'interactive'": {
        agy: no(
          'agy runs headless here: it has no channel for the agent to ask the user (`onInteraction` never fires)',
        ),
        acp: no('the ACP client has no channel for the agent to ask the user (`onInteraction` never fires)'),
        when: (c) => member(c, 'agentBehavior') === 'interactive',
      },
      "capabilities.agentBehavior: 'minimal'": {
        agy: no(
          "agy has no setting that prunes its system prompt for small models, and it cannot replace the prompt ('autonomous' is what agy does)",
        ),
        acp: no(
          "Gemini CLI has no setting that prunes its system prompt; `systemInstructions: { mode: 'replace' }` replaces it whole",
        ),
        when: (c) => member(c, 'agentBehavior') === 'minimal',
      },
    },
    schema: checked((k) =>
      k.z
        .strictObject(
          {
            enabledTools: k.toolNames.optional(),
            disabledTools: k.toolNames.optional(),
            enableSubagents: k.z.boolean().optional(),
            compactionThreshold: k.z
              .number()
              .int({ error: 'must be a positive integer' })
              .positive({ error: 'must be a positive integer' })
              .optional(),
            agentBehavior: k.z
              .enum(['autonomous', 'interactive', 'minimal'], {
                error: "must be 'autonomous', 'interactive' or 'minimal'",
              })
              .optional(),
          },
          {
            error:
              'must be { enabledTools?, disabledTools?, enableSubagents?, compactionThreshold?, agentBehavior? }',
          },
        )
        .refine((c) => c.enabledTools === undefined || c.disabledTools === undefined, {
          error: 'enabledTools and disabledTools are mutually exclusive (an allowlist or a denylist)',
        }),
    ),
  },
  allowOutsideWorkspaces: {
    feeds: [],
    acp: same,
    python: {
      allowOutsideWorkspaces: {
        agy: yes(
          "`true` drops the workspace-only policy and agy's `allowNonWorkspaceAccess: false` (shadow settings)",
        ),
        acp: yes(
          '`true` drops the workspace-only policy, which sees the calls that ask permission (writes, commands); writes over `fs/*` stay inside the workspaces',
        ),
      },
    },
    schema: checked((k) => k.z.boolean()),
  },
  conversationId: { feeds: ['launch', 'acp'], acp: same, schema: checked((k) => k.nonEmpty) },
  resume: {
    feeds: ['launch'],
    acp: rejected(
      "agy's unknown-conversation fallback is not an ACP behaviour: `session/load` of an unknown session fails",
    ),
    schema: checked((k) => k.z.enum(['allow', 'require'], { error: "must be 'allow' or 'require'" })),
  },
  dangerouslySkipPermissions: {
    feeds: [],
    acp: rejected('permission requests are answered by policies; use policy.allowAll()'),
    schema: checked((k) => k.z.boolean()),
  },
  extraArgs: {
    feeds: ['launch'],
    acp: rejected('agy flags; set backend.args for the ACP agent'),
    schema: checked((k) => k.z.array(k.z.string(), { error: 'must be an array of strings' })),
  },
  dataDir: { feeds: ['session', 'acp'], acp: same, schema: checked((k) => k.nonEmpty) },
  startTimeoutMs: { feeds: ['watchdog', 'acp'], acp: same, schema: checked((k) => k.duration) },
  idleTimeoutMs: { feeds: ['watchdog', 'acp'], acp: same, schema: checked((k) => k.durationOrOff) },
  turnTimeoutMs: { feeds: ['watchdog', 'acp'], acp: same, schema: checked((k) => k.durationOrOff) },
  interruptGraceMs: { feeds: ['watchdog', 'acp'], acp: same, schema: checked((k) => k.duration) },
  closeGraceMs: { feeds: ['watchdog', 'acp'], acp: same, schema: checked((k) => k.duration) },
  maxLineBytes: { feeds: ['launch', 'acp'], acp: same, schema: checked((k) => k.positive) },
  historyLimit: {
    feeds: [],
    acp: same,
    // 0 keeps every step, as Python's max_history_size=0.
    schema: checked((k) =>
      k.z
        .number()
        .refine((n) => Number.isFinite(n) && n >= 0, { error: 'must be a number >= 0 (0: no limit)' }),
    ),
  },
  onBadLine: {
    feeds: ['launch'],
    acp: rejected('stream-json lines only; ACP framing errors are logged'),
    schema: checked((k) => k.fn),
  },
  onStderr: { feeds: ['launch', 'acp'], acp: same, schema: checked((k) => k.fn) },

  // Session runtime (tools, MCP, hooks, isolation).

  tools: {
    feeds: [],
    acp: same,
    schema: checked((k) => k.z.array(k.toolEntry, { error: 'must be an array of tool() definitions' })),
  },
  toolTransport: {
    feeds: ['session'],
    acp: rejected("the agent's own tools always go over HTTP on ACP"),
    schema: checked((k) => k.z.enum(['http', 'stdio'], { error: "must be 'http' or 'stdio'" })),
  },
  mcpServers: {
    feeds: ['session', 'acp'],
    acp: same,
    schema: checked((k) =>
      k.z.record(k.z.string(), k.z.unknown(), { error: 'must be an object of server name to server config' }),
    ),
  },
  agyHooks: {
    feeds: [],
    acp: rejected('agy hook payloads; use typed hooks and policies'),
    schema: checked((k) => k.z.array(k.z.unknown())),
  },
  hookPlacement: {
    feeds: ['session'],
    acp: rejected('agy hook files; ACP has permission requests instead'),
    schema: checked((k) =>
      k.z.enum(['workspace', 'plugin', 'home'], { error: "must be 'workspace', 'plugin' or 'home'" }),
    ),
  },
  hookTimeoutMs: {
    feeds: ['session'],
    acp: rejected('agy hook relays; ACP permission requests follow askUserTimeoutMs'),
    schema: checked((k) => k.duration),
  },
  hookRelay: {
    feeds: ['session'],
    acp: rejected('agy hook relays; ACP has permission requests instead'),
    schema: checked((k) =>
      k.z.enum(['auto', 'curl', 'bash', 'node'], { error: "must be 'auto', 'curl', 'bash' or 'node'" }),
    ),
  },
  isolation: {
    feeds: ['session', 'acp'],
    acp: same,
    schema: checked((k) => k.z.enum(['none', 'shadow-home'], { error: "must be 'none' or 'shadow-home'" })),
  },
  linkNativeAuth: {
    feeds: ['session'],
    acp: rejected("agy's native sign-in state"),
    schema: checked((k) => k.z.boolean()),
  },
  settingsOverrides: {
    feeds: ['session'],
    acp: same,
    schema: checked((k) => k.z.record(k.z.string(), k.z.unknown())),
  },
  provider: {
    feeds: [],
    acp: same,
    schema: checked((k) =>
      k.z.strictObject(
        {
          kind: k.z.enum(['openai-chat', 'openai-responses', 'anthropic'], {
            error: "must be 'openai-chat', 'openai-responses' or 'anthropic'",
          }),
          baseUrl: k.httpUrl,
          apiKey: k.nonEmpty,
          model: k.nonEmpty,
          headers: k.z.record(k.z.string(), k.z.string({ error: 'values must be strings' })).optional(),
        },
        { error: 'must be { kind, baseUrl, apiKey, model, headers? }' },
      ),
    ),
  },
  notes: {
    feeds: ['session'],
    acp: rejected('agy rules; put notes in the prompt (reminder)'),
    schema: checked((k) => k.z.string()),
  },
  reminder: { feeds: [], acp: same, schema: checked((k) => k.z.string({ error: 'must be a string' })) },
  skillsPaths: {
    feeds: ['session'],
    acp: rejected('agy plugin skills'),
    schema: checked((k) => k.z.array(k.z.string())),
  },
  subagents: {
    feeds: ['session'],
    acp: rejected('agy subagents'),
    schema: checked((k) => k.z.array(k.z.unknown())),
  },

  // Control plane (hooks, policies, triggers, budgets).

  hooks: {
    feeds: [],
    acp: same,
    schema: checked((k) => k.z.array(k.hookEntry, { error: 'must be an array of hooks (hooks.<kind>(…))' })),
  },
  policies: { feeds: [], acp: same, schema: checked((k) => k.z.array(k.z.unknown())) },
  askUserTimeoutMs: { feeds: [], acp: same, schema: checked((k) => k.duration) },
  triggers: { feeds: [], acp: same, schema: checked((k) => k.z.array(k.z.unknown())) },
  budget: {
    feeds: [],
    acp: same,
    schema: checked((k) =>
      k.z.strictObject({
        maxModelCalls: k.count.optional(),
        maxToolCalls: k.count.optional(),
        maxInputTokens: k.count.optional(),
        maxOutputTokens: k.count.optional(),
        maxTotalTokens: k.count.optional(),
        maxCostUsd: k.nonNegative('must be a non-negative number (USD)').optional(),
        scope: k.z
          .enum(['turn', 'conversation', 'lifetime'], {
            error: "must be 'turn', 'conversation' or 'lifetime'",
          })
          .optional(),
      }),
    ),
  },
  steering: { feeds: [], acp: same, schema: checked((k) => k.z.boolean()) },
  pricing: {
    feeds: [],
    acp: same,
    schema: checked((k) =>
      k.z.record(
        k.z.string(),
        k.z.strictObject(
          {
            input: k.usdPerMillion,
            output: k.usdPerMillion,
            cacheRead: k.usdPerMillion.optional(),
            cacheWrite: k.usdPerMillion.optional(),
          },
          { error: 'must be { input, output, cacheRead?, cacheWrite? } (USD per 1M tokens)' },
        ),
        { error: 'must be an object of model id to prices' },
      ),
    ),
  },
  telemetry: {
    feeds: [],
    acp: same,
    schema: checked((k) =>
      k.z.strictObject(
        {
          enabled: k.z.boolean().optional(),
          captureContent: k.z.boolean().optional(),
          tracerProvider: k.withMethod('getTracer', 'a tracer provider').optional(),
          meterProvider: k.withMethod('getMeter', 'a meter provider').optional(),
        },
        { error: 'must be { enabled?, captureContent?, tracerProvider?, meterProvider? }' },
      ),
    ),
  },
  connection: {
    feeds: [],
    acp: rejected('a custom connection replaces the backend; use one or the other'),
    schema: checked((k) => k.fn),
  },
  record: {
    feeds: [],
    acp: same,
    schema: checked((k) =>
      k.z
        .object(
          {
            dir: k.nonEmpty,
            redact: k.z
              .array(k.redactPattern, { error: 'must be an array of strings and regular expressions' })
              .optional(),
          },
          { error: 'must be { dir, redact? }' },
        )
        .strict(),
    ),
  },

  // Last, as in every earlier release: of several bad fields, the first in this order is the one named.

  systemInstructions: {
    feeds: ['session'],
    acp: mapped(
      "only `{ mode: 'replace', text }`, on Gemini CLI (`GEMINI_SYSTEM_MD`); appended instructions are rejected (`ConfigError`): ACP has no channel for them, put them in the prompt (reminder)",
    ),
    python: {
      "systemInstructions: { mode: 'replace' }": {
        agy: no(
          'agy cannot replace its system prompt; use a string or { identity, sections }, appended as an always-on rule',
        ),
        acp: yes(
          '`GEMINI_SYSTEM_MD` pointing at a private file (Gemini CLI preset only; other ACP agents: refused)',
        ),
        when: (si) => member(si, 'mode') === 'replace',
      },
    },
    schema: checked((k) =>
      k.z.union(
        [
          k.z.string(),
          k.z.strictObject({
            identity: k.z.string().optional(),
            sections: k.z
              .array(
                k.z.object(
                  { title: k.z.string(), content: k.z.string() },
                  { error: 'must be { title, content } (strings)' },
                ),
              )
              .optional(),
            mode: k.z.literal('append').optional(),
          }),
          k.z.strictObject({ mode: k.z.literal('replace'), text: k.z.string() }),
        ],
        {
          error:
            'must be a string, { identity?, sections?: { title, content }[] } or { mode: "replace", text }',
        },
      ),
    ),
  },
  // Checked where it is compiled (response-schema.ts).
  responseSchema: {
    feeds: [],
    acp: rejected('ACP has no structured-output channel'),
    schema: checked((k) => k.z.unknown()),
  },
  // Duck-typed on use.
  logger: { feeds: [], acp: same, schema: checked((k) => k.z.unknown()) },
} as const satisfies Record<string, ConfigField>;

/** A described field's name. */
export type ConfigFieldName = keyof typeof CONFIG_FIELDS;
