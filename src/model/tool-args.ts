/**
 * Tool-argument helpers: agy sends built-in tool args with PascalCase keys (`CommandLine`, `AbsolutePath`);
 * TypeScript code reads better with camelCase. Both forms are kept on a `ToolInvocation`, which every backend
 * builds here.
 */
import type { AgyHookInfo, ToolArgs, ToolInvocation } from './tool-call.js';

/** Sets an own data property; unlike `obj[key] = v`, a `__proto__` key from JSON stays plain data. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** True for `{}`-style objects (not arrays, dates, class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * camelCases one key: `CommandLine` → `commandLine`, `URLPath` → `urlPath`, `ID` → `id`,
 * `dir_path` → `dirPath`. Leading `_`/`$` are kept; an already camelCase key is unchanged.
 */
export function normalizeKey(key: string): string {
  const match = /^([^A-Za-z0-9]*)(.*)$/s.exec(key);
  const prefix = match?.[1] ?? '';
  const rest = match?.[2] ?? key;
  const words = rest.split(/[_\-\s]+/).filter((w) => w.length > 0);
  if (words.length === 0) return key;
  return (
    prefix +
    words
      .map((word, i) => {
        const w = /^[A-Z0-9]+$/.test(word) ? word.toLowerCase() : word;
        if (i > 0) return w.charAt(0).toUpperCase() + w.slice(1);
        // A leading acronym (`URLPath`) lowercases up to the capital that starts the next word.
        const acronym = /^([A-Z]+)([A-Z][a-z].*)$/.exec(w);
        if (acronym) return acronym[1]!.toLowerCase() + acronym[2]!;
        return w.charAt(0).toLowerCase() + w.slice(1);
      })
      .join('')
  );
}

/**
 * Returns a copy of `value` with every plain-object key camelCased (see {@link normalizeKey}), recursing into
 * plain objects and arrays. Other values are returned as is. When two keys normalize to the same name the
 * later one wins.
 */
export function normalizeArgKeys(value: ToolArgs): ToolArgs;
export function normalizeArgKeys(value: unknown): unknown;
export function normalizeArgKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => normalizeArgKeys(item));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    setOwn(out, normalizeKey(key), normalizeArgKeys(item));
  }
  return out;
}

/** Input for {@link createToolInvocation}; a conversation `ToolCall` fits as is. */
export interface ToolInvocationInit {
  /** Stable call id. */
  id: string;
  /** agy's tool name. */
  name: string;
  /** Arguments as agy sent them; a non-object value becomes `{}`. */
  args?: unknown | undefined;
  /** MCP server, for MCP tools. */
  server?: string | undefined;
  /** The step index, when known. */
  stepIndex?: number | undefined;
  /** agy's `toolAction`, when sent. */
  action?: string | undefined;
  /** agy's `toolSummary`, when sent. */
  summary?: string | undefined;
  /** The agy hook call's origin, when it came through one. */
  agy?: AgyHookInfo | undefined;
}

/** Builds a `ToolInvocation`, deriving `normalizedArgs` from `args`. */
export function createToolInvocation(init: ToolInvocationInit): ToolInvocation {
  const args: ToolArgs = isPlainObject(init.args) ? { ...init.args } : {};
  const call: ToolInvocation = { id: init.id, name: init.name, args, normalizedArgs: normalizeArgKeys(args) };
  if (init.server !== undefined && init.server !== '') call.server = init.server;
  if (init.stepIndex !== undefined) call.stepIndex = init.stepIndex;
  if (init.action !== undefined) call.action = init.action;
  if (init.summary !== undefined) call.summary = init.summary;
  if (init.agy !== undefined) call.agy = init.agy;
  return call;
}

/**
 * Shallow-merges `modified` into `args` and returns the new object. A key absent from `args` that is the
 * camelCase form of an existing key is written to that existing key, so `{ commandLine }` updates
 * `CommandLine` instead of adding an argument agy would ignore.
 */
export function mergeToolArgs(args: ToolArgs, modified: ToolArgs): ToolArgs {
  const out: ToolArgs = { ...args };
  for (const [key, value] of Object.entries(modified)) {
    const target = Object.hasOwn(args, key)
      ? key
      : (Object.keys(args).find((existing) => normalizeKey(existing) === key) ?? key);
    setOwn(out, target, value);
  }
  return out;
}

/** Returns `call` with new args (and re-derived `normalizedArgs`). */
export function withArgs(call: ToolInvocation, args: ToolArgs): ToolInvocation {
  return { ...call, args, normalizedArgs: normalizeArgKeys(args) };
}
