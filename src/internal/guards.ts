/** Small shared type guards. */

/** A plain JSON-like object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `true` when `T` is `never`; otherwise an object type naming `T`, so that `const x: Exhausted<T> = true` fails to
 * compile and the error shows the leftover keys (compile-time completeness checks of tables against types).
 */
export type Exhausted<T> = [T] extends [never] ? true : { leftOver: T };
