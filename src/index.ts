/**
 * agy-sdk: build agents on Google Antigravity by driving the `agy` CLI headlessly over stream-json.
 * This is the public API; everything not exported here (or from `agy-sdk/testing`) is internal.
 */

// Layer 1: the Agent.
export { Agent } from './agent/agent.js';
export type { AgentConfig } from './agent/config.js';
// Session runtime: MCP servers, raw agy hooks, isolation, subagents.
export type { McpHttpServer, McpServerConfig, McpStdioServer } from './connection/agy/session/mcp-config.js';
// Structured output and instructions.
export type { SystemInstructionSection, SystemInstructions } from './connection/agy/session/rules.js';
export type { HookPlacement, Isolation, SubagentConfig } from './connection/agy/session/session-runtime.js';
export { resolveAgyBinary } from './connection/agy/stream-json/binary.js';
export type { BadLine, BadLineReason } from './connection/agy/stream-json/parse-line.js';
export {
  type ConnectionStats,
  DEFAULT_MAX_LINE_BYTES,
  StreamJsonConnection,
  type StreamJsonConnectionOptions,
} from './connection/agy/stream-json/stream-json-connection.js';
// Layer 3: connections.
export type { Connection, ConnectionInfo, TurnRequest, TurnSink } from './connection/connection.js';
// Content.
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
// Layer 2: conversation, responses, results, budgets.
export type { BudgetConfig } from './conversation/budget.js';
export { ChatResponse } from './conversation/chat-response.js';
export { Conversation, DEFAULT_HISTORY_LIMIT } from './conversation/conversation.js';
// Errors.
export {
  AgyNotFoundError,
  AgySdkError,
  ClosedError,
  ConfigError,
  ContentError,
  LineTooLongError,
  type ProcessDiagnostics,
  ProcessExitError,
  StartError,
  StructuredOutputError,
  TurnDeniedError,
  WatchdogTimeoutError,
} from './errors.js';
export { type AskUserContext, type AskUserHandler, terminalApproval } from './hitl/index.js';
// Hooks.
export {
  type AgyHookInfo,
  type CompactionEvent,
  DecideHook,
  type Hook,
  HookContext,
  type HookDecision,
  type HookKind,
  HookRunner,
  type HookToolCall,
  type HookToolResult,
  hooks,
  InspectHook,
  type InteractionRequest,
  type InteractionResponse,
  OnCompactionHook,
  OnInteractionHook,
  OnSessionEndHook,
  OnSessionStartHook,
  OnToolErrorHook,
  OperationContext,
  PostToolCallHook,
  PostTurnHook,
  PreToolCallHook,
  PreTurnHook,
  SessionContext,
  type SessionInfo,
  type StopDecision,
  type StopEvent,
  StopHook,
  type ToolCallDecision,
  type ToolErrorEvent,
  TransformHook,
  TurnContext,
} from './hooks/index.js';
// Logging.
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export type {
  CommandResult,
  Step,
  StepState,
  StepType,
  SubagentInfo,
  ToolCall,
  ToolError,
  Usage,
} from './model/step.js';
export { BudgetExceededError, TurnError } from './model/turn-errors.js';
export type { BudgetName, DeniedAction, TurnResult, TurnStatus } from './model/turn-result.js';
// Policies and human in the loop.
export {
  type Decision,
  type McpServerRef,
  type Policy,
  PolicyConfigError,
  type PolicyList,
  type PolicyPredicate,
  policy,
} from './policy/index.js';
export type {
  AgyHookEvent,
  AgyHookInput,
  AgyHookRegistration,
  InjectStep,
  InvocationOutput,
  PreToolUseOutput,
  StopOutput,
} from './protocol/hook-wire.js';
// Wire types: agy's stream-json payloads exactly as sent (snake_case), e.g. `TurnResult.result`.
export type {
  WireDeniedAction,
  WireEnvelope,
  WireInit,
  WireResult,
  WireStepUpdate,
  WireToolError,
  WireToolInfo,
  WireUsage,
  WireUserLine,
} from './protocol/stream-json.js';
export type {
  JsonSchema,
  ResponseSchemaInput,
  ZodSchemaLike,
  ZodSchemaParseResult,
} from './structured/response-schema.js';
// Tools.
export {
  type AudioContent,
  type CallToolResult,
  type ContentBlock,
  type EmbeddedResource,
  type ImageContent,
  isCallToolResult,
  type McpContentAnnotations,
  type McpToolListing,
  normalizeToolName,
  type ResourceLink,
  type SchemaInput,
  type SchemaIssue,
  type SchemaOutput,
  type SchemaParseResult,
  StateStore,
  servedToolNames,
  type TextContent,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  type ToolHandlerResult,
  type ToolInputSchema,
  ToolNameRegistry,
  type ToolOutputSchema,
  type ToolSpec,
  tool,
  toolError,
  toolResult,
  type ZodObjectSchema,
} from './tools/index.js';
// Triggers.
export {
  every,
  type FileChange,
  type FileChangeKind,
  onFileChange,
  type Trigger,
  type TriggerContext,
} from './triggers/index.js';
