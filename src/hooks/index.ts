/** Typed, in-process hooks and their dispatch engine. */

export {
  createHookToolCall,
  type HookToolCallInit,
  mergeToolArgs,
  normalizeArgKeys,
  normalizeKey,
  withArgs,
} from './args.js';
export type { DecideHook, HookOptions, InspectHook, TransformHook } from './base.js';
export { HookContext, OperationContext, SessionContext, TurnContext } from './context.js';
export { type HookFn, hooks } from './factories.js';
export {
  type Hook,
  OnCompactionHook,
  OnInteractionHook,
  OnSessionEndHook,
  OnSessionStartHook,
  OnToolErrorHook,
  PostToolCallHook,
  PostTurnHook,
  PreToolCallHook,
  PreTurnHook,
  StopHook,
} from './kinds.js';
export {
  HookRunner,
  type HookRunnerOptions,
  type InteractionOutcome,
  type PreToolCallOutcome,
  type PreTurnOutcome,
  type StopOutcome,
} from './runner.js';
export {
  type AgyHookInfo,
  type CompactionEvent,
  HOOK_KINDS,
  type HookDecision,
  type HookKind,
  type HookToolCall,
  type HookToolResult,
  type InteractionRequest,
  type InteractionResponse,
  type MaybePromise,
  type PreToolCallAnswer,
  type PreToolCallDecision,
  type Question,
  type QuestionAnswer,
  type QuestionOption,
  type SessionInfo,
  type StopDecision,
  type StopEvent,
  type ToolArgs,
  type ToolCallDecision,
  type ToolErrorEvent,
  type ToolInvocation,
} from './types.js';
