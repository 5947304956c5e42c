/**
 * `agy-sdk/testing`: test your agents without a model. The simulator is a Node executable that writes what
 * real agy builds write (checked against captured runs; `Scenario.version` or `AGY_SIM_VERSION` picks the
 * build, default 1.3.1); point `agyPath` at `simulatorPath()` and script turns with a scenario file
 * (`AGY_SIM_SCENARIO`).
 */

// Cassette errors: reading or importing a cassette (`cassette_invalid`), a strict replay that diverged
// (`cassette_mismatch`).
export { CassetteError, CassetteMismatchError } from '../errors.js';
// Loggers: `silentLogger` for tests; `consoleLogger` is the default every `Agent` uses.
export { consoleLogger, silentLogger } from '../logger.js';
// Whether a value has the shape of an MCP `CallToolResult` (what a tool returns, what `ToolRunner` gives back).
export { isCallToolResult } from '../tools/tool-result.js';
export * from './cassette/index.js';
export {
  InMemoryConnection,
  type InMemoryConnectionOptions,
  type ScriptedStep,
  type ScriptedTurn,
  type TurnScript,
} from './in-memory-connection.js';
export { simulatorPath, writeScenario } from './simulator/path.js';
export type {
  CheckpointAction,
  CustomStepAction,
  DenyAction,
  ExitAction,
  HugeTextAction,
  KillSelfAction,
  McpToolAction,
  ModelStepOption,
  RateLimitAction,
  RawAction,
  RawBytesAction,
  Scenario,
  ScenarioAction,
  ScenarioInterrupt,
  ScenarioStartup,
  ScenarioTurn,
  ScenarioTurnEnd,
  ScenarioUsage,
  SleepAction,
  SpawnChildAction,
  StallAction,
  StderrAction,
  SubagentAction,
  SystemMessageAction,
  TextAction,
  TimestampDeltasAction,
  ToolAction,
  UnknownEventAction,
  UnknownStepAction,
} from './simulator/scenario.js';
export { ToolRunner, type ToolRunnerCall, type ToolRunnerOptions } from './tool-runner.js';
