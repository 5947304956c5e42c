/**
 * agy-sdk: build agents on Google Antigravity by driving the `agy` CLI headlessly over stream-json.
 * Public API only; everything else is internal.
 */

// Layer 1: the Agent.
export { Agent } from './agent/agent.js';
export type { AgentConfig } from './agent/config.js';
// Layer 3: connections.
export type { Connection, ConnectionInfo, TurnRequest, TurnSink } from './connection/connection.js';
export { resolveAgyBinary } from './connection/stream-json/binary.js';
export type { BadLine, BadLineReason } from './connection/stream-json/parse-line.js';
export {
  type ConnectionStats,
  DEFAULT_MAX_LINE_BYTES,
  StreamJsonConnection,
  type StreamJsonConnectionOptions,
} from './connection/stream-json/stream-json-connection.js';

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
// Layer 2: conversation, responses, results.
export { ChatResponse } from './conversation/chat-response.js';
export { Conversation, DEFAULT_HISTORY_LIMIT } from './conversation/conversation.js';
export type {
  Step,
  StepState,
  StepType,
  SubagentInfo,
  ToolCall,
  ToolError,
  Usage,
} from './conversation/step.js';
export type { DeniedAction, TurnResult, TurnStatus } from './conversation/turn-result.js';
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
  TurnError,
  WatchdogTimeoutError,
} from './errors.js';
export type { SystemInstructionSection, SystemInstructions } from './runtime/rules.js';
// Structured output and instructions.
export type { JsonSchema, ResponseSchemaInput } from './structured/response-schema.js';
