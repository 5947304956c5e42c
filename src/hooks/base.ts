/**
 * The three hook categories, mirroring the Python SDK:
 * - inspect: observe only; cannot block, and a failure is logged without affecting anything;
 * - decide: may block; a failure counts as a deny (fail closed);
 * - transform: may supply a value (a replacement error message, an answer); the first one that does wins.
 */
import type { HookContext } from './context.js';
import type { HookKind, MaybePromise } from './types.js';

/** Options every hook accepts. */
export interface HookOptions {
  /** Name used in logs and deny messages; defaults to the class or function name. */
  name?: string;
}

/** What all hooks share. */
abstract class BaseHook<K extends HookKind> {
  /** Which lifecycle event the hook handles. */
  abstract readonly kind: K;
  /** Name used in logs and deny messages. */
  readonly name: string;

  constructor(options: HookOptions = {}) {
    this.name = options.name || new.target.name || 'anonymous';
  }
}

/** Observes data; cannot block. A thrown error is logged and the other hooks still run. */
export abstract class InspectHook<K extends HookKind, T, C extends HookContext> extends BaseHook<K> {
  /** The category, for tooling. */
  readonly category = 'inspect' as const;
  /** Called with the event data and the context; the return value is ignored. */
  abstract run(data: T, ctx: C): MaybePromise<void>;
}

/** Decides whether something may proceed. A thrown error or an invalid return counts as a deny. */
export abstract class DecideHook<K extends HookKind, T, C extends HookContext, R> extends BaseHook<K> {
  /** The category, for tooling. */
  readonly category = 'decide' as const;
  /** Called with the event data and the context; returns the decision. */
  abstract run(data: T, ctx: C): MaybePromise<R>;
}

/**
 * Supplies a value (e.g. a replacement error message or an answer). Returning `null`/`undefined` passes to
 * the next hook; a thrown error is logged and also passes.
 */
export abstract class TransformHook<K extends HookKind, T, C extends HookContext, R> extends BaseHook<K> {
  /** The category, for tooling. */
  readonly category = 'transform' as const;
  /** Called with the event data and the context; returns a value, or nothing to pass. */
  abstract run(data: T, ctx: C): MaybePromise<R | null | undefined>;
}
