/** Small shared type guards. */

/** A plain JSON-like object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value `await` would wait on: an object or function with a `then` method (any thenable, not only a Promise). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * `true` when `T` is `never`; otherwise an object type naming `T`, so that `const x: Exhausted<T> = true` fails to
 * compile and the error shows the leftover keys (compile-time completeness checks of tables against types).
 */
export type Exhausted<T> = [T] extends [never] ? true : { leftOver: T };
