/**
 * The ten hook kinds as abstract classes. Subclass one and implement `run(data, ctx)`, or use the matching
 * factory on the `hooks` namespace.
 */
import { DecideHook, InspectHook, TransformHook } from './base.js';
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
export abstract class OnSessionStartHook extends InspectHook<'onSessionStart', SessionInfo, SessionContext> {
  readonly kind = 'onSessionStart' as const;
}

/** Runs when the session ends (inspect). */
export abstract class OnSessionEndHook extends InspectHook<'onSessionEnd', SessionInfo, SessionContext> {
  readonly kind = 'onSessionEnd' as const;
}

/** Decides whether a user prompt may start a turn; data is the prompt text. The first deny stops the turn. */
export abstract class PreTurnHook extends DecideHook<'preTurn', string, TurnContext, HookDecision | boolean> {
  readonly kind = 'preTurn' as const;
}

/** Observes the turn's response text (inspect). */
export abstract class PostTurnHook extends InspectHook<'postTurn', string, TurnContext> {
  readonly kind = 'postTurn' as const;
}

/** Decides whether a tool call may run, optionally changing its arguments. Hooks chain; the first deny wins. */
export abstract class PreToolCallHook extends DecideHook<
  'preToolCall',
  HookToolCall,
  OperationContext,
  ToolCallDecision | boolean
> {
  readonly kind = 'preToolCall' as const;
}

/** Observes a finished tool call (inspect). */
export abstract class PostToolCallHook extends InspectHook<'postToolCall', HookToolResult, OperationContext> {
  readonly kind = 'postToolCall' as const;
}

/** Replaces a failed tool's error message (transform); the first string returned wins. */
export abstract class OnToolErrorHook extends TransformHook<
  'onToolError',
  ToolErrorEvent,
  OperationContext,
  string
> {
  readonly kind = 'onToolError' as const;
}

/** Answers a question or confirmation on the user's behalf (transform); the first answer wins. */
export abstract class OnInteractionHook extends TransformHook<
  'onInteraction',
  InteractionRequest,
  OperationContext,
  InteractionResponse
> {
  readonly kind = 'onInteraction' as const;
}

/** Observes a context compaction (inspect). */
export abstract class OnCompactionHook extends InspectHook<'onCompaction', CompactionEvent, TurnContext> {
  readonly kind = 'onCompaction' as const;
}

/**
 * Decides whether the agent may stop. Return `{ decision: 'continue', reason }` (non-empty reason) to keep it
 * going, or `{ decision: 'allow_stop' }` / nothing to let it stop. The first `continue` wins.
 */
export abstract class StopHook extends DecideHook<
  'stop',
  StopEvent,
  TurnContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: lets a hook that only observes (returns nothing) type-check.
  StopDecision | undefined | void
> {
  readonly kind = 'stop' as const;
}

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
