/**
 * agy-sdk: build agents on Google Antigravity by driving the `agy` CLI headlessly over stream-json.
 *
 * Every export of this file is public API, covered by semver; nothing else is (deep imports are not
 * supported). agy's own payloads are on the `agy-sdk/wire` subpath, the simulator and the in-memory
 * connection on `agy-sdk/testing`. Names marked `@experimental` depend on something agy does not offer yet
 * (see "Not on agy" in docs/architecture.md) and may change in a minor release.
 */

// The Agent and its configuration.
export { Agent, type ChatOptions } from './agent/agent.js';
export type { AgentConfig, Effort } from './agent/config.js';
// Recording a session (`AgentConfig.record`).
export type { RecordConfig } from './cassette/recorder.js';
export type { RedactPattern } from './cassette/sanitize.js';
// Backends: which one an Agent runs on (agy or an ACP agent); the interface a transport implements, and the
// host it calls back through.
export type { AcpBackendConfig, AcpPreset } from './connection/acp/config.js';
// The model: steps, tool calls, usage, turn results.
export { GEMINI_CLI_CAPABILITIES } from './connection/acp/gemini-cli-capabilities.js';
// Constants and the binary lookup come from their own modules, so the root does not load the agy backend.
export { AGY_CAPABILITIES } from './connection/agy/capabilities.js';
// agy session options.
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
  McpHttpServer,
  McpServerConfig,
  McpStdioServer,
  SubagentConfig,
  SystemInstructionSection,
  SystemInstructions,
} from './connection/agy/index.js';
export { resolveAgyBinary } from './connection/agy/stream-json/resolve-binary.js';
export type { AgyBackendConfig, BackendConfig } from './connection/backend-config.js';
export type {
  Connection,
  ConnectionFactory,
  ConnectionInfo,
  TurnCommand,
  TurnMedia,
  TurnRequest,
  TurnSink,
} from './connection/connection.js';
export type { ConnectionHost } from './connection/host.js';
// Prompt content.
export {
  Audio,
  type Content,
  type ContentPart,
  Document,
  fromBytes,
  fromFile,
  Image,
  type MediaContent,
  Video,
} from './content/content.js';
export {
  isSlashCommand,
  PRINT_MODE_COMMANDS,
  type PrintModeCommand,
  SlashCommand,
} from './content/slash-command.js';
// Conversations and responses (created by the Agent only: types, not constructors).
export type { BudgetConfig, BudgetScope } from './conversation/budget.js';
export type { ChatResponse, StreamChunk } from './conversation/chat-response.js';
export type { Conversation } from './conversation/conversation.js';
// Errors.
export {
  AgyNotFoundError,
  AgySdkError,
  type AgySdkErrorCode,
  CassetteError,
  CassetteMismatchError,
  ClosedError,
  ConfigError,
  ContentError,
  ConversationNotFoundError,
  LineTooLongError,
  McpServerStartError,
  MissingPeerError,
  type ProcessDiagnostics,
  ProcessExitError,
  QueuedWorkAbortedError,
  QueueFullError,
  RedisUnavailableError,
  StartError,
  StructuredOutputError,
  TurnDeniedError,
  type TurnDenier,
  type TurnErrorCode,
  UnsupportedError,
  UsageError,
  WatchdogTimeoutError,
} from './errors.js';
// Provider mode (the gateway itself is on `agy-sdk/gateway`).
export type { ProviderConfig } from './gateway/provider-bridge.js';
// Hooks: plain objects built by the `hooks.*` factories.
export {
  type AgyHookInfo,
  type CompactionEvent,
  type Hook,
  type HookContext,
  type HookDecision,
  type HookKind,
  type HookOptions,
  type HookToolCall,
  type HookToolResult,
  hooks,
  type InteractionRequest,
  type InteractionResponse,
  OnCompactionHook,
  OnInteractionHook,
  OnSessionEndHook,
  OnSessionStartHook,
  OnToolErrorHook,
  type OperationContext,
  PostToolCallHook,
  PostTurnHook,
  type PreToolCallAnswer,
  type PreToolCallDecision,
  PreToolCallHook,
  PreTurnHook,
  type SessionContext,
  type SessionInfo,
  type StopDecision,
  type StopEvent,
  StopHook,
  type ToolCallDecision,
  type ToolErrorEvent,
  type ToolInvocation,
  type TurnContext,
} from './hooks/index.js';
// Logging.
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export { type AgentCapabilities, CAPABILITY_ROWS, type CapabilityRow } from './model/capabilities.js';
export type { McpServerState, McpServerStatus } from './model/mcp-server-state.js';
export {
  type DefaultPrices,
  defaultPrices,
  type ModelPrice,
  type PricingTable,
} from './model/pricing.js';
// Structured output.
export type {
  InferResponseSchema,
  JsonSchema,
  ResponseSchemaInput,
  ZodSchemaLike,
  ZodSchemaParseResult,
} from './model/response-schema.js';
export type {
  CommandResult,
  PlanEntry,
  Step,
  StepState,
  StepType,
  SubagentInfo,
  ToolCall,
  ToolError,
  Usage,
  WireObject,
} from './model/step.js';
export { BudgetExceededError, TurnError } from './model/turn-errors.js';
export type { BudgetName, DeniedAction, DeniedBy, TurnResult, TurnStatus } from './model/turn-result.js';
export type { ProviderUsage } from './model/usage.js';
// Human in the loop.
export { type AskUserContext, type AskUserHandler, terminalApproval } from './policy/ask-user/index.js';
// Policies.
export {
  type Decision,
  type McpServerRef,
  type Policy,
  PolicyConfigError,
  type PolicyList,
  type PolicyPredicate,
  policy,
} from './policy/index.js';
// Many conversations on one machine (the fleet across machines is on `agy-sdk/fleet`).
export {
  AgentPool,
  type AgentPoolOptions,
  type BackoffOptions,
  type ConversationStore,
  MemoryConversationStore,
  MemoryPauseStore,
  type PauseStore,
  type PoolAdmission,
  type PoolEvent,
  type PoolPause,
  type PoolRunOptions,
  type PoolStartLatency,
  type PoolStats,
  type PoolTelemetryConfig,
} from './pool/index.js';
// Telemetry, usage and cost.
export type { MeterProviderLike, TelemetryConfig, TracerProviderLike } from './telemetry/telemetry-config.js';
// Tools.
export {
  type AgentBehavior,
  BUILTIN_TOOL_CLASSES,
  type BuiltinToolClass,
  type BuiltinToolName,
  BuiltinTools,
  builtinToolClass,
  type CallToolResult,
  type CapabilitiesConfig,
  type ContentBlock,
  isCallToolResult,
  KNOWN_BUILTIN_TOOLS,
  type McpToolListing,
  type SchemaInput,
  type SchemaIssue,
  type SchemaOutput,
  type SchemaParseResult,
  type StateStore,
  type ThinkingLevel,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  type ToolHandlerResult,
  type ToolInputSchema,
  type ToolOutputSchema,
  type ToolSpec,
  tool,
  toolError,
  toolResult,
  type ZodObjectSchema,
} from './tools/index.js';
// Triggers.
export {
  type EveryInterval,
  every,
  type FileChange,
  type FileChangeKind,
  type IntervalUnit,
  onFileChange,
  type Trigger,
  type TriggerContext,
} from './triggers/index.js';
