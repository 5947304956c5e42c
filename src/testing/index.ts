/**
 * `agy-sdk/testing`: test your agents without a model. The simulator is a Node executable that behaves like
 * agy as `shared/reference/agy-cli.md` documents it; point `agyPath` at `simulatorPath()` and script turns
 * with a scenario file (`AGY_SIM_SCENARIO`).
 */
export { simulatorPath, writeScenario } from './simulator/path.js';
export type {
  CustomStepAction,
  DenyAction,
  ExitAction,
  HugeTextAction,
  KillSelfAction,
  McpToolAction,
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
  SystemMessageAction,
  TextAction,
  TimestampDeltasAction,
  ToolAction,
  UnknownEventAction,
} from './simulator/scenario.js';
