/**
 * `agy-sdk/wire`: agy's own payloads, exactly as agy sends and reads them (snake_case stream-json lines,
 * camelCase hook payloads), for code that inspects `Step.raw` or `TurnResult.result`, reads a hook call's
 * `call.agy`, or registers raw `agyHooks`; and the MCP content blocks inside a tool's `CallToolResult`. Types
 * only. Every export is public API, but agy's shapes follow agy's versions, not the SDK's semver.
 */
// Where an agy hook call came from (`HookToolCall.agy`).
export type { AgyHookInfo } from './hooks/types.js';
// `Step.raw`: the wire object a step was read from.
export type { WireObject } from './model/step.js';
export type {
  AgyHookEvent,
  AgyHookInput,
  AgyHookOutputs,
  AgyHookRegistration,
  InjectStep,
  InvocationOutput,
  PreToolUseOutput,
  StopOutput,
} from './protocol/hook-wire.js';
export type {
  WireCommand,
  WireDeniedAction,
  WireEnvelope,
  WireInit,
  WireResult,
  WireStepUpdate,
  WireToolError,
  WireToolInfo,
  WireUsage,
  WireUserLine,
} from './protocol/stream-json-wire.js';
// The MCP content blocks a tool result may hold (the MCP spec's shapes, our structural copies; `CallToolResult`
// and `ContentBlock` themselves are at the root, with `tool()`).
export type {
  AudioContent,
  EmbeddedResource,
  ImageContent,
  McpContentAnnotations,
  ResourceLink,
  TextContent,
} from './tools/mcp-types.js';
