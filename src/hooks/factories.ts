/**
 * The `hooks` namespace: `hooks.preToolCall((call, ctx) => …)` builds a hook, a plain object
 * `{ kind, category, name, run }`. Functions may be sync or async; the context argument is optional.
 */
import type { HookOptions } from './base.js';
import type {
  Hook,
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

/** The function form of hook `H`: `(data, ctx) => result`, sync or async. */
export type HookFn<H extends Hook> = (
  data: Parameters<H['run']>[0],
  ctx: Parameters<H['run']>[1],
) => ReturnType<H['run']>;

// Function names make better log/deny labels than nothing; the kind is the last resort.
function build<H extends Hook>(
  kind: H['kind'],
  category: H['category'],
  fn: HookFn<H>,
  options: HookOptions | undefined,
): H {
  const name = options?.name || fn.name || kind;
  return Object.freeze({ kind, category, name, run: fn }) as unknown as H;
}

/** Factories for every hook kind. */
export const hooks = {
  /** Runs when the session starts. */
  onSessionStart(fn: HookFn<OnSessionStartHook>, options?: HookOptions): OnSessionStartHook {
    return build<OnSessionStartHook>('onSessionStart', 'inspect', fn, options);
  },
  /** Runs when the session ends. */
  onSessionEnd(fn: HookFn<OnSessionEndHook>, options?: HookOptions): OnSessionEndHook {
    return build<OnSessionEndHook>('onSessionEnd', 'inspect', fn, options);
  },
  /**
   * Decides whether a prompt may start a turn (`{ allow, message? }` or a boolean). Gets the prompt's text and
   * the turn's context, whose `prompt` holds its parts as given (images included).
   */
  preTurn(fn: HookFn<PreTurnHook>, options?: HookOptions): PreTurnHook {
    return build<PreTurnHook>('preTurn', 'decide', fn, options);
  },
  /** Observes the turn's response text. */
  postTurn(fn: HookFn<PostTurnHook>, options?: HookOptions): PostTurnHook {
    return build<PostTurnHook>('postTurn', 'inspect', fn, options);
  },
  /** Decides whether a tool call may run (`{ allow, message?, modifiedArgs? }` or a boolean). */
  preToolCall(fn: HookFn<PreToolCallHook>, options?: HookOptions): PreToolCallHook {
    return build<PreToolCallHook>('preToolCall', 'decide', fn, options);
  },
  /** Observes a finished tool call. */
  postToolCall(fn: HookFn<PostToolCallHook>, options?: HookOptions): PostToolCallHook {
    return build<PostToolCallHook>('postToolCall', 'inspect', fn, options);
  },
  /** Replaces a failed tool's error message, or returns nothing to pass. */
  onToolError(fn: HookFn<OnToolErrorHook>, options?: HookOptions): OnToolErrorHook {
    return build<OnToolErrorHook>('onToolError', 'transform', fn, options);
  },
  /**
   * Answers a question or confirmation, or returns nothing to pass.
   * @experimental Not on agy: stream-json has no question or confirmation channel, so this never fires
   * there (a warning is logged when one is registered). Kept for backends that have one.
   */
  onInteraction(fn: HookFn<OnInteractionHook>, options?: HookOptions): OnInteractionHook {
    return build<OnInteractionHook>('onInteraction', 'transform', fn, options);
  },
  /**
   * Observes a context compaction.
   * @experimental Not on agy: agy streams no compaction step today, so this effectively never fires.
   */
  onCompaction(fn: HookFn<OnCompactionHook>, options?: HookOptions): OnCompactionHook {
    return build<OnCompactionHook>('onCompaction', 'inspect', fn, options);
  },
  /** Lets the agent stop, or returns `{ decision: 'continue', reason }` to keep it going. */
  stop(fn: HookFn<StopHook>, options?: HookOptions): StopHook {
    return build<StopHook>('stop', 'decide', fn, options);
  },
};
