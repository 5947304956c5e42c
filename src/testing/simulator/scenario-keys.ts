/**
 * The vocabulary of the scenario checks (`scenario-file.ts`, `scenario-action-check.ts`): the keys each scenario
 * object may have, checked against the types by the compiler, and the plain-code shape tests they share (no zod,
 * so the simulator starts fast).
 */
import type {
  CheckpointAction,
  DenyAction,
  McpToolAction,
  RateLimitAction,
  Scenario,
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

/** A JSON object of the scenario file. */
export type Obj = Record<string, unknown>;

/** Whether `value` is a JSON object (not an array, not null). */
export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is an integer ≥ 0. */
export function isNonNegInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Every key of `T`, so a key added to the type must be added here (checked by the compiler). */
const keysOf = <T>(keys: Record<keyof T, true>): ReadonlySet<string> => new Set(Object.keys(keys));
/** The keys of the top level. */
export const SCENARIO_KEYS = keysOf<Scenario>({
  version: true,
  startup: true,
  interrupt: true,
  turns: true,
  afterTurns: true,
});
/** The keys of `startup`. */
export const STARTUP_KEYS = keysOf<ScenarioStartup>({
  delayMs: true,
  authFail: true,
  exitBeforeInit: true,
  noInit: true,
});
/** The keys of `interrupt`. */
export const INTERRUPT_KEYS = keysOf<ScenarioInterrupt>({ status: true, exitCode: true, ignore: true });
/** The keys of a turn. */
export const TURN_KEYS = keysOf<ScenarioTurn>({ expectPrompt: true, actions: true, end: true });
/** The keys of a turn's `end`. */
export const END_KEYS = keysOf<ScenarioTurnEnd>({
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
/** The keys of `startup.exitBeforeInit`. */
export const EXIT_BEFORE_INIT_KEYS = keysOf<NonNullable<ScenarioStartup['exitBeforeInit']>>({
  code: true,
  stderr: true,
});
/** The keys of `end.quota` as an object. */
export const QUOTA_KEYS = keysOf<Exclude<NonNullable<ScenarioTurnEnd['quota']>, boolean>>({ retries: true });
/** The keys of `end.printTimeout` as an object. */
export const PRINT_TIMEOUT_KEYS = keysOf<Exclude<NonNullable<ScenarioTurnEnd['printTimeout']>, boolean>>({
  stderr: true,
});
/** The keys of a `usage` object (either casing). */
export const USAGE_KEYS = keysOf<ScenarioUsage>({
  input_tokens: true,
  output_tokens: true,
  thinking_tokens: true,
  cache_read_tokens: true,
  inputTokens: true,
  outputTokens: true,
  thinkingTokens: true,
  cacheReadTokens: true,
});
/** The keys of a text action. */
export const TEXT_KEYS = keysOf<TextAction>({
  text: true,
  chunks: true,
  usage: true,
  duplicateDone: true,
  error: true,
  delayMs: true,
});
/** The keys beside the kind's own key in actions that take a model step. */
export const MODEL_STEP_ACTION = (kind: string): ReadonlySet<string> => new Set([kind, 'modelStep']);
/** The keys of `modelStep` as an object. */
export const MODEL_STEP_KEYS = keysOf<Exclude<NonNullable<ToolAction['modelStep']>, boolean>>({
  usage: true,
});
/** The keys of `tool`. */
export const TOOL_KEYS = keysOf<ToolAction['tool']>({
  name: true,
  parameters: true,
  output: true,
  error: true,
  hang: true,
});
/** The keys of `tool.error`. */
export const TOOL_ERROR_KEYS = keysOf<NonNullable<ToolAction['tool']['error']>>({
  type: true,
  message: true,
});
/** The keys of `mcpTool`. */
export const MCP_TOOL_KEYS = keysOf<McpToolAction['mcpTool']>({
  server: true,
  tool: true,
  arguments: true,
  expectError: true,
});
/** The keys of `deny`. */
export const DENY_KEYS = keysOf<DenyAction['deny']>({
  action: true,
  display_name: true,
  tool: true,
  parameters: true,
  target: true,
  form: true,
});
/** The keys of `checkpoint` as an object. */
export const CHECKPOINT_KEYS = keysOf<Exclude<CheckpointAction['checkpoint'], true>>({ usage: true });
/** The keys of `rateLimit`. */
export const RATE_LIMIT_KEYS = keysOf<RateLimitAction['rateLimit']>({ retries: true });
/** The keys of `subagent`. */
export const SUBAGENT_KEYS = keysOf<SubagentAction['subagent']>({
  name: true,
  role: true,
  prompt: true,
  actions: true,
  stream: true,
  waiting: true,
  answer: true,
});
/** The keys of `timestampDeltas`. */
export const TIMESTAMP_KEYS = keysOf<TimestampDeltasAction['timestampDeltas']>({
  count: true,
  intervalMs: true,
});
/** The keys of `spawnChild`. */
export const SPAWN_CHILD_KEYS = keysOf<SpawnChildAction['spawnChild']>({
  detached: true,
  inheritStdio: true,
});

/** The first key of `obj` that `allowed` does not know, as an error naming it. */
export function unknownKey(obj: Obj, allowed: ReadonlySet<string>, where: string): string | undefined {
  const bad = Object.keys(obj).find((k) => !allowed.has(k));
  return bad === undefined
    ? undefined
    : `unknown key ${JSON.stringify(bad)}${where ? ` in ${where}` : ''} (expected one of ${[...allowed].join(', ')})`;
}
