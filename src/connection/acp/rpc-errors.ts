/**
 * Readable messages from whatever an ACP peer threw: an `Error`, a JSON-RPC error object, or anything else.
 */

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
