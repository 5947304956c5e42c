/**
 * The shape of `AgentConfig`, as one zod schema: every field's type, range and allowed values. An issue's
 * path becomes `ConfigError.field` (`workspaces[1]`, `budget.maxToolCalls`, `env.FOO`). What needs the file
 * system or several fields at once (paths that exist, hidden segments, isolation-only options, the write
 * guard) is checked after it, in `validate-config.ts`.
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { Exhausted } from '../internal/guards.js';
import type { AgentConfig } from './config.js';

const nonEmpty = z.string().refine((s) => s.trim() !== '', { error: 'must be a non-empty string' });
const positive = z
  .number()
  .refine((n) => Number.isFinite(n) && n > 0, { error: 'must be a positive number' });
const positiveOrOff = z
  .number()
  .refine((n) => Number.isFinite(n) && n >= 0, { error: 'must be a positive number (or 0 for off)' });
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

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** `AgentConfig`, field by field (loose: fields this schema does not list pass to their own checks). */
export const AgentConfigSchema = z.looseObject({
  backend: z
    .discriminatedUnion(
      'kind',
      [
        z.object({ kind: z.literal('agy') }, { error: "must be { kind: 'agy' }" }),
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
  effort: z.enum(['low', 'medium', 'high'], { error: 'must be one of low, medium, high' }).optional(),
  conversationId: nonEmpty.optional(),
  resume: z.enum(['allow', 'require'], { error: "must be 'allow' or 'require'" }).optional(),
  dangerouslySkipPermissions: z.boolean().optional(),
  extraArgs: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  dataDir: nonEmpty.optional(),
  startTimeoutMs: positive.optional(),
  idleTimeoutMs: positiveOrOff.optional(),
  turnTimeoutMs: positiveOrOff.optional(),
  interruptGraceMs: positive.optional(),
  closeGraceMs: positive.optional(),
  maxLineBytes: positive.optional(),
  historyLimit: positive.optional(),
  onBadLine: fn.optional(),
  onStderr: fn.optional(),
  tools: z.array(z.unknown()).optional(),
  toolTransport: z.enum(['http', 'stdio'], { error: "must be 'http' or 'stdio'" }).optional(),
  mcpServers: z
    .record(z.string(), z.unknown(), { error: 'must be an object of server name to server config' })
    .optional(),
  agyHooks: z.array(z.unknown()).optional(),
  hookPlacement: z
    .enum(['workspace', 'plugin', 'home'], { error: "must be 'workspace', 'plugin' or 'home'" })
    .optional(),
  hookTimeoutMs: positive.optional(),
  hookRelay: z
    .enum(['auto', 'curl', 'bash', 'node'], { error: "must be 'auto', 'curl', 'bash' or 'node'" })
    .optional(),
  isolation: z.enum(['none', 'shadow-home'], { error: "must be 'none' or 'shadow-home'" }).optional(),
  linkNativeAuth: z.boolean().optional(),
  settingsOverrides: z.record(z.string(), z.unknown()).optional(),
  provider: z
    .object(
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
  hooks: z.array(z.unknown()).optional(),
  policies: z.array(z.unknown()).optional(),
  askUserTimeoutMs: positive.optional(),
  triggers: z.array(z.unknown()).optional(),
  budget: z
    .looseObject({
      maxModelCalls: count.optional(),
      maxToolCalls: count.optional(),
      maxInputTokens: count.optional(),
      maxOutputTokens: count.optional(),
      maxTotalTokens: count.optional(),
      maxCostUsd: z
        .number({ error: 'must be a non-negative number (USD)' })
        .refine((n) => Number.isFinite(n) && n >= 0, { error: 'must be a non-negative number (USD)' })
        .optional(),
      scope: z.enum(['turn', 'conversation'], { error: "must be 'turn' or 'conversation'" }).optional(),
    })
    .optional(),
  steering: z.boolean().optional(),
  pricing: z
    .record(
      z.string(),
      z.object(
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
    .object(
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
    .strict()
    .optional(),
  connection: fn.optional(),
  // Checked where they are compiled (rules.ts, response-schema.ts) or duck-typed on use.
  systemInstructions: z.unknown().optional(),
  responseSchema: z.unknown().optional(),
  logger: z.unknown().optional(),
});

// Compile-time completeness: every AgentConfig field is in the schema, and the schema has no other field.
type SchemaKeys = keyof typeof AgentConfigSchema.shape;
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

/** Checks the config's shape; throws `ConfigError` for the first issue, naming its field. */
export function checkConfigShape(config: unknown): void {
  const parsed = AgentConfigSchema.safeParse(config);
  if (parsed.success) return;
  const issue = parsed.error.issues[0]!;
  const value = issue.path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    config,
  );
  throw new ConfigError(
    fieldOf(issue.path),
    `${issue.message}, got ${JSON.stringify(value) ?? String(value)}`,
  );
}
