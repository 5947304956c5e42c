/**
 * The checks of one scenario action (`turns[i].actions[j]`, and what a `subagent` action nests): exactly one
 * kind key, no unknown key at any depth, then the values of its kind. A `step` action's object is written as
 * given and is not checked.
 */
import type { ScenarioAction } from './scenario.js';
import {
  CHECKPOINT_KEYS,
  DENY_KEYS,
  isNonNegInt,
  isObj,
  MCP_TOOL_KEYS,
  MODEL_STEP_ACTION,
  MODEL_STEP_KEYS,
  type Obj,
  RATE_LIMIT_KEYS,
  ScenarioError,
  SPAWN_CHILD_KEYS,
  SUBAGENT_KEYS,
  TEXT_KEYS,
  TIMESTAMP_KEYS,
  TOOL_ERROR_KEYS,
  TOOL_KEYS,
  USAGE_KEYS,
  unknownKey,
} from './scenario-keys.js';

/** The key that names each action kind; exactly one must be present. */
const ACTION_KEYS = [
  'text',
  'tool',
  'mcpTool',
  'deny',
  'systemMessage',
  'checkpoint',
  'unknownStep',
  'rateLimit',
  'subagent',
  'step',
  'sleep',
  'stall',
  'stderr',
  'raw',
  'rawBytes',
  'hugeText',
  'timestampDeltas',
  'exit',
  'killSelf',
  'spawnChild',
  'unknownEvent',
] as const;

/** The kind of an action, from its distinguishing key. */
export type ActionKind = (typeof ACTION_KEYS)[number];

/** Which kind an action is (the scenario was validated, so exactly one key matches). */
export function actionKind(action: ScenarioAction): ActionKind {
  for (const key of ACTION_KEYS) if (key in action) return key;
  throw new ScenarioError(`unknown action ${JSON.stringify(action)}`);
}

/** The allowed keys of an action object (beside its kind's key), by kind; `undefined` for a bare value. */
const ACTION_OBJECT_KEYS: Partial<Record<ActionKind, ReadonlySet<string>>> = {
  text: TEXT_KEYS,
  tool: MODEL_STEP_ACTION('tool'),
  mcpTool: MODEL_STEP_ACTION('mcpTool'),
  deny: MODEL_STEP_ACTION('deny'),
  subagent: MODEL_STEP_ACTION('subagent'),
};

/** The allowed keys of an action's own value, by kind (objects only; other values are checked by kind). */
const VALUE_KEYS: Partial<Record<ActionKind, ReadonlySet<string>>> = {
  tool: TOOL_KEYS,
  mcpTool: MCP_TOOL_KEYS,
  deny: DENY_KEYS,
  checkpoint: CHECKPOINT_KEYS,
  rateLimit: RATE_LIMIT_KEYS,
  subagent: SUBAGENT_KEYS,
  timestampDeltas: TIMESTAMP_KEYS,
  spawnChild: SPAWN_CHILD_KEYS,
};

/** The first unknown key of each object at `path` (the action's own value and what it nests). */
function unknownNestedKey(kind: ActionKind, v: unknown, path: string): string | undefined {
  const at = `${path}.${kind}`;
  const allowed = VALUE_KEYS[kind];
  const checks: [unknown, ReadonlySet<string>, string][] = allowed === undefined ? [] : [[v, allowed, at]];
  if (kind === 'tool' && isObj(v)) checks.push([v.error, TOOL_ERROR_KEYS, `${at}.error`]);
  if (kind === 'checkpoint' && isObj(v)) checks.push([v.usage, USAGE_KEYS, `${at}.usage`]);
  for (const [obj, keys, where] of checks) {
    if (!isObj(obj)) continue;
    const k = unknownKey(obj, keys, where);
    if (k !== undefined) return k;
  }
  return undefined;
}

/** The first unknown key of the action's `modelStep` (and its usage) or of a text action's usage. */
function unknownUsageKey(action: Obj, kind: ActionKind, path: string): string | undefined {
  if (isObj(action.modelStep)) {
    const k = unknownKey(action.modelStep, MODEL_STEP_KEYS, `${path}.modelStep`);
    if (k !== undefined) return k;
    if (isObj(action.modelStep.usage)) {
      const u = unknownKey(action.modelStep.usage, USAGE_KEYS, `${path}.modelStep.usage`);
      if (u !== undefined) return u;
    }
  }
  if (kind === 'text' && isObj(action.usage)) return unknownKey(action.usage, USAGE_KEYS, `${path}.usage`);
  return undefined;
}

/** Checks one action at `path` (e.g. `turns[0].actions[1]`); returns the first problem, prefixed by where. */
export function checkAction(action: unknown, path: string): string | undefined {
  if (!isObj(action)) return `${path}: an action must be an object`;
  const kinds = ACTION_KEYS.filter((key) => key in action);
  if (kinds.length !== 1) {
    return kinds.length === 0
      ? `${path}: unknown action ${JSON.stringify(action)} (expected one of ${ACTION_KEYS.join(', ')})`
      : `${path}: ambiguous action with keys ${kinds.join(', ')}`;
  }
  const kind = kinds[0] as ActionKind;
  const unknown =
    unknownKey(action, ACTION_OBJECT_KEYS[kind] ?? new Set([kind]), path) ??
    unknownNestedKey(kind, action[kind], path) ??
    unknownUsageKey(action, kind, path);
  if (unknown !== undefined) return unknown;
  const problem = checkModelStep(action.modelStep) ?? VALUE_CHECKS[kind](action[kind], action, path);
  return problem === undefined || problem.startsWith(path) ? problem : `${path}: ${problem}`;
}

/** Only tool, mcpTool, deny and subagent actions may have a `modelStep` (their allowed keys say so). */
function checkModelStep(modelStep: unknown): string | undefined {
  if (modelStep === undefined || typeof modelStep === 'boolean') return undefined;
  return isObj(modelStep) && (modelStep.usage === undefined || isObj(modelStep.usage))
    ? undefined
    : 'modelStep must be a boolean or {usage?: object}';
}

/**
 * The value check of one kind: `v` is the value of the kind's key, `action` the whole action; a problem
 * without a path is about this action.
 */
type ValueCheck = (v: unknown, action: Obj, path: string) => string | undefined;

const isString: (kind: ActionKind) => ValueCheck = (kind) => (v) =>
  typeof v === 'string' ? undefined : `${kind} must be a string`;
const isCount: (kind: ActionKind) => ValueCheck = (kind) => (v) =>
  isNonNegInt(v) ? undefined : `${kind} must be an integer ≥ 0`;

/** Each kind's value check (a kind added to `ACTION_KEYS` must get one: checked by the compiler). */
const VALUE_CHECKS: Record<ActionKind, ValueCheck> = {
  text: checkText,
  tool: checkTool,
  mcpTool: checkMcpTool,
  deny: (v) => {
    if (!isObj(v) || typeof v.action !== 'string') return 'deny must be {action: string, …}';
    if (v.form !== undefined && v.form !== 'done' && v.form !== 'error')
      return 'deny.form must be "done" or "error"';
    return undefined;
  },
  checkpoint: (v) =>
    v === true || (isObj(v) && (v.usage === undefined || isObj(v.usage)))
      ? undefined
      : 'checkpoint must be true or {usage?: object}',
  unknownStep: (v) => (v === true ? undefined : 'unknownStep must be true'),
  rateLimit: (v) =>
    isObj(v) && (v.retries === undefined || isNonNegInt(v.retries))
      ? undefined
      : 'rateLimit must be {retries?: integer ≥ 0}',
  subagent: checkSubagent,
  systemMessage: isString('systemMessage'),
  stderr: isString('stderr'),
  raw: isString('raw'),
  unknownEvent: isString('unknownEvent'),
  step: (v) => (isObj(v) ? undefined : 'step must be an object'),
  sleep: isCount('sleep'),
  hugeText: isCount('hugeText'),
  exit: isCount('exit'),
  stall: (v) => (v === true ? undefined : 'stall must be true'),
  timestampDeltas: (v) =>
    isObj(v) && isNonNegInt(v.count) && (v.intervalMs === undefined || isNonNegInt(v.intervalMs))
      ? undefined
      : 'timestampDeltas must be {count: integer, intervalMs?: integer}',
  rawBytes: (v) =>
    Array.isArray(v) && v.every((chunk) => typeof chunk === 'string')
      ? undefined
      : 'rawBytes must be an array of base64 strings',
  killSelf: (v) =>
    v === 'SIGKILL' || v === 'SIGSEGV' || v === 'SIGTERM'
      ? undefined
      : 'killSelf must be "SIGKILL", "SIGSEGV" or "SIGTERM"',
  spawnChild: (v) => (isObj(v) ? undefined : 'spawnChild must be an object'),
};

function checkText(v: unknown, action: Obj): string | undefined {
  if (typeof v !== 'string') return 'text must be a string';
  if (action.chunks !== undefined && (!isNonNegInt(action.chunks) || (action.chunks as number) < 1)) {
    return 'chunks must be an integer ≥ 1';
  }
  if (action.usage !== undefined && action.usage !== null && !isObj(action.usage)) {
    return 'usage must be an object or null';
  }
  if (action.duplicateDone !== undefined && !isNonNegInt(action.duplicateDone)) {
    return 'duplicateDone must be an integer ≥ 0';
  }
  if (action.delayMs !== undefined && !isNonNegInt(action.delayMs)) return 'delayMs must be an integer ≥ 0';
  return undefined;
}

function checkTool(v: unknown): string | undefined {
  if (!isObj(v) || typeof v.name !== 'string') return 'tool must be {name: string, …}';
  if (v.parameters !== undefined && !isObj(v.parameters)) return 'tool.parameters must be an object';
  if (v.error !== undefined && !isObj(v.error)) return 'tool.error must be an object';
  return undefined;
}

function checkMcpTool(v: unknown): string | undefined {
  if (!isObj(v) || typeof v.server !== 'string' || typeof v.tool !== 'string') {
    return 'mcpTool must be {server: string, tool: string, …}';
  }
  if (v.arguments !== undefined && !isObj(v.arguments)) return 'mcpTool.arguments must be an object';
  if (
    v.expectError !== undefined &&
    typeof v.expectError !== 'boolean' &&
    typeof v.expectError !== 'string'
  ) {
    return 'mcpTool.expectError must be a boolean or a string';
  }
  return undefined;
}

/** A subagent's fields, then its actions (text or tool only) and its `waiting`/`answer` text actions. */
function checkSubagent(v: unknown, _action: Obj, path: string): string | undefined {
  if (!isObj(v) || typeof v.prompt !== 'string' || !Array.isArray(v.actions)) {
    return 'subagent must be {prompt: string, actions: array, name?: string, …}';
  }
  for (const key of ['name', 'role'] as const) {
    if (v[key] !== undefined && typeof v[key] !== 'string') return `subagent.${key} must be a string`;
  }
  if (v.stream !== undefined && typeof v.stream !== 'boolean') return 'subagent.stream must be a boolean';
  for (const [i, inner] of v.actions.entries()) {
    if (!isObj(inner) || !('text' in inner || 'tool' in inner)) {
      return `subagent.actions[${i}] must be a text or tool action`;
    }
    const problem = checkAction(inner, `${path}.subagent.actions[${i}]`);
    if (problem !== undefined) return problem;
  }
  for (const key of ['waiting', 'answer'] as const) {
    if (v[key] === undefined) continue;
    if (!isObj(v[key]) || !('text' in v[key])) return `subagent.${key} must be a text action`;
    const problem = checkAction(v[key], `${path}.subagent.${key}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
