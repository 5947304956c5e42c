/**
 * agy-sdk: build agents on Google Antigravity by driving the `agy` CLI headlessly over stream-json.
 *
 * Every export of this file is public API, covered by semver; nothing else is (deep imports are not
 * supported). It holds what an agent author uses; the rest is on subpaths: backends and the layer-3 seam
 * on `agy-sdk/connection`, the agent pool on `agy-sdk/pool`, agy's own payloads on `agy-sdk/wire`, the
 * simulator, cassettes and the in-memory connection on `agy-sdk/testing`, the gateway on `agy-sdk/gateway`,
 * the fleet on `agy-sdk/fleet`. Each name is exported from one entry point. Names marked `@experimental`
 * depend on something agy does not offer yet (see "Not on agy" in docs/architecture.md) and may change in a
 * minor release.
 */

// The Agent and its configuration.
export { Agent, type ChatOptions } from './agent/agent.js';
export type { AgentConfig, Effort } from './agent/config.js';
// Session options (fields of `AgentConfig`; the backends, their configs and agy's own options are on
// `agy-sdk/connection`).
export type {
  McpHttpServer,
  McpServerConfig,
  McpStdioServer,
  SystemInstructions,
} from './connection/agy/index.js';
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
// Conversations and responses (created by the Agent only: types, not constructors).
export type { BudgetConfig, BudgetScope } from './conversation/budget.js';
export type { ChatResponse, StreamChunk } from './conversation/chat-response.js';
export type { Conversation } from './conversation/conversation.js';
// Errors.
export {
  AgyNotFoundError,
  AgySdkError,
  type AgySdkErrorCode,
  ConfigError,
  ContentError,
  MissingPeerError,
  StartError,
  StructuredOutputError,
  TurnDeniedError,
  type TurnDenier,
  type TurnErrorCode,
} from './errors.js';
// Hooks: plain objects built by the `hooks.*` factories.
export {
  type Hook,
  type HookContext,
  type HookDecision,
  type HookKind,
  type HookOptions,
  type HookToolCall,
  type HookToolResult,
  hooks,
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
// Logging (`consoleLogger` is the default; it and `silentLogger` are on `agy-sdk/testing`).
export type { Logger } from './logger.js';
// The model: steps, tool calls, usage, turn results.
export type { McpServerState } from './model/mcp-server-state.js';
export {
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
} from './model/response-schema.js';
export type {
  CommandResult,
  Step,
  StepType,
  SubagentInfo,
  ToolCall,
  ToolError,
  Usage,
} from './model/step.js';
export { BudgetExceededError, TurnError } from './model/turn-errors.js';
export type { BudgetName, DeniedAction, DeniedBy, TurnResult, TurnStatus } from './model/turn-result.js';
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
// Telemetry, usage and cost.
export type { TelemetryConfig } from './telemetry/telemetry-config.js';
// Tools.
export {
  type AgentBehavior,
  type BuiltinToolName,
  BuiltinTools,
  type CallToolResult,
  type CapabilitiesConfig,
  type ContentBlock,
  type McpToolListing,
  type StateStore,
  type ThinkingLevel,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  type ToolHandlerResult,
  type ToolSpec,
  tool,
  toolError,
  toolResult,
} from './tools/index.js';
// Triggers.
export {
  type EveryInterval,
  every,
  type FileChange,
  onFileChange,
  type Trigger,
  type TriggerContext,
} from './triggers/index.js';
