/**
 * The three hook categories, mirroring the Python SDK:
 * - inspect: observe only; cannot block, and a failure is logged without affecting anything;
 * - decide: may block; a failure counts as a deny (fail closed);
 * - transform: may supply a value (a replacement error message, an answer); the first one that does wins.
 *
 * A hook is a plain object; the `hooks.*` factories build them.
 */
import type { HookContext } from './context.js';
import type { HookKind, MaybePromise } from './types.js';

/** Options every hook accepts. */
export interface HookOptions {
  /** Name used in logs and deny messages; defaults to the function name, then the hook kind. */
  name?: string;
}

/** What all hooks share. */
interface BaseHook<K extends HookKind> {
  /** Which lifecycle event the hook handles. */
  readonly kind: K;
  /** Name used in logs and deny messages. */
  readonly name: string;
}

/** Observes data; cannot block. A thrown error is logged and the other hooks still run. */
export interface InspectHook<K extends HookKind, T, C extends HookContext> extends BaseHook<K> {
  /** The category, for tooling. */
  readonly category: 'inspect';
  /** Called with the event data and the context; the return value is ignored. */
  run(data: T, ctx: C): MaybePromise<void>;
}

/** Decides whether something may proceed. A thrown error or an invalid return counts as a deny. */
export interface DecideHook<K extends HookKind, T, C extends HookContext, R> extends BaseHook<K> {
  /** The category, for tooling. */
  readonly category: 'decide';
  /** Called with the event data and the context; returns the decision. */
  run(data: T, ctx: C): MaybePromise<R>;
}

/**
 * Supplies a value (e.g. a replacement error message or an answer). Returning `null`/`undefined` passes to
 * the next hook; a thrown error is logged and also passes.
 */
export interface TransformHook<K extends HookKind, T, C extends HookContext, R> extends BaseHook<K> {
  /** The category, for tooling. */
  readonly category: 'transform';
  /** Called with the event data and the context; returns a value, or nothing to pass. */
  run(data: T, ctx: C): MaybePromise<R | null | undefined>;
}
