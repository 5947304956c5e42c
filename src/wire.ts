/**
 * `agy-sdk/wire`: agy's own payloads, exactly as agy sends and reads them (snake_case stream-json lines,
 * camelCase hook payloads), for code that inspects `Step.raw` or `TurnResult.result`, or registers raw
 * `agyHooks`. Every export is public API, but these shapes follow agy's versions, not the SDK's semver.
 */
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
