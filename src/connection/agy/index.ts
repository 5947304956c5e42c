/**
 * The agy backend's face to the rest of the SDK: the Agent imports agy things from here only, never from
 * `session/`, `stream-json/` or `process/` directly.
 */

// Raw agy hooks (`AgentConfig.agyHooks`) are the one wire shape the Agent's config names.
export type { AgyHookRegistration } from '../../protocol/hook-wire.js';
export type { McpHttpServer, McpServerConfig, McpStdioServer } from '../mcp-server-config.js';
export { hiddenSegmentReal, validateDataDir } from '../tool-server/hidden-path.js';
export { DEFAULT_HOOK_TIMEOUT_MS } from '../tool-server/listener-hook.js';
// The own-tool server's names are shared with the ACP backend; re-exported for the Agent.
export { OWN_TOOL_SERVER, TOOL_SERVER_NAME } from '../tool-server/server-name.js';
export { AgyConnection } from './agy-connection.js';
export {
  type AgyConnectionOptions,
  type AgyLaunchSettings,
  type AgySessionSettings,
  type AgyWatchdogSettings,
  DEFAULT_IDLE_TIMEOUT_MS,
} from './agy-session.js';
export { AGY_CAPABILITIES } from './capabilities.js';
export { type AgyFactoryOptions, createAgyConnection } from './factory.js';
export { agyInfo, bareOutput, errorText, toHookCall } from './hook-adapter.js';
export { AgyHookHandlers, type AgyHookHandlersOptions } from './hook-handlers.js';
export type {
  CustomSystemInstructions,
  SystemInstructionSection,
  SystemInstructions,
} from './session/rules.js';
export { alwaysOnRule, isReplaceInstructions, renderInstructions } from './session/rules.js';
export type { HookPlacement, Isolation, SubagentConfig } from './session/session-runtime.js';
export { PLUGIN_NAME, SessionRuntime } from './session/session-runtime.js';
export { AGY_LAUNCH_FIELDS, AGY_SESSION_FIELDS, AGY_WATCHDOG_FIELDS, validateSession } from './settings.js';
export type { AgyEvent } from './stream-json/agy-event.js';
export { resolveAgyBinary } from './stream-json/binary.js';
export type { AgyMode } from './stream-json/command-line.js';
export type { DriftEntry, DriftKind } from './stream-json/drift.js';
export type { BadLine, BadLineReason } from './stream-json/parse-line.js';
export type { AgyProcessOptions, ConnectionStats } from './stream-json/process-options.js';
