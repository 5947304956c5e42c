/**
 * Fail-closed turn classification (seed 001 "Wire protocol and lifecycle"; agy-cli.md §0.4, §D.3, §F.3).
 *
 * `success` only on a terminal `result` with status SUCCESS and none of:
 *   a non-empty `denied_actions` → denied; a `[agy] print timeout` stderr line → timeout;
 *   exit code 3 or a quota marker on stderr → quota_exhausted; an `agent_response` step in ERROR → error.
 * A process that exits (even with code 0) before the turn's `result` is `error`.
 */
import type { DeniedAction, TurnStatus } from '../../conversation/turn-result.js';
import type { ExitInfo } from '../../process/agy-process.js';
import { resultErrorText } from './normalize.js';
import type { WireResult } from './wire.js';

/** What the SDK itself asked for during the turn. */
export type TurnRequestedEnd = 'interrupted' | 'canceled' | 'timeout' | null;

/** Everything the classifier looks at. */
export interface OutcomeInput {
  result: WireResult | null;
  /** Set when the process exited before or right at the end of the turn. */
  exit: ExitInfo | null;
  /** stderr lines written during the turn. */
  stderrLines: readonly string[];
  deniedActions: readonly DeniedAction[];
  /** Error text of an `agent_response` step that ended in ERROR, if any. */
  agentResponseError: string | undefined;
  /** What the SDK asked for (interrupt, cancel, watchdog). */
  requested: TurnRequestedEnd;
  /** A line was dropped as too long during the turn. */
  lineTooLong: boolean;
  /** Tool steps that ended in ERROR because a hook or a permission check denied them. */
  deniedToolSteps?: number;
}

/** The classifier's verdict. */
export interface Outcome {
  status: TurnStatus;
  /** One line; empty on success. */
  message: string;
}

const PRINT_TIMEOUT = /^\[agy\] print timeout/;
const QUOTA_LINE = /^(?:AGY_ERROR:.*(?:quota|RESOURCE_EXHAUSTED)|error:.*quota)/i;
const AUTH = /authenticat|sign(?:ed)? in|log ?in required|unauthori[sz]ed|credentials/i;
const INTERRUPTED = /^interrupted$/i;

/** The stderr line that proves quota exhaustion, if any. */
export function quotaLine(lines: readonly string[]): string | undefined {
  return lines.find((l) => QUOTA_LINE.test(l.trim()));
}

export function classifyTurn(i: OutcomeInput): Outcome {
  const requested = i.requested;
  if (requested === 'timeout') return { status: 'timeout', message: 'the watchdog stopped the turn' };

  const status = i.result?.status;
  const errorText = i.result ? resultErrorText(i.result) : '';
  const stoppedByUs = requested === 'interrupted' || requested === 'canceled';
  if (
    stoppedByUs &&
    (status === undefined || status === 'INTERRUPTED' || status === 'CANCELED' || INTERRUPTED.test(errorText))
  ) {
    return {
      status: requested,
      message: requested === 'canceled' ? 'the turn was canceled' : 'the turn was interrupted',
    };
  }

  const quota = quotaLine(i.stderrLines);
  if (i.exit?.code === 3 || quota) {
    return {
      status: 'quota_exhausted',
      message: quota?.trim() || errorText || 'agy exited with code 3 (quota exhausted)',
    };
  }
  const printTimeout = i.stderrLines.find((l) => PRINT_TIMEOUT.test(l.trim()));
  if (printTimeout) return { status: 'timeout', message: printTimeout.trim() };

  if (!i.result) {
    const how = i.exit
      ? i.exit.signal
        ? `was killed by ${i.exit.signal}`
        : `exited with code ${i.exit.code}`
      : 'stopped';
    return { status: 'error', message: `agy ${how} before the turn's result` };
  }

  switch (status) {
    case 'SUCCESS':
      if (i.deniedActions.length > 0) {
        return {
          status: 'denied',
          message: `agy denied: ${i.deniedActions.map((d) => d.displayName ?? d.action).join(', ')}`,
        };
      }
      if (i.deniedToolSteps) {
        return {
          status: 'denied',
          message: `${i.deniedToolSteps} tool call(s) denied by a hook or permission check`,
        };
      }
      if (i.agentResponseError !== undefined) {
        return { status: 'error', message: `model step failed: ${i.agentResponseError || 'unknown error'}` };
      }
      if (i.lineTooLong) return { status: 'error', message: 'a line longer than maxLineBytes was dropped' };
      return { status: 'success', message: '' };
    case 'INTERRUPTED':
      return { status: 'interrupted', message: errorText || 'agy reported INTERRUPTED' };
    case 'CANCELED':
      return { status: 'canceled', message: errorText || 'agy reported CANCELED' };
    case 'ERROR':
      if (INTERRUPTED.test(errorText)) return { status: 'interrupted', message: errorText };
      if (AUTH.test(errorText)) return { status: 'auth_failed', message: errorText };
      if (/quota|RESOURCE_EXHAUSTED/i.test(errorText))
        return { status: 'quota_exhausted', message: errorText };
      if (/timeout waiting for response/i.test(errorText)) return { status: 'timeout', message: errorText };
      return { status: 'error', message: errorText || 'agy reported ERROR' };
    default:
      return {
        status: 'error',
        message: `agy: status ${status ?? '(missing)'}${errorText ? `: ${errorText}` : ''}`,
      };
  }
}

/** Classifies a failure before `init` (a lone `result`, an exit): used for start errors. */
export function classifyStartFailure(
  reason: string,
  exit: ExitInfo | null,
  stderrLines: readonly string[],
): 'auth_failed' | 'quota_exhausted' | 'error' {
  if (exit?.code === 3 || quotaLine(stderrLines)) return 'quota_exhausted';
  if (AUTH.test(reason)) return 'auth_failed';
  return 'error';
}
