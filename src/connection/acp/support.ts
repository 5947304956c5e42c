/**
 * Small helpers the ACP backend's files share: bounded waits and readable messages from whatever a peer threw.
 */
import type { WireObject } from '../../model/step.js';

/** A protocol object kept as the step's raw wire value. */
export const wire = (value: unknown): WireObject => value as WireObject;

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

/** A JSON-RPC error's `data.details` (Gemini CLI puts the reason there), or ''. */
export function detailsOf(err: unknown): string {
  const data = (err as { data?: unknown } | undefined)?.data;
  return typeof data === 'object' && data !== null ? JSON.stringify(data) : String(data ?? '');
}

/** The message of an `Error` or of a JSON-RPC error object, else the value as text. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err)
    return String((err as { message: unknown }).message);
  return String(err);
}
