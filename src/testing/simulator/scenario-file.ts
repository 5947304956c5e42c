/**
 * Loads and checks the scenario named by `AGY_SIM_SCENARIO`. The checks are plain code (no zod) so the
 * simulator starts fast; they catch typos in hand-written scenarios with a path to the bad field, an unknown
 * key anywhere (`turns[0].actions[1]: unknown key "chunkz"`) included. The checks of one action are in
 * `scenario-action-check.ts`; the allowed keys in `scenario-keys.ts`.
 */
import { readFileSync } from 'node:fs';
import type { Scenario } from './scenario.js';
import { checkAction } from './scenario-action-check.js';
import {
  END_KEYS,
  EXIT_BEFORE_INIT_KEYS,
  INTERRUPT_KEYS,
  isNonNegInt,
  isObj,
  type Obj,
  PRINT_TIMEOUT_KEYS,
  QUOTA_KEYS,
  SCENARIO_KEYS,
  ScenarioError,
  STARTUP_KEYS,
  TURN_KEYS,
  unknownKey,
} from './scenario-keys.js';

export { ScenarioError } from './scenario-keys.js';

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

/** Returns a description of the first problem, or `undefined` when the scenario is valid. */
export function checkScenario(value: unknown): string | undefined {
  if (!isObj(value)) return 'the top level must be an object';
  const topKey =
    unknownKey(value, SCENARIO_KEYS, '') ??
    (isObj(value.startup) ? unknownKey(value.startup, STARTUP_KEYS, 'startup') : undefined) ??
    (isObj(value.interrupt) ? unknownKey(value.interrupt, INTERRUPT_KEYS, 'interrupt') : undefined);
  if (topKey !== undefined) return topKey;
  if (value.version !== undefined && typeof value.version !== 'string') return 'version must be a string';
  if (value.afterTurns !== undefined && value.afterTurns !== 'echo' && value.afterTurns !== 'error') {
    return 'afterTurns must be "echo" or "error"';
  }
  const problem = checkStartup(value.startup) ?? checkInterrupt(value.interrupt);
  if (problem !== undefined) return problem;
  if (value.turns === undefined) return undefined;
  if (!Array.isArray(value.turns)) return 'turns must be an array';
  for (const [t, turn] of value.turns.entries()) {
    const turnProblem = checkTurn(turn, `turns[${t}]`);
    if (turnProblem !== undefined) return turnProblem;
  }
  return undefined;
}

function checkStartup(startup: unknown): string | undefined {
  if (startup === undefined) return undefined;
  if (!isObj(startup)) return 'startup must be an object';
  if (startup.delayMs !== undefined && !isNonNegInt(startup.delayMs))
    return 'startup.delayMs must be an integer ≥ 0';
  const ebi = startup.exitBeforeInit;
  if (ebi !== undefined && (!isObj(ebi) || !isNonNegInt(ebi.code))) {
    return 'startup.exitBeforeInit must be {code: integer, stderr?: string}';
  }
  return isObj(ebi) ? unknownKey(ebi, EXIT_BEFORE_INIT_KEYS, 'startup.exitBeforeInit') : undefined;
}

function checkInterrupt(interrupt: unknown): string | undefined {
  if (interrupt === undefined) return undefined;
  if (!isObj(interrupt)) return 'interrupt must be an object';
  if (interrupt.status !== undefined && interrupt.status !== 'INTERRUPTED' && interrupt.status !== 'ERROR') {
    return 'interrupt.status must be "INTERRUPTED" or "ERROR"';
  }
  if (interrupt.ignore !== undefined && typeof interrupt.ignore !== 'boolean')
    return 'interrupt.ignore must be a boolean';
  if (interrupt.exitCode !== undefined && !isNonNegInt(interrupt.exitCode)) {
    return 'interrupt.exitCode must be an integer ≥ 0';
  }
  return undefined;
}

/** Checks one turn at `where` (`turns[2]`): its keys, its actions in order, then its `end`. */
function checkTurn(turn: unknown, where: string): string | undefined {
  if (!isObj(turn)) return `${where} must be an object`;
  const turnKey =
    unknownKey(turn, TURN_KEYS, where) ??
    (isObj(turn.end) ? unknownKey(turn.end, END_KEYS, `${where}.end`) : undefined);
  if (turnKey !== undefined) return turnKey;
  if (!Array.isArray(turn.actions)) return `${where}.actions must be an array`;
  if (turn.expectPrompt !== undefined && typeof turn.expectPrompt !== 'string') {
    return `${where}.expectPrompt must be a string`;
  }
  for (const [a, action] of turn.actions.entries()) {
    const problem = checkAction(action, `${where}.actions[${a}]`);
    if (problem !== undefined) return problem;
  }
  if (turn.end === undefined) return undefined;
  if (!isObj(turn.end)) return `${where}.end must be an object`;
  return checkTurnEnd(turn.end, `${where}.end`);
}

function checkTurnEnd(end: Obj, where: string): string | undefined {
  for (const key of ['status', 'error', 'response'] as const) {
    if (end[key] !== undefined && typeof end[key] !== 'string') return `${where}.${key} must be a string`;
  }
  if (end.exitAfter !== undefined && !isNonNegInt(end.exitAfter)) {
    return `${where}.exitAfter must be an integer ≥ 0`;
  }
  const quota = end.quota;
  if (
    quota !== undefined &&
    typeof quota !== 'boolean' &&
    !(isObj(quota) && (quota.retries === undefined || isNonNegInt(quota.retries)))
  ) {
    return `${where}.quota must be a boolean or {retries?: integer ≥ 0}`;
  }
  if (isObj(quota)) {
    const k = unknownKey(quota, QUOTA_KEYS, `${where}.quota`);
    if (k !== undefined) return k;
  }
  const pt = end.printTimeout;
  if (
    pt !== undefined &&
    typeof pt !== 'boolean' &&
    !(isObj(pt) && (pt.stderr === undefined || ['before', 'after', 'none'].includes(pt.stderr as string)))
  ) {
    return `${where}.printTimeout must be a boolean or {stderr?: "before" | "after" | "none"}`;
  }
  return isObj(pt) ? unknownKey(pt, PRINT_TIMEOUT_KEYS, `${where}.printTimeout`) : undefined;
}
