/**
 * The ten hook kinds. Each exists as an abstract class to subclass (implement `run`), as in the Python SDK; the
 * `hooks.*` factories build plain objects of the same shape (`{ kind, category, name, run }`), which the classes
 * type structurally, so both go through one code path (`HookRunner` reads `kind`, `category`, `name` and calls
 * `run`).
 *
 * ```ts
 * class AuditTools extends PreToolCallHook {
 *   run(call: ToolInvocation) { return call.name !== 'run_command'; }
 * }
 * new Agent({ hooks: [new AuditTools()] });
 * ```
 */
import type { DecideHook, HookOptions, InspectHook, TransformHook } from './base.js';
import type { HookContext, OperationContext, SessionContext, TurnContext } from './context.js';
import type {
  CompactionEvent,
  HookDecision,
  HookKind,
  HookToolResult,
  InteractionRequest,
  InteractionResponse,
  MaybePromise,
  PreToolCallAnswer,
  SessionInfo,
  StopDecision,
  StopEvent,
  ToolErrorEvent,
  ToolInvocation,
} from './types.js';

/**
 * What the ten hook classes share: `kind`, `category` and `name`, set here once, and the abstract `run`. Each
 * class below names its kind, category and `run` types; this base is not exported from the package.
 */
export abstract class HookClass<
  K extends HookKind,
  C extends 'inspect' | 'decide' | 'transform',
  T,
  X extends HookContext,
  R,
> {
  /** Which lifecycle event the hook handles. */
  readonly kind: K;
  /** The category, for tooling. */
  readonly category: C;
  /** Name used in logs and deny messages: `options.name`, else the subclass's name. */
  readonly name: string;
  constructor(kind: K, category: C, options: HookOptions | undefined) {
    this.kind = kind;
    this.category = category;
    // A subclass's name makes a better label than the kind; an anonymous class has none.
    const ctor = (this as { constructor?: { name?: unknown } }).constructor?.name;
    this.name = options?.name || (typeof ctor === 'string' && ctor !== '' ? ctor : kind);
  }
  /** Called with the event data and the context. */
  abstract run(data: T, ctx: X): MaybePromise<R>;
}

/** Runs when the session starts (inspect). Subclass and implement `run`, or use `hooks.onSessionStart(fn)`. */
export abstract class OnSessionStartHook
  extends HookClass<'onSessionStart', 'inspect', SessionInfo, SessionContext, void>
  implements InspectHook<'onSessionStart', SessionInfo, SessionContext>
{
  constructor(options?: HookOptions) {
    super('onSessionStart', 'inspect', options);
  }
}

/** Runs when the session ends (inspect). Subclass and implement `run`, or use `hooks.onSessionEnd(fn)`. */
export abstract class OnSessionEndHook
  extends HookClass<'onSessionEnd', 'inspect', SessionInfo, SessionContext, void>
  implements InspectHook<'onSessionEnd', SessionInfo, SessionContext>
{
  constructor(options?: HookOptions) {
    super('onSessionEnd', 'inspect', options);
  }
}

/** Decides whether a user prompt may start a turn; data is the prompt text, its parts as given are `ctx.prompt`. The first deny stops the turn. Subclass and implement `run`, or use `hooks.preTurn(fn)`. */
export abstract class PreTurnHook
  extends HookClass<'preTurn', 'decide', string, TurnContext, HookDecision | boolean>
  implements DecideHook<'preTurn', string, TurnContext, HookDecision | boolean>
{
  constructor(options?: HookOptions) {
    super('preTurn', 'decide', options);
  }
}

/** Observes the turn's response text (inspect). Subclass and implement `run`, or use `hooks.postTurn(fn)`. */
export abstract class PostTurnHook
  extends HookClass<'postTurn', 'inspect', string, TurnContext, void>
  implements InspectHook<'postTurn', string, TurnContext>
{
  constructor(options?: HookOptions) {
    super('postTurn', 'inspect', options);
  }
}

/** Decides whether a tool call may run, optionally changing its arguments. Hooks chain; the first deny wins. Subclass and implement `run`, or use `hooks.preToolCall(fn)`. */
export abstract class PreToolCallHook
  extends HookClass<'preToolCall', 'decide', ToolInvocation, OperationContext, PreToolCallAnswer>
  implements DecideHook<'preToolCall', ToolInvocation, OperationContext, PreToolCallAnswer>
{
  constructor(options?: HookOptions) {
    super('preToolCall', 'decide', options);
  }
}

/** Observes a finished tool call (inspect). Subclass and implement `run`, or use `hooks.postToolCall(fn)`. */
export abstract class PostToolCallHook
  extends HookClass<'postToolCall', 'inspect', HookToolResult, OperationContext, void>
  implements InspectHook<'postToolCall', HookToolResult, OperationContext>
{
  constructor(options?: HookOptions) {
    super('postToolCall', 'inspect', options);
  }
}

/** Replaces a failed tool's error message (transform); the first string returned wins. Subclass and implement `run`, or use `hooks.onToolError(fn)`. */
export abstract class OnToolErrorHook
  extends HookClass<'onToolError', 'transform', ToolErrorEvent, OperationContext, string | null | undefined>
  implements TransformHook<'onToolError', ToolErrorEvent, OperationContext, string>
{
  constructor(options?: HookOptions) {
    super('onToolError', 'transform', options);
  }
}

/** Answers a question or confirmation on the user's behalf (transform); the first answer wins. Subclass and implement `run`, or use `hooks.onInteraction(fn)`. */
export abstract class OnInteractionHook
  extends HookClass<
    'onInteraction',
    'transform',
    InteractionRequest,
    OperationContext,
    InteractionResponse | null | undefined
  >
  implements TransformHook<'onInteraction', InteractionRequest, OperationContext, InteractionResponse>
{
  constructor(options?: HookOptions) {
    super('onInteraction', 'transform', options);
  }
}

/** Observes a context compaction (inspect). Subclass and implement `run`, or use `hooks.onCompaction(fn)`. */
export abstract class OnCompactionHook
  extends HookClass<'onCompaction', 'inspect', CompactionEvent, TurnContext, void>
  implements InspectHook<'onCompaction', CompactionEvent, TurnContext>
{
  constructor(options?: HookOptions) {
    super('onCompaction', 'inspect', options);
  }
}

/**
 * Decides whether the agent may stop. Return `{ decision: 'continue', reason }` (non-empty reason) to keep it
 * going, or `{ decision: 'allow_stop' }` / nothing to let it stop. The first `continue` wins. Subclass and
 * implement `run`, or use `hooks.stop(fn)`.
 */
export abstract class StopHook
  // biome-ignore lint/suspicious/noConfusingVoidType: lets a hook that only observes (returns nothing) type-check.
  extends HookClass<'stop', 'decide', StopEvent, TurnContext, StopDecision | undefined | void>
  // biome-ignore lint/suspicious/noConfusingVoidType: as above.
  implements DecideHook<'stop', StopEvent, TurnContext, StopDecision | undefined | void>
{
  constructor(options?: HookOptions) {
    super('stop', 'decide', options);
  }
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
