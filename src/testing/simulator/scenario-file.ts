/**
 * Loads and checks the scenario named by `AGY_SIM_SCENARIO`. The checks are plain code (no zod) so the
 * simulator starts fast; they catch typos in hand-written scenarios with a path to the bad field, an unknown
 * key anywhere (`turns[0].actions[1]: unknown key "chunkz"`) included. A `step` action's object is written as
 * given and is not checked.
 */
import { readFileSync } from 'node:fs';
import type {
  CheckpointAction,
  DenyAction,
  McpToolAction,
  RateLimitAction,
  Scenario,
  ScenarioAction,
  ScenarioInterrupt,
  ScenarioStartup,
  ScenarioTurn,
  ScenarioTurnEnd,
  ScenarioUsage,
  SpawnChildAction,
  SubagentAction,
  TextAction,
  TimestampDeltasAction,
  ToolAction,
} from './scenario.js';

/** A scenario that cannot be read or does not fit the format: the simulator reports it and exits 1. */
export class ScenarioError extends Error {}

/**
 * Reads and validates a scenario file.
 *
 * @returns the scenario, or `undefined` when `file` is unset or empty (the default script runs).
 * @throws ScenarioError when the file is unreadable, not JSON, or not a valid scenario.
 */
export function loadScenario(file: string | undefined): Scenario | undefined {
  if (file === undefined || file === '') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ScenarioError(`cannot read simulator scenario ${file}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(`simulator scenario ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const problem = checkScenario(value);
  if (problem !== undefined) throw new ScenarioError(`invalid simulator scenario ${file}: ${problem}`);
  return snakeUsage(value) as Scenario;
}

const CAMEL_USAGE: Record<string, string> = {
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  thinkingTokens: 'thinking_tokens',
  cacheReadTokens: 'cache_read_tokens',
  totalTokens: 'total_tokens',
};

/** Every `usage` object with the SDK's camelCase keys rewritten to agy's snake_case (snake_case wins). */
function snakeUsage(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => snakeUsage(v));
  if (!isObj(value)) return value;
  if (key === 'usage') {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) if (!(k in CAMEL_USAGE)) out[k] = v;
    for (const [camel, snake] of Object.entries(CAMEL_USAGE))
      if (value[camel] !== undefined && out[snake] === undefined) out[snake] = value[camel];
    return out;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, snakeUsage(v, k)]));
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonNegInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Every key of `T`, so a key added to the type must be added here (checked by the compiler). */
const keysOf = <T>(keys: Record<keyof T, true>): ReadonlySet<string> => new Set(Object.keys(keys));
const SCENARIO_KEYS = keysOf<Scenario>({
  version: true,
  startup: true,
  interrupt: true,
  turns: true,
  afterTurns: true,
});
const STARTUP_KEYS = keysOf<ScenarioStartup>({
  delayMs: true,
  authFail: true,
  exitBeforeInit: true,
  noInit: true,
});
const INTERRUPT_KEYS = keysOf<ScenarioInterrupt>({ status: true, exitCode: true, ignore: true });
const TURN_KEYS = keysOf<ScenarioTurn>({ expectPrompt: true, actions: true, end: true });
const END_KEYS = keysOf<ScenarioTurnEnd>({
  status: true,
  error: true,
  response: true,
  structuredOutput: true,
  forceStructured: true,
  quota: true,
  printTimeout: true,
  exitAfter: true,
  noResult: true,
});
const EXIT_BEFORE_INIT_KEYS = keysOf<NonNullable<ScenarioStartup['exitBeforeInit']>>({
  code: true,
  stderr: true,
});
const QUOTA_KEYS = keysOf<Exclude<NonNullable<ScenarioTurnEnd['quota']>, boolean>>({ retries: true });
const PRINT_TIMEOUT_KEYS = keysOf<Exclude<NonNullable<ScenarioTurnEnd['printTimeout']>, boolean>>({
  stderr: true,
});
const USAGE_KEYS = keysOf<ScenarioUsage>({
  input_tokens: true,
  output_tokens: true,
  thinking_tokens: true,
  cache_read_tokens: true,
  inputTokens: true,
  outputTokens: true,
  thinkingTokens: true,
  cacheReadTokens: true,
});
const TEXT_KEYS = keysOf<TextAction>({
  text: true,
  chunks: true,
  usage: true,
  duplicateDone: true,
  error: true,
  delayMs: true,
});
/** The keys beside the kind's own key in actions that take a model step. */
const MODEL_STEP_ACTION = (kind: string): ReadonlySet<string> => new Set([kind, 'modelStep']);
const MODEL_STEP_KEYS = keysOf<Exclude<NonNullable<ToolAction['modelStep']>, boolean>>({ usage: true });
const TOOL_KEYS = keysOf<ToolAction['tool']>({
  name: true,
  parameters: true,
  output: true,
  error: true,
  hang: true,
});
const TOOL_ERROR_KEYS = keysOf<NonNullable<ToolAction['tool']['error']>>({ type: true, message: true });
const MCP_TOOL_KEYS = keysOf<McpToolAction['mcpTool']>({
  server: true,
  tool: true,
  arguments: true,
  expectError: true,
});
const DENY_KEYS = keysOf<DenyAction['deny']>({
  action: true,
  display_name: true,
  tool: true,
  parameters: true,
  target: true,
  form: true,
});
const CHECKPOINT_KEYS = keysOf<Exclude<CheckpointAction['checkpoint'], true>>({ usage: true });
const RATE_LIMIT_KEYS = keysOf<RateLimitAction['rateLimit']>({ retries: true });
const SUBAGENT_KEYS = keysOf<SubagentAction['subagent']>({
  name: true,
  role: true,
  prompt: true,
  actions: true,
  stream: true,
  waiting: true,
  answer: true,
});
const TIMESTAMP_KEYS = keysOf<TimestampDeltasAction['timestampDeltas']>({ count: true, intervalMs: true });
const SPAWN_CHILD_KEYS = keysOf<SpawnChildAction['spawnChild']>({ detached: true, inheritStdio: true });

/** The first key of `obj` that `allowed` does not know, as an error naming it. */
function unknownKey(obj: Obj, allowed: ReadonlySet<string>, where: string): string | undefined {
  const bad = Object.keys(obj).find((k) => !allowed.has(k));
  return bad === undefined
    ? undefined
    : `unknown key ${JSON.stringify(bad)}${where ? ` in ${where}` : ''} (expected one of ${[...allowed].join(', ')})`;
}

/** Returns a description of the first problem, or `undefined` when the scenario is valid. */
export function checkScenario(value: unknown): string | undefined {
  if (!isObj(value)) return 'the top level must be an object';
  const topKey = unknownKey(value, SCENARIO_KEYS, '');
  if (topKey !== undefined) return topKey;
  if (isObj(value.startup)) {
    const k = unknownKey(value.startup, STARTUP_KEYS, 'startup');
    if (k !== undefined) return k;
  }
  if (isObj(value.interrupt)) {
    const k = unknownKey(value.interrupt, INTERRUPT_KEYS, 'interrupt');
    if (k !== undefined) return k;
  }
  if (value.version !== undefined && typeof value.version !== 'string') return 'version must be a string';
  if (value.afterTurns !== undefined && value.afterTurns !== 'echo' && value.afterTurns !== 'error') {
    return 'afterTurns must be "echo" or "error"';
  }
  const startup = value.startup;
  if (startup !== undefined) {
    if (!isObj(startup)) return 'startup must be an object';
    if (startup.delayMs !== undefined && !isNonNegInt(startup.delayMs))
      return 'startup.delayMs must be an integer ≥ 0';
    const ebi = startup.exitBeforeInit;
    if (ebi !== undefined && (!isObj(ebi) || !isNonNegInt(ebi.code))) {
      return 'startup.exitBeforeInit must be {code: integer, stderr?: string}';
    }
    if (isObj(ebi)) {
      const k = unknownKey(ebi, EXIT_BEFORE_INIT_KEYS, 'startup.exitBeforeInit');
      if (k !== undefined) return k;
    }
  }
  const interrupt = value.interrupt;
  if (interrupt !== undefined) {
    if (!isObj(interrupt)) return 'interrupt must be an object';
    if (
      interrupt.status !== undefined &&
      interrupt.status !== 'INTERRUPTED' &&
      interrupt.status !== 'ERROR'
    ) {
      return 'interrupt.status must be "INTERRUPTED" or "ERROR"';
    }
    if (interrupt.ignore !== undefined && typeof interrupt.ignore !== 'boolean')
      return 'interrupt.ignore must be a boolean';
    if (interrupt.exitCode !== undefined && !isNonNegInt(interrupt.exitCode)) {
      return 'interrupt.exitCode must be an integer ≥ 0';
    }
  }
  if (value.turns === undefined) return undefined;
  if (!Array.isArray(value.turns)) return 'turns must be an array';
  for (const [t, turn] of value.turns.entries()) {
    const where = `turns[${t}]`;
    if (!isObj(turn)) return `${where} must be an object`;
    const turnKey = unknownKey(turn, TURN_KEYS, where);
    if (turnKey !== undefined) return turnKey;
    if (isObj(turn.end)) {
      const k = unknownKey(turn.end, END_KEYS, `${where}.end`);
      if (k !== undefined) return k;
    }
    if (!Array.isArray(turn.actions)) return `${where}.actions must be an array`;
    if (turn.expectPrompt !== undefined && typeof turn.expectPrompt !== 'string') {
      return `${where}.expectPrompt must be a string`;
    }
    for (const [a, action] of turn.actions.entries()) {
      const problem = checkAction(action, `${where}.actions[${a}]`);
      if (problem !== undefined) return problem;
    }
    if (turn.end !== undefined) {
      if (!isObj(turn.end)) return `${where}.end must be an object`;
      const end = turn.end;
      for (const key of ['status', 'error', 'response'] as const) {
        if (end[key] !== undefined && typeof end[key] !== 'string')
          return `${where}.end.${key} must be a string`;
      }
      if (end.exitAfter !== undefined && !isNonNegInt(end.exitAfter)) {
        return `${where}.end.exitAfter must be an integer ≥ 0`;
      }
      const quota = end.quota;
      if (
        quota !== undefined &&
        typeof quota !== 'boolean' &&
        !(isObj(quota) && (quota.retries === undefined || isNonNegInt(quota.retries)))
      ) {
        return `${where}.end.quota must be a boolean or {retries?: integer ≥ 0}`;
      }
      if (isObj(quota)) {
        const k = unknownKey(quota, QUOTA_KEYS, `${where}.end.quota`);
        if (k !== undefined) return k;
      }
      const pt = end.printTimeout;
      if (
        pt !== undefined &&
        typeof pt !== 'boolean' &&
        !(isObj(pt) && (pt.stderr === undefined || ['before', 'after', 'none'].includes(pt.stderr as string)))
      ) {
        return `${where}.end.printTimeout must be a boolean or {stderr?: "before" | "after" | "none"}`;
      }
      if (isObj(pt)) {
        const k = unknownKey(pt, PRINT_TIMEOUT_KEYS, `${where}.end.printTimeout`);
        if (k !== undefined) return k;
      }
    }
  }
  return undefined;
}

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

/** The first unknown key of each object at `path` (the action's own value and what it nests). */
function unknownNestedKey(kind: ActionKind, v: unknown, path: string): string | undefined {
  const checks: [unknown, ReadonlySet<string>, string][] = [];
  const at = `${path}.${kind}`;
  switch (kind) {
    case 'tool':
      checks.push([v, TOOL_KEYS, at]);
      if (isObj(v)) checks.push([v.error, TOOL_ERROR_KEYS, `${at}.error`]);
      break;
    case 'mcpTool':
      checks.push([v, MCP_TOOL_KEYS, at]);
      break;
    case 'deny':
      checks.push([v, DENY_KEYS, at]);
      break;
    case 'checkpoint':
      checks.push([v, CHECKPOINT_KEYS, at]);
      if (isObj(v)) checks.push([v.usage, USAGE_KEYS, `${at}.usage`]);
      break;
    case 'rateLimit':
      checks.push([v, RATE_LIMIT_KEYS, at]);
      break;
    case 'subagent':
      checks.push([v, SUBAGENT_KEYS, at]);
      break;
    case 'timestampDeltas':
      checks.push([v, TIMESTAMP_KEYS, at]);
      break;
    case 'spawnChild':
      checks.push([v, SPAWN_CHILD_KEYS, at]);
      break;
  }
  for (const [obj, allowed, where] of checks) {
    if (!isObj(obj)) continue;
    const k = unknownKey(obj, allowed, where);
    if (k !== undefined) return k;
  }
  return undefined;
}

/** Checks one action at `path` (e.g. `turns[0].actions[1]`); returns the first problem, prefixed by where. */
function checkAction(action: unknown, path: string): string | undefined {
  if (!isObj(action)) return `${path}: an action must be an object`;
  const kinds = ACTION_KEYS.filter((key) => key in action);
  if (kinds.length !== 1) {
    return kinds.length === 0
      ? `${path}: unknown action ${JSON.stringify(action)} (expected one of ${ACTION_KEYS.join(', ')})`
      : `${path}: ambiguous action with keys ${kinds.join(', ')}`;
  }
  const kind = kinds[0] as ActionKind;
  const own = unknownKey(action, ACTION_OBJECT_KEYS[kind] ?? new Set([kind]), path);
  if (own !== undefined) return own;
  const nested = unknownNestedKey(kind, action[kind], path);
  if (nested !== undefined) return nested;
  if (isObj(action.modelStep)) {
    const k = unknownKey(action.modelStep, MODEL_STEP_KEYS, `${path}.modelStep`);
    if (k !== undefined) return k;
    if (isObj(action.modelStep.usage)) {
      const u = unknownKey(action.modelStep.usage, USAGE_KEYS, `${path}.modelStep.usage`);
      if (u !== undefined) return u;
    }
  }
  if (kind === 'text' && isObj(action.usage)) {
    const k = unknownKey(action.usage, USAGE_KEYS, `${path}.usage`);
    if (k !== undefined) return k;
  }
  const problem = checkActionValues(action, kind, path);
  return problem === undefined || problem.startsWith(path) ? problem : `${path}: ${problem}`;
}

/** The value checks of one action whose keys are known; a problem without a path is about this action. */
function checkActionValues(action: Obj, kind: ActionKind, path: string): string | undefined {
  const v = action[kind];
  const modelStep = action.modelStep;
  // Only tool, mcpTool, deny and subagent actions may have one (their allowed keys say so).
  if (modelStep !== undefined) {
    if (
      typeof modelStep !== 'boolean' &&
      !(isObj(modelStep) && (modelStep.usage === undefined || isObj(modelStep.usage)))
    ) {
      return 'modelStep must be a boolean or {usage?: object}';
    }
  }
  switch (kind) {
    case 'text':
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
      if (action.delayMs !== undefined && !isNonNegInt(action.delayMs))
        return 'delayMs must be an integer ≥ 0';
      return undefined;
    case 'tool':
      if (!isObj(v) || typeof v.name !== 'string') return 'tool must be {name: string, …}';
      if (v.parameters !== undefined && !isObj(v.parameters)) return 'tool.parameters must be an object';
      if (v.error !== undefined && !isObj(v.error)) return 'tool.error must be an object';
      return undefined;
    case 'mcpTool':
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
    case 'deny':
      if (!isObj(v) || typeof v.action !== 'string') return 'deny must be {action: string, …}';
      if (v.form !== undefined && v.form !== 'done' && v.form !== 'error')
        return 'deny.form must be "done" or "error"';
      return undefined;
    case 'checkpoint':
      return v === true || (isObj(v) && (v.usage === undefined || isObj(v.usage)))
        ? undefined
        : 'checkpoint must be true or {usage?: object}';
    case 'unknownStep':
      return v === true ? undefined : 'unknownStep must be true';
    case 'rateLimit':
      return isObj(v) && (v.retries === undefined || isNonNegInt(v.retries))
        ? undefined
        : 'rateLimit must be {retries?: integer ≥ 0}';
    case 'subagent': {
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
    case 'systemMessage':
    case 'stderr':
    case 'raw':
    case 'unknownEvent':
      return typeof v === 'string' ? undefined : `${kind} must be a string`;
    case 'step':
      return isObj(v) ? undefined : 'step must be an object';
    case 'sleep':
    case 'hugeText':
    case 'exit':
      return isNonNegInt(v) ? undefined : `${kind} must be an integer ≥ 0`;
    case 'stall':
      return v === true ? undefined : 'stall must be true';
    case 'timestampDeltas':
      return isObj(v) && isNonNegInt(v.count) && (v.intervalMs === undefined || isNonNegInt(v.intervalMs))
        ? undefined
        : 'timestampDeltas must be {count: integer, intervalMs?: integer}';
    case 'rawBytes':
      return Array.isArray(v) && v.every((chunk) => typeof chunk === 'string')
        ? undefined
        : 'rawBytes must be an array of base64 strings';
    case 'killSelf':
      return v === 'SIGKILL' || v === 'SIGSEGV' || v === 'SIGTERM'
        ? undefined
        : 'killSelf must be "SIGKILL", "SIGSEGV" or "SIGTERM"';
    case 'spawnChild':
      return isObj(v) ? undefined : 'spawnChild must be an object';
  }
}
