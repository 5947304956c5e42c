/**
 * Answering `session/request_permission`: always with a once-only option (docs/reference/acp.md#always-options).
 * Gemini CLI lists `proceed_always` (kind `allow_always`) before `proceed_once`; choosing it switches the session
 * to auto-edit, and later calls would no longer be asked about, bypassing the policies. So an approval is the
 * `allow_once` option, a denial the `reject_once` one; an "always" option is never chosen. Without the needed
 * once-only option the answer fails closed: `reject_once`, else `cancelled`.
 */
import type { AcpPermissionOption, AcpRequestPermissionResponse } from '../../protocol/acp.js';

/** The answer to send, and whether it actually lets the call run. */
export interface PermissionAnswer {
  /** The ACP response. */
  response: AcpRequestPermissionResponse;
  /** True only when the chosen option is `allow_once`. */
  allowed: boolean;
}

/** Picks the once-only option for `allow`, never an "always" one; fails closed when the agent offers none. */
export function chooseOption(options: readonly AcpPermissionOption[], allow: boolean): PermissionAnswer {
  const once = (kind: 'allow_once' | 'reject_once') => options.find((o) => o.kind === kind);
  const pick = allow ? (once('allow_once') ?? once('reject_once')) : once('reject_once');
  if (!pick) return { response: { outcome: { outcome: 'cancelled' } }, allowed: false };
  return {
    response: { outcome: { outcome: 'selected', optionId: pick.optionId } },
    allowed: pick.kind === 'allow_once',
  };
}

/** The cancelled answer (the prompt was cancelled while the question was open). */
export const CANCELLED: AcpRequestPermissionResponse = { outcome: { outcome: 'cancelled' } };
