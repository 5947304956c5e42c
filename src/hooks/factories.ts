/**
 * Function-style hooks: `hooks.preToolCall((call, ctx) => …)` builds the same hook a subclass would.
 * Functions may be sync or async; the context argument is optional.
 */
import type { HookOptions } from './base.js';
import {
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
import type { HookKind } from './types.js';

/** The function form of hook `H`: `(data, ctx) => result`, sync or async. */
export type HookFn<H extends Hook> = (
  data: Parameters<H['run']>[0],
  ctx: Parameters<H['run']>[1],
) => ReturnType<H['run']>;

// Function names make better log/deny labels than an anonymous class; the kind is the last resort.
function named(kind: HookKind, fn: { name: string }, options: HookOptions | undefined): HookOptions {
  return { name: options?.name || fn.name || kind };
}

/** Factories for every hook kind. */
export const hooks = {
  /** Runs when the session starts. */
  onSessionStart(fn: HookFn<OnSessionStartHook>, options?: HookOptions): OnSessionStartHook {
    return new (class extends OnSessionStartHook {
      override run = fn;
    })(named('onSessionStart', fn, options));
  },
  /** Runs when the session ends. */
  onSessionEnd(fn: HookFn<OnSessionEndHook>, options?: HookOptions): OnSessionEndHook {
    return new (class extends OnSessionEndHook {
      override run = fn;
    })(named('onSessionEnd', fn, options));
  },
  /** Decides whether a prompt may start a turn (`true`/`false` or `{ allow, message }`). */
  preTurn(fn: HookFn<PreTurnHook>, options?: HookOptions): PreTurnHook {
    return new (class extends PreTurnHook {
      override run = fn;
    })(named('preTurn', fn, options));
  },
  /** Observes the turn's response text. */
  postTurn(fn: HookFn<PostTurnHook>, options?: HookOptions): PostTurnHook {
    return new (class extends PostTurnHook {
      override run = fn;
    })(named('postTurn', fn, options));
  },
  /** Decides whether a tool call may run (`{ allow, message?, modifiedArgs? }` or a boolean). */
  preToolCall(fn: HookFn<PreToolCallHook>, options?: HookOptions): PreToolCallHook {
    return new (class extends PreToolCallHook {
      override run = fn;
    })(named('preToolCall', fn, options));
  },
  /** Observes a finished tool call. */
  postToolCall(fn: HookFn<PostToolCallHook>, options?: HookOptions): PostToolCallHook {
    return new (class extends PostToolCallHook {
      override run = fn;
    })(named('postToolCall', fn, options));
  },
  /** Returns a replacement error message for a failed tool, or nothing to keep the original. */
  onToolError(fn: HookFn<OnToolErrorHook>, options?: HookOptions): OnToolErrorHook {
    return new (class extends OnToolErrorHook {
      override run = fn;
    })(named('onToolError', fn, options));
  },
  /** Answers a question or confirmation, or returns nothing to pass. */
  onInteraction(fn: HookFn<OnInteractionHook>, options?: HookOptions): OnInteractionHook {
    return new (class extends OnInteractionHook {
      override run = fn;
    })(named('onInteraction', fn, options));
  },
  /** Observes a context compaction. */
  onCompaction(fn: HookFn<OnCompactionHook>, options?: HookOptions): OnCompactionHook {
    return new (class extends OnCompactionHook {
      override run = fn;
    })(named('onCompaction', fn, options));
  },
  /** Lets the agent stop, or returns `{ decision: 'continue', reason }` to keep it going. */
  stop(fn: HookFn<StopHook>, options?: HookOptions): StopHook {
    return new (class extends StopHook {
      override run = fn;
    })(named('stop', fn, options));
  },
};
