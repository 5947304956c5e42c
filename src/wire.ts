/**
 * `agy-sdk/wire`: agy's own payloads, exactly as agy sends and reads them (snake_case stream-json lines,
 * camelCase hook payloads), for code that inspects `Step.raw` or `TurnResult.result`, reads a hook call's
 * `call.agy`, or registers raw `agyHooks`; agy's vocabulary (its built-in tools by class, its print-mode slash
 * commands); and the MCP content blocks inside a tool's `CallToolResult`. Every export is public API, but agy's
 * shapes and lists follow agy's versions, not the SDK's semver.
 */
// agy's print-mode slash commands (what `SlashCommand`, at the root, accepts).
export { PRINT_MODE_COMMANDS, type PrintModeCommand } from './content/slash-command.js';
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
// agy's built-in tools: every name agy lists (what `capabilities` accepts) and each one's class.
export { BUILTIN_TOOL_CLASSES, type BuiltinToolClass, builtinToolClass } from './tools/builtin-classes.js';
export { KNOWN_BUILTIN_TOOLS } from './tools/builtin-tools.js';
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
// Whether a value has the shape of an MCP `CallToolResult` (a tool's output, as a `postToolCall` hook sees it).
export { isCallToolResult } from './tools/tool-result.js';
