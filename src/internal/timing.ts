/** Timing helpers that never leave a timer behind, and the one timer limit. */

/**
 * The longest delay Node's `setTimeout` honours, in ms (2^31−1, about 24.8 days); a longer one fires after 1 ms.
 * The one definition: the duration checks, the pool, `every()`, the ask-user deadline and the simulator's
 * print timeout (bundled with it) all read it here.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** True if `promise` settles within `ms`; the timer is always cleared. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true as const,
        () => true as const,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** `p`, or `undefined` once `ms` passed (the timer is always cleared). */
export async function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p.then((value) => ({ value })),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
