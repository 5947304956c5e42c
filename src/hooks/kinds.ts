/**
 * The ten hook kinds. Each exists as an abstract class to subclass (implement `run`), as in the Python SDK; the
 * `hooks.*` factories build plain objects of the same shape (`{ kind, category, name, run }`), which the classes
 * type structurally, so both go through one code path (`HookRunner` reads `kind`, `category`, `name` and calls
 * `run`).
 *
 * ```ts
 * class AuditTools extends PreToolCallHook {
 *   run(call: HookToolCall) { return call.name !== 'run_command'; }
 * }
 * new Agent({ hooks: [new AuditTools()] });
 * ```
 */
import type { DecideHook, HookOptions, InspectHook, TransformHook } from './base.js';
import type { OperationContext, SessionContext, TurnContext } from './context.js';
import type {
  CompactionEvent,
  HookDecision,
  HookToolCall,
  HookToolResult,
  InteractionRequest,
  InteractionResponse,
  MaybePromise,
  SessionInfo,
  StopDecision,
  StopEvent,
  ToolCallDecision,
  ToolErrorEvent,
} from './types.js';

/** A subclass's name, else the kind: the label in logs and deny messages. */
function nameOf(self: object, options: HookOptions | undefined, kind: string): string {
  const ctor = (self as { constructor?: { name?: unknown } }).constructor?.name;
  return options?.name || (typeof ctor === 'string' && ctor !== '' ? ctor : kind);
}

/** Runs when the session starts (inspect). Subclass and implement `run`, or use `hooks.onSessionStart(fn)`. */
export abstract class OnSessionStartHook
  implements InspectHook<'onSessionStart', SessionInfo, SessionContext>
{
  /** Which lifecycle event the hook handles. */
  readonly kind = 'onSessionStart' as const;
  /** The category, for tooling. */
  readonly category = 'inspect' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'onSessionStart');
  }
  /** Called with the event data and the context. */
  abstract run(data: SessionInfo, ctx: SessionContext): MaybePromise<void>;
}

/** Runs when the session ends (inspect). Subclass and implement `run`, or use `hooks.onSessionEnd(fn)`. */
export abstract class OnSessionEndHook implements InspectHook<'onSessionEnd', SessionInfo, SessionContext> {
  /** Which lifecycle event the hook handles. */
  readonly kind = 'onSessionEnd' as const;
  /** The category, for tooling. */
  readonly category = 'inspect' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'onSessionEnd');
  }
  /** Called with the event data and the context. */
  abstract run(data: SessionInfo, ctx: SessionContext): MaybePromise<void>;
}

/** Decides whether a user prompt may start a turn; data is the prompt text. The first deny stops the turn. Subclass and implement `run`, or use `hooks.preTurn(fn)`. */
export abstract class PreTurnHook
  implements DecideHook<'preTurn', string, TurnContext, HookDecision | boolean>
{
  /** Which lifecycle event the hook handles. */
  readonly kind = 'preTurn' as const;
  /** The category, for tooling. */
  readonly category = 'decide' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'preTurn');
  }
  /** Called with the event data and the context. */
  abstract run(data: string, ctx: TurnContext): MaybePromise<HookDecision | boolean>;
}

/** Observes the turn's response text (inspect). Subclass and implement `run`, or use `hooks.postTurn(fn)`. */
export abstract class PostTurnHook implements InspectHook<'postTurn', string, TurnContext> {
  /** Which lifecycle event the hook handles. */
  readonly kind = 'postTurn' as const;
  /** The category, for tooling. */
  readonly category = 'inspect' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'postTurn');
  }
  /** Called with the event data and the context. */
  abstract run(data: string, ctx: TurnContext): MaybePromise<void>;
}

/** Decides whether a tool call may run, optionally changing its arguments. Hooks chain; the first deny wins. Subclass and implement `run`, or use `hooks.preToolCall(fn)`. */
export abstract class PreToolCallHook
  implements DecideHook<'preToolCall', HookToolCall, OperationContext, ToolCallDecision | boolean>
{
  /** Which lifecycle event the hook handles. */
  readonly kind = 'preToolCall' as const;
  /** The category, for tooling. */
  readonly category = 'decide' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'preToolCall');
  }
  /** Called with the event data and the context. */
  abstract run(data: HookToolCall, ctx: OperationContext): MaybePromise<ToolCallDecision | boolean>;
}

/** Observes a finished tool call (inspect). Subclass and implement `run`, or use `hooks.postToolCall(fn)`. */
export abstract class PostToolCallHook
  implements InspectHook<'postToolCall', HookToolResult, OperationContext>
{
  /** Which lifecycle event the hook handles. */
  readonly kind = 'postToolCall' as const;
  /** The category, for tooling. */
  readonly category = 'inspect' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'postToolCall');
  }
  /** Called with the event data and the context. */
  abstract run(data: HookToolResult, ctx: OperationContext): MaybePromise<void>;
}

/** Replaces a failed tool's error message (transform); the first string returned wins. Subclass and implement `run`, or use `hooks.onToolError(fn)`. */
export abstract class OnToolErrorHook
  implements TransformHook<'onToolError', ToolErrorEvent, OperationContext, string>
{
  /** Which lifecycle event the hook handles. */
  readonly kind = 'onToolError' as const;
  /** The category, for tooling. */
  readonly category = 'transform' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'onToolError');
  }
  /** Called with the event data and the context. */
  abstract run(data: ToolErrorEvent, ctx: OperationContext): MaybePromise<string | null | undefined>;
}

/** Answers a question or confirmation on the user's behalf (transform); the first answer wins. Subclass and implement `run`, or use `hooks.onInteraction(fn)`. */
export abstract class OnInteractionHook
  implements TransformHook<'onInteraction', InteractionRequest, OperationContext, InteractionResponse>
{
  /** Which lifecycle event the hook handles. */
  readonly kind = 'onInteraction' as const;
  /** The category, for tooling. */
  readonly category = 'transform' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'onInteraction');
  }
  /** Called with the event data and the context. */
  abstract run(
    data: InteractionRequest,
    ctx: OperationContext,
  ): MaybePromise<InteractionResponse | null | undefined>;
}

/** Observes a context compaction (inspect). Subclass and implement `run`, or use `hooks.onCompaction(fn)`. */
export abstract class OnCompactionHook implements InspectHook<'onCompaction', CompactionEvent, TurnContext> {
  /** Which lifecycle event the hook handles. */
  readonly kind = 'onCompaction' as const;
  /** The category, for tooling. */
  readonly category = 'inspect' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'onCompaction');
  }
  /** Called with the event data and the context. */
  abstract run(data: CompactionEvent, ctx: TurnContext): MaybePromise<void>;
}

/**
 * Decides whether the agent may stop. Return `{ decision: 'continue', reason }` (non-empty reason) to keep it
 * going, or `{ decision: 'allow_stop' }` / nothing to let it stop. The first `continue` wins. Subclass and
 * implement `run`, or use `hooks.stop(fn)`.
 */
export abstract class StopHook
  // biome-ignore lint/suspicious/noConfusingVoidType: lets a hook that only observes (returns nothing) type-check.
  implements DecideHook<'stop', StopEvent, TurnContext, StopDecision | undefined | void>
{
  /** Which lifecycle event the hook handles. */
  readonly kind = 'stop' as const;
  /** The category, for tooling. */
  readonly category = 'decide' as const;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(options?: HookOptions) {
    this.name = nameOf(this, options, 'stop');
  }
  /** Called with the stop event and the context. */
  // biome-ignore lint/suspicious/noConfusingVoidType: lets a hook that only observes (returns nothing) type-check.
  abstract run(data: StopEvent, ctx: TurnContext): MaybePromise<StopDecision | undefined | void>;
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
