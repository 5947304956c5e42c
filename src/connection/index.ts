/**
 * `agy-sdk/connection`: backends, for the code that chooses one in detail or writes one. An agent author
 * needs none of this (an `Agent` runs on agy by default); it holds
 * - the layer-3 seam: a `Connection` is one transport to a backend, built by a `ConnectionFactory`
 *   (`AgentConfig.connection`) that receives the `ConnectionHost` it calls back through (tool gate, tool
 *   completion, steering, stop decisions); `InMemoryConnection` on `agy-sdk/testing` is a small example;
 * - the backend configs (`AgentConfig.backend`), agy's own session options (`AgentConfig.mode`,
 *   `isolation`, `subagents`, …) and what each backend can do (`agent.capabilities`: `AgentCapabilities`;
 *   `AGY_CAPABILITIES`, `GEMINI_CLI_CAPABILITIES`, the rows of the capability table), and agy's slash
 *   commands (`SlashCommand`, a prompt part only the agy backend runs);
 * - the agy binary's lookup, the agy transport's counters (`agent.stats`);
 * - the errors a backend reports, finer than the root's `StartError` and `TurnError` (a `TurnResult.error`
 *   or a rejected `start()` carries them), and `UnsupportedError` (a backend refusing what it cannot do);
 *   `AgySdkError.code` names each one without this import.
 *
 * Every export is public API. The seam follows the SDK's semver, but a backend written against it should
 * expect it to grow (new optional members) in minor releases.
 */

// agy's slash commands: a prompt part agy answers in a print-mode run (`TurnRequest.command` on the seam).
export { PRINT_MODE_COMMANDS, type PrintModeCommand, SlashCommand } from '../content/slash-command.js';
export {
  ClosedError,
  ConversationNotFoundError,
  LineTooLongError,
  McpServerStartError,
  type ProcessDiagnostics,
  ProcessExitError,
  UnsupportedError,
  UsageError,
  WatchdogTimeoutError,
} from '../errors.js';
// agy's built-in tools by class (what `capabilities` accepts, what policies sort by).
export { BUILTIN_TOOL_CLASSES, type BuiltinToolClass, builtinToolClass } from '../model/builtin-classes.js';
export { KNOWN_BUILTIN_TOOLS } from '../model/builtin-tools.js';
export { type AgentCapabilities, CAPABILITY_ROWS, type CapabilityRow } from '../model/capabilities.js';
export { GEMINI_CLI_CAPABILITIES } from './acp/gemini-cli-capabilities.js';
// Constants, types and the binary lookup come from their own modules, so this entry does not load either
// backend's code.
export { AGY_CAPABILITIES } from './agy/capabilities.js';
// agy's own session options (fields of `AgentConfig` that only the agy backend reads).
export type {
  AgyMode,
  BadLine,
  BadLineReason,
  ConnectionStats,
  CustomSystemInstructions,
  DriftEntry,
  DriftKind,
  HookPlacement,
  Isolation,
  SubagentConfig,
  SystemInstructionSection,
} from './agy/index.js';
export { resolveAgyBinary } from './agy/stream-json/resolve-binary.js';
export type { AcpBackendConfig, AcpPreset, AgyBackendConfig, BackendConfig } from './backend-config.js';
export type {
  Connection,
  ConnectionFactory,
  ConnectionInfo,
  TurnCommand,
  TurnMedia,
  TurnRequest,
  TurnSink,
} from './connection.js';
export type {
  ConnectionHost,
  HostNeeds,
  StopVerdict,
  ToolCallOutcome,
  ToolErrorReplacement,
  ToolGateOptions,
} from './host.js';
