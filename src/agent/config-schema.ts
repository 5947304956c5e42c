/**
 * The shape of `AgentConfig`, as one zod schema built from its one description (`connection/config-fields.ts`):
 * every field's type, range and allowed values. An issue's path becomes `ConfigError.field` (`workspaces[1]`, `budget.maxToolCalls`, `env.FOO`). What needs the file
 * system or several fields at once (paths that exist, hidden segments, isolation-only options, the write
 * guard) is checked after it, in `validate-config.ts`.
 */

import { redactPatternProblem } from '../cassette/redact-patterns.js';
import { CONFIG_FIELDS, type ConfigFieldName } from '../connection/config-fields.js';
import type { ConfigField, SchemaKit } from '../connection/field-support.js';
import { ConfigError } from '../errors.js';
import { HOOK_KINDS } from '../hooks/types.js';
import { durationSchema } from '../internal/duration.js';
import type { Exhausted } from '../internal/guards.js';
import { zod } from '../internal/load-sync.js';
import { KNOWN_BUILTIN_TOOLS } from '../model/builtin-tools.js';
import type { AgentConfig } from './config.js';

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Builds the shared validation parts with `z` (on the first config checked, so zod loads then). */
function buildKit(z: typeof import('zod/v4').z): SchemaKit {
  const nonEmpty = z.string().refine((s) => s.trim() !== '', { error: 'must be a non-empty string' });
  const nonNegative = (error: string) =>
    z.number({ error }).refine((n) => Number.isFinite(n) && n >= 0, { error });
  return {
    z,
    nonEmpty,
    positive: z.number().refine((n) => Number.isFinite(n) && n > 0, { error: 'must be a positive number' }),
    duration: durationSchema(),
    durationOrOff: durationSchema({ allowZero: true }),
    count: z
      .number()
      .int({ error: 'must be a non-negative integer' })
      .nonnegative({ error: 'must be a non-negative integer' }),
    usdPerMillion: nonNegative('must be a non-negative number (USD per 1M tokens)'),
    nonNegative,
    withMethod: (method, what) =>
      z.custom<object>((v) => typeof (v as Record<string, unknown> | null)?.[method] === 'function', {
        error: `must be ${what} (with ${method})`,
      }),
    fn: z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
      error: 'must be a function',
    }),
    httpUrl: z.string().refine(isHttpUrl, { error: 'must be an absolute http(s) URL' }),
    toolEntry: z.custom<object>(isToolDefinition, {
      error: 'must be a tool built by tool({ name, description, input, handler })',
    }),
    hookEntry: z.custom<object>(
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
    ),
    toolNames: z
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
      }),
    redactPattern: z.union([z.string(), z.instanceof(RegExp)]).superRefine((pattern, ctx) => {
      // One that matches the empty string would match everywhere (docs/guides/testing-your-agent.md#cassettes).
      const problem = redactPatternProblem(pattern);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  };
}

/** A `tool()` definition: a name, a description, an input schema and a handler. */
function isToolDefinition(v: unknown): boolean {
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
}

/**
 * `AgentConfig` as one strict zod object: each field's check from its one description (`CONFIG_FIELDS`), made
 * optional. A key it does not list is a `ConfigError` naming it, with the nearest field (and, for the Python
 * SDK's spelling, the TypeScript one); see {@link unknownKeyMessage}.
 */
function buildSchema(z: typeof import('zod/v4').z) {
  const kit = buildKit(z);
  const shape = {} as { [K in ConfigFieldName]: import('zod/v4').z.ZodOptional<import('zod/v4').z.ZodType> };
  for (const [name, field] of Object.entries(CONFIG_FIELDS) as [ConfigFieldName, ConfigField][])
    shape[name] = field.schema(kit).optional();
  return z.strictObject(shape);
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

// Compile-time completeness: every AgentConfig field is described (so validated, grouped and tabled), and the
// description names no other field. An object literal cannot name a field twice, so each is described once.
const _complete: Exhausted<
  Exclude<keyof AgentConfig, ConfigFieldName> | Exclude<ConfigFieldName, keyof AgentConfig>
> = true;
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
