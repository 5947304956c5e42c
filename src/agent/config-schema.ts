/**
 * The shape of `AgentConfig`, as one zod schema: every field's type, range and allowed values. An issue's
 * path becomes `ConfigError.field` (`workspaces[1]`, `budget.maxToolCalls`, `env.FOO`). What needs the file
 * system or several fields at once (paths that exist, hidden segments, isolation-only options, the write
 * guard) is checked after it, in `validate-config.ts`.
 */

import { redactPatternProblem } from '../cassette/redact-patterns.js';
import { ConfigError } from '../errors.js';
import { HOOK_KINDS } from '../hooks/types.js';
import { durationSchema } from '../internal/duration.js';
import type { Exhausted } from '../internal/guards.js';
import { zod } from '../internal/load-sync.js';
import { KNOWN_BUILTIN_TOOLS } from '../tools/builtin-tools.js';
import type { AgentConfig } from './config.js';

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Builds the schema with `z`: on the first config checked, so zod loads then, not with the package. */
function buildSchema(z: typeof import('zod/v4').z) {
  const nonEmpty = z.string().refine((s) => s.trim() !== '', { error: 'must be a non-empty string' });
  const positive = z
    .number()
    .refine((n) => Number.isFinite(n) && n > 0, { error: 'must be a positive number' });
  /** A time in ms: positive, at most Node's timer maximum (internal/duration.ts); `durationOrOff` also takes 0. */
  const duration = durationSchema();
  const durationOrOff = durationSchema({ allowZero: true });
  /** A `tool()` definition: a name, a description, an input schema and a handler. */
  const toolEntry = z.custom<object>(
    (v) => {
      const t = v as { name?: unknown; description?: unknown; input?: unknown; handler?: unknown } | null;
      return (
        typeof t === 'object' &&
        t !== null &&
        typeof t.name === 'string' &&
        typeof t.description === 'string' &&
        typeof t.input === 'object' &&
        t.input !== null &&
        typeof t.handler === 'function'
      );
    },
    { error: 'must be a tool built by tool({ name, description, input, handler })' },
  );
  /** A hook from the `hooks.*` factories: `{ kind, run }` with a known kind. */
  const hookEntry = z.custom<object>(
    (v) => {
      const h = v as { kind?: unknown; run?: unknown } | null;
      return (
        typeof h === 'object' &&
        h !== null &&
        (HOOK_KINDS as readonly unknown[]).includes(h.kind) &&
        typeof h.run === 'function'
      );
    },
    { error: `must be a hook built by hooks.<kind>(…) (kinds: ${HOOK_KINDS.join(', ')})` },
  );
  const instructionSection = z.object(
    { title: z.string(), content: z.string() },
    { error: 'must be { title, content } (strings)' },
  );
  const count = z.number().int({ error: 'must be a non-negative integer' }).nonnegative({
    error: 'must be a non-negative integer',
  });
  const usdPerMillion = z
    .number({ error: 'must be a non-negative number (USD per 1M tokens)' })
    .refine((n) => Number.isFinite(n) && n >= 0, {
      error: 'must be a non-negative number (USD per 1M tokens)',
    });
  const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
    error: 'must be a function',
  });

  const toolNames = z
    .array(nonEmpty, { error: 'must be an array of built-in tool names' })
    .superRefine((names, ctx) => {
      for (const [i, name] of names.entries()) {
        if (KNOWN_BUILTIN_TOOLS.includes(name)) continue;
        const near = nearest(name, KNOWN_BUILTIN_TOOLS);
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `is not a built-in tool name${near ? ` (did you mean '${near}'?)` : ''}; see BuiltinTools`,
        });
      }
    });

  /**
   * `AgentConfig`, field by field. Strict: a key it does not list is a `ConfigError` naming it, with the nearest
   * field (and, for the Python SDK's spelling, the TypeScript one); see {@link unknownKeyMessage}.
   */
  const AgentConfigSchema = z.strictObject({
    backend: z
      .discriminatedUnion(
        'kind',
        [
          z.strictObject({ kind: z.literal('agy') }, { error: "must be { kind: 'agy' }" }),
          z.strictObject(
            {
              kind: z.literal('acp'),
              preset: z
                .enum(['gemini-cli', 'agy-acp'], { error: "must be 'gemini-cli' or 'agy-acp'" })
                .optional(),
              command: nonEmpty.optional(),
              args: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
              env: z.record(z.string(), z.string({ error: 'values must be strings' })).optional(),
            },
            { error: 'must be { kind, preset?, command?, args?, env? }' },
          ),
        ],
        { error: "must be { kind: 'agy' } or { kind: 'acp', preset?, command?, args?, env? }" },
      )
      .refine((b) => b.kind === 'agy' || b.preset !== undefined || b.command !== undefined, {
        error: 'an ACP backend needs a preset or a command',
      })
      .optional(),
    agyPath: nonEmpty.optional(),
    env: z.record(z.string(), z.string({ error: 'values must be strings' }).optional()).optional(),
    cwd: z.string().optional(),
    workspaces: z.array(z.string(), { error: 'must be an array of absolute paths' }).optional(),
    model: nonEmpty.optional(),
    effort: z
      .enum(['minimal', 'low', 'medium', 'high', 'xhigh', 'max'], {
        error: 'must be one of minimal, low, medium, high, xhigh, max',
      })
      .optional(),
    mode: z.enum(['plan', 'accept-edits'], { error: "must be 'plan' or 'accept-edits'" }).optional(),
    sandbox: z.boolean({ error: 'must be a boolean' }).optional(),
    apiKey: nonEmpty.optional(),
    vertex: z.boolean().optional(),
    project: nonEmpty.optional(),
    location: nonEmpty.optional(),
    capabilities: z
      .strictObject(
        {
          enabledTools: toolNames.optional(),
          disabledTools: toolNames.optional(),
          enableSubagents: z.boolean().optional(),
          compactionThreshold: z
            .number()
            .int({ error: 'must be a positive integer' })
            .positive({ error: 'must be a positive integer' })
            .optional(),
          agentBehavior: z
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
      })
      .optional(),
    allowOutsideWorkspaces: z.boolean().optional(),
    conversationId: nonEmpty.optional(),
    resume: z.enum(['allow', 'require'], { error: "must be 'allow' or 'require'" }).optional(),
    dangerouslySkipPermissions: z.boolean().optional(),
    extraArgs: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
    dataDir: nonEmpty.optional(),
    startTimeoutMs: duration.optional(),
    idleTimeoutMs: durationOrOff.optional(),
    turnTimeoutMs: durationOrOff.optional(),
    interruptGraceMs: duration.optional(),
    closeGraceMs: duration.optional(),
    maxLineBytes: positive.optional(),
    // 0 keeps every step, as Python's max_history_size=0.
    historyLimit: z
      .number()
      .refine((n) => Number.isFinite(n) && n >= 0, { error: 'must be a number >= 0 (0: no limit)' })
      .optional(),
    onBadLine: fn.optional(),
    onStderr: fn.optional(),
    tools: z.array(toolEntry, { error: 'must be an array of tool() definitions' }).optional(),
    toolTransport: z.enum(['http', 'stdio'], { error: "must be 'http' or 'stdio'" }).optional(),
    mcpServers: z
      .record(z.string(), z.unknown(), { error: 'must be an object of server name to server config' })
      .optional(),
    agyHooks: z.array(z.unknown()).optional(),
    hookPlacement: z
      .enum(['workspace', 'plugin', 'home'], { error: "must be 'workspace', 'plugin' or 'home'" })
      .optional(),
    hookTimeoutMs: duration.optional(),
    hookRelay: z
      .enum(['auto', 'curl', 'bash', 'node'], { error: "must be 'auto', 'curl', 'bash' or 'node'" })
      .optional(),
    isolation: z.enum(['none', 'shadow-home'], { error: "must be 'none' or 'shadow-home'" }).optional(),
    linkNativeAuth: z.boolean().optional(),
    settingsOverrides: z.record(z.string(), z.unknown()).optional(),
    provider: z
      .strictObject(
        {
          kind: z.enum(['openai-chat', 'openai-responses', 'anthropic'], {
            error: "must be 'openai-chat', 'openai-responses' or 'anthropic'",
          }),
          baseUrl: z.string().refine(isHttpUrl, { error: 'must be an absolute http(s) URL' }),
          apiKey: nonEmpty,
          model: nonEmpty,
          headers: z.record(z.string(), z.string({ error: 'values must be strings' })).optional(),
        },
        { error: 'must be { kind, baseUrl, apiKey, model, headers? }' },
      )
      .optional(),
    notes: z.string().optional(),
    reminder: z.string({ error: 'must be a string' }).optional(),
    skillsPaths: z.array(z.string()).optional(),
    subagents: z.array(z.unknown()).optional(),
    hooks: z.array(hookEntry, { error: 'must be an array of hooks (hooks.<kind>(…))' }).optional(),
    policies: z.array(z.unknown()).optional(),
    askUserTimeoutMs: duration.optional(),
    triggers: z.array(z.unknown()).optional(),
    budget: z
      .strictObject({
        maxModelCalls: count.optional(),
        maxToolCalls: count.optional(),
        maxInputTokens: count.optional(),
        maxOutputTokens: count.optional(),
        maxTotalTokens: count.optional(),
        maxCostUsd: z
          .number({ error: 'must be a non-negative number (USD)' })
          .refine((n) => Number.isFinite(n) && n >= 0, { error: 'must be a non-negative number (USD)' })
          .optional(),
        scope: z
          .enum(['turn', 'conversation', 'lifetime'], {
            error: "must be 'turn', 'conversation' or 'lifetime'",
          })
          .optional(),
      })
      .optional(),
    steering: z.boolean().optional(),
    pricing: z
      .record(
        z.string(),
        z.strictObject(
          {
            input: usdPerMillion,
            output: usdPerMillion,
            cacheRead: usdPerMillion.optional(),
            cacheWrite: usdPerMillion.optional(),
          },
          { error: 'must be { input, output, cacheRead?, cacheWrite? } (USD per 1M tokens)' },
        ),
        { error: 'must be an object of model id to prices' },
      )
      .optional(),
    telemetry: z
      .strictObject(
        {
          enabled: z.boolean().optional(),
          captureContent: z.boolean().optional(),
          tracerProvider: z
            .custom<object>((v) => typeof (v as { getTracer?: unknown })?.getTracer === 'function', {
              error: 'must be a tracer provider (with getTracer)',
            })
            .optional(),
          meterProvider: z
            .custom<object>((v) => typeof (v as { getMeter?: unknown })?.getMeter === 'function', {
              error: 'must be a meter provider (with getMeter)',
            })
            .optional(),
        },
        { error: 'must be { enabled?, captureContent?, tracerProvider?, meterProvider? }' },
      )
      .optional(),
    connection: fn.optional(),
    record: z
      .object(
        {
          dir: nonEmpty,
          redact: z
            .array(
              z.union([z.string(), z.instanceof(RegExp)]).superRefine((pattern, ctx) => {
                // One that matches the empty string would match everywhere (docs/guides/testing-your-agent.md#cassettes).
                const problem = redactPatternProblem(pattern);
                if (problem) ctx.addIssue({ code: 'custom', message: problem });
              }),
              { error: 'must be an array of strings and regular expressions' },
            )
            .optional(),
        },
        { error: 'must be { dir, redact? }' },
      )
      .strict()
      .optional(),
    systemInstructions: z
      .union(
        [
          z.string(),
          z.strictObject({
            identity: z.string().optional(),
            sections: z.array(instructionSection).optional(),
            mode: z.literal('append').optional(),
          }),
          z.strictObject({ mode: z.literal('replace'), text: z.string() }),
        ],
        {
          error:
            'must be a string, { identity?, sections?: { title, content }[] } or { mode: "replace", text }',
        },
      )
      .optional(),
    // Checked where they are compiled (response-schema.ts) or duck-typed on use.
    responseSchema: z.unknown().optional(),
    logger: z.unknown().optional(),
  });
  return AgentConfigSchema;
}

let built: ReturnType<typeof buildSchema> | undefined;

/**
 * `AgentConfig`, field by field (built on first use). Strict: a key it does not list is a `ConfigError` naming
 * it, with the nearest field (and, for the Python SDK's spelling, the TypeScript one); see
 * {@link unknownKeyMessage}.
 */
export function agentConfigSchema(): ReturnType<typeof buildSchema> {
  built ??= buildSchema(zod());
  return built;
}

// Compile-time completeness: every AgentConfig field is in the schema, and the schema has no other field.
type SchemaKeys = keyof ReturnType<typeof buildSchema>['shape'];
const _complete: Exhausted<Exclude<keyof AgentConfig, SchemaKeys> | Exclude<SchemaKeys, keyof AgentConfig>> =
  true;
void _complete;

/** `['budget', 'maxToolCalls']` → `budget.maxToolCalls`; `['workspaces', 1]` → `workspaces[1]`. */
export function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || 'config';
}

/** Levenshtein distance (small strings only: config keys and tool names). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known name closest to `name` (case-insensitive), if one is close enough to be a likely typo. */
export function nearest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  const lower = name.toLowerCase();
  for (const candidate of known) {
    const c = candidate.toLowerCase();
    const score = c.startsWith(lower) || lower.startsWith(c) ? 0.5 : distance(lower, c);
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * The Python SDK's `LocalAgentConfig` / `GeminiConfig` spellings that are not simply their snake_case form
 * (`system_instructions` → `systemInstructions` is found by case conversion).
 */
const PYTHON_SPELLINGS: Readonly<Record<string, string>> = {
  save_dir: 'dataDir',
  app_data_dir: 'dataDir',
  gemini_config: 'apiKey, vertex, project, location and model (top-level fields)',
  models: 'model',
  thinking_level: 'effort',
};

function camelCase(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The message for an unknown key of an object whose known keys are `known`. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const python = Object.hasOwn(PYTHON_SPELLINGS, key) ? PYTHON_SPELLINGS[key] : undefined;
  if (python) return `is the Python SDK's spelling; in TypeScript use ${python}`;
  const camel = camelCase(key);
  if (camel !== key && known.includes(camel))
    return `is the Python SDK's spelling; in TypeScript the field is ${camel}`;
  const near = nearest(key, known);
  return `is not a known field${near ? `; did you mean ${near}?` : ''}`;
}

/** The known keys of the object schema at `path` (top level, or a nested strict object). */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: unknown = agentConfigSchema();
  for (const key of path) {
    let inner = schema as { shape?: Record<string, unknown>; unwrap?: () => unknown };
    while (inner && !inner.shape && typeof inner.unwrap === 'function')
      inner = inner.unwrap() as typeof inner;
    schema = inner?.shape?.[String(key)];
  }
  let inner = schema as { shape?: Record<string, unknown>; unwrap?: () => unknown; def?: { in?: unknown } };
  for (let i = 0; inner && !inner.shape && i < 5; i++) {
    if (typeof inner.unwrap === 'function') inner = inner.unwrap() as typeof inner;
    else if (inner.def?.in) inner = inner.def.in as typeof inner;
    else break;
  }
  return Object.keys(inner?.shape ?? {});
}

/** Checks the config's shape; throws `ConfigError` for the first issue, naming its field. */
export function checkConfigShape(config: unknown): void {
  const parsed = agentConfigSchema().safeParse(config);
  if (parsed.success) return;
  const issues = parsed.error.issues;
  // Unknown keys first: a misspelt field is the likeliest cause of every other complaint.
  const unknown = issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown && unknown.code === 'unrecognized_keys') {
    const key = unknown.keys[0]!;
    throw new ConfigError(fieldOf([...unknown.path, key]), unknownKeyMessage(key, knownKeysAt(unknown.path)));
  }
  const issue = issues[0]!;
  const value = issue.path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    config,
  );
  // A secret's value never goes into a message (messages reach logs).
  const last = String(issue.path.at(-1) ?? '');
  const shown = /key|token|secret|password/i.test(last)
    ? '(a value, not shown)'
    : (JSON.stringify(value) ?? String(value));
  throw new ConfigError(fieldOf(issue.path), `${issue.message}, got ${shown}`);
}
