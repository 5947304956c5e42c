/**
 * The ten hook kinds: plain objects `{ kind, category, name, run }`, built by the matching factory on the
 * `hooks` namespace (or written by hand).
 */
import type { DecideHook, InspectHook, TransformHook } from './base.js';
import type { OperationContext, SessionContext, TurnContext } from './context.js';
import type {
  CompactionEvent,
  HookDecision,
  HookToolCall,
  HookToolResult,
  InteractionRequest,
  InteractionResponse,
  SessionInfo,
  StopDecision,
  StopEvent,
  ToolCallDecision,
  ToolErrorEvent,
} from './types.js';

/** Runs when the session starts (inspect). */
export type OnSessionStartHook = InspectHook<'onSessionStart', SessionInfo, SessionContext>;

/** Runs when the session ends (inspect). */
export type OnSessionEndHook = InspectHook<'onSessionEnd', SessionInfo, SessionContext>;

/** Decides whether a user prompt may start a turn; data is the prompt text. The first deny stops the turn. */
export type PreTurnHook = DecideHook<'preTurn', string, TurnContext, HookDecision | boolean>;

/** Observes the turn's response text (inspect). */
export type PostTurnHook = InspectHook<'postTurn', string, TurnContext>;

/** Decides whether a tool call may run, optionally changing its arguments. Hooks chain; the first deny wins. */
export type PreToolCallHook = DecideHook<
  'preToolCall',
  HookToolCall,
  OperationContext,
  ToolCallDecision | boolean
>;

/** Observes a finished tool call (inspect). */
export type PostToolCallHook = InspectHook<'postToolCall', HookToolResult, OperationContext>;

/** Replaces a failed tool's error message (transform); the first string returned wins. */
export type OnToolErrorHook = TransformHook<'onToolError', ToolErrorEvent, OperationContext, string>;

/** Answers a question or confirmation on the user's behalf (transform); the first answer wins. */
export type OnInteractionHook = TransformHook<
  'onInteraction',
  InteractionRequest,
  OperationContext,
  InteractionResponse
>;

/** Observes a context compaction (inspect). */
export type OnCompactionHook = InspectHook<'onCompaction', CompactionEvent, TurnContext>;

/**
 * Decides whether the agent may stop. Return `{ decision: 'continue', reason }` (non-empty reason) to keep it
 * going, or `{ decision: 'allow_stop' }` / nothing to let it stop. The first `continue` wins.
 */
export type StopHook = DecideHook<
  'stop',
  StopEvent,
  TurnContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: lets a hook that only observes (returns nothing) type-check.
  StopDecision | undefined | void
>;

/** Any hook the runner accepts. */
export type Hook =
  | OnSessionStartHook
  | OnSessionEndHook
  | PreTurnHook
  | PostTurnHook
  | PreToolCallHook
  | PostToolCallHook
  | OnToolErrorHook
  | OnInteractionHook
  | OnCompactionHook
  | StopHook;
