/**
 * Fail-closed turn classification (docs/reference/stream-json.md#status-is-not-enough), judged
 * against real agy output (`shared/fixtures/agy-real/`).
 *
 * `success` only on a terminal `result` with status SUCCESS and none of:
 *   a non-empty `denied_actions` or a denied tool step → denied; an all-zero usage object and no command (agy's
 *   print timeout) → timeout; exit code 3 → quota_exhausted; an `agent_response` step in ERROR or a
 *   dropped line → error. A process that exits (even with code 0) before the turn's `result` is `error`.
 *
 * Only agy's own signals count: its exit code, the `result` it wrote, and the exact stderr lines it writes for a
 * quota stop. Stray words ("quota" in a file name, "print timeout" in a warning) never change a status.
 */

import { isRecord } from '../../../internal/guards.js';
import { describeDenials } from '../../../model/denials.js';
import type { DeniedAction, TurnStatus } from '../../../model/turn-result.js';
import type { WireResult } from '../../../protocol/stream-json-wire.js';
import type { ExitInfo } from '../../process/child-process.js';
import { resultErrorText } from './normalize.js';

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
  /** That line was the turn's `result` (its start says so): the turn ended without reading it. */
  resultTooLong?: boolean;
  /** A line was dropped as nested too deeply to read safely (`too_deep`) during the turn. */
  lineTooDeep?: boolean;
  /**
   * `step_update` lines the SDK could not place (a field it relies on missing or of the wrong type, e.g.
   * `step_index` renamed): each one's step and tool call are lost, so the turn fails closed.
   */
  malformedSteps?: { count: number; first: string } | undefined;
  /** Tool steps that ended in ERROR because a hook or a permission check denied them. */
  deniedToolSteps?: number;
  /** The turn ran a slash command (`command_result`). */
  command?: boolean;
  /** An `agent_response` step of the turn's own conversation reached DONE. */
  finishedModelStep?: boolean;
  /** A DONE step of the turn's own conversation carried non-zero usage. */
  sawStepUsage?: boolean;
  /** Texts of the turn's `error_message` / `unknown` steps. */
  notices?: readonly string[];
  /** Tool calls that ended DONE with neither output nor error (how agy ends a soft-denied step). */
  silentToolCalls?: number;
}

/** The classifier's verdict. */
export interface Outcome {
  status: TurnStatus;
  /** One line; empty on success. */
  message: string;
  /** With quota_exhausted / rate_limited: the delay agy stated ("Resets in 34m13s"), in ms. */
  retryAfterMs?: number;
}

// agy 1.2.17's quota stop, verbatim (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr):
//   error: Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.
//   AGY_ERROR: {"short_error":"RESOURCE_EXHAUSTED (code 429): Individual quota reached. …","status":"RESOURCE_EXHAUSTED",…}
const QUOTA_WORDING = /\bIndividual quota reached\b/;
const QUOTA_ERROR_LINE = /^error: Individual quota reached\b/;
const AGY_ERROR_LINE = /^AGY_ERROR: (\{.*\})$/;
// A transient 429, retried by agy: "Resource has been exhausted (e.g. check quota)." — not the quota stop.
const RATE_LIMIT_WORDING =
  /\bResource has been exhausted\b|\bRESOURCE_EXHAUSTED\b|\(code 429\)|\b429 Too Many Requests\b/;
const RESETS_IN = /\bResets in ((?:\d+(?:\.\d+)?(?:h|ms|m|s))+)/i;
// agy's own auth failure texts on `result.error` (docs/reference/stream-json.md#failure-before-the-turn).
const AUTH =
  /^(?:authentication failed|not (?:signed|logged) in|(?:sign|log) ?in required|unauthenticated\b|invalid (?:api key|credentials))/i;
const INTERRUPTED = /^interrupted$/i;
// A PreToolUse hook's denial, as agy words it on the tool step (and on 1.1.18 also on the `result`):
// agy-real/littlebearapps-untether-agy-1.3.1/hook_deny_bypass.script.
export const HOOK_DENIAL = /^tool call denied by pre-tool hook: /i;
// agy's headless auto-denial notice (agy-real/littlebearapps-untether-agy-1.3.1/tools_denied.script):
//   jetski: no output produced — a tool required the "command" permission that headless mode cannot prompt for, so it was auto-denied. …
const SOFT_DENIAL_LINE = /^jetski: no output produced\b.*\bauto-denied\b/;
const SOFT_DENIAL_PERMISSION = /required the "([^"]+)" permission/;
// Older agy's print timeout (agy-real/jdiazromeral-agy-plugin-cc/error_result-2026-08-02-run1.ndjson).
const OLD_PRINT_TIMEOUT = /^timeout waiting for response$/i;
// 1.2.17+'s stderr line; used for the message only, never to decide (agy-real/joiomi-*/print-timeout.stderr).
const PRINT_TIMEOUT_LINE = /^\[agy\] print timeout after \S+ with turn in progress/;

/** An `AGY_ERROR: {json}` stderr line, parsed; `undefined` for any other line or bad JSON. */
export function agyErrorLine(line: string): Record<string, unknown> | undefined {
  const m = AGY_ERROR_LINE.exec(line.trim());
  if (!m) return undefined;
  try {
    const value: unknown = JSON.parse(m[1]!);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The stderr line that proves the quota stop (agy's exact wording), if any. */
export function quotaLine(lines: readonly string[]): string | undefined {
  return lines.find((l) => {
    if (QUOTA_ERROR_LINE.test(l.trim())) return true;
    const e = agyErrorLine(l);
    return e !== undefined && typeof e.short_error === 'string' && QUOTA_WORDING.test(e.short_error);
  });
}

/** A Go duration as agy prints it (`34m13s`, `1h2m`, `45.5s`, `300ms`) in ms. */
export function parseGoDuration(text: string): number | undefined {
  let ms = 0;
  let matched = '';
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    const n = Number(m[1]);
    ms += n * (m[2] === 'h' ? 3_600_000 : m[2] === 'm' ? 60_000 : m[2] === 's' ? 1000 : 1);
    matched += m[0];
  }
  return matched === text && Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** agy's `jetski: no output produced … auto-denied …` stderr line, trimmed, if any. */
export function softDenialLine(lines: readonly string[]): string | undefined {
  return lines.map((l) => l.trim()).find((l) => SOFT_DENIAL_LINE.test(l));
}

/** The permission agy's auto-denial line names (`command`, `write_file`, …), if any. */
export function softDenialPermission(line: string): string | undefined {
  return SOFT_DENIAL_PERMISSION.exec(line)?.[1];
}

/** The delay in "Resets in 34m13s", searched in `texts` in order. */
export function resetsIn(texts: readonly string[]): number | undefined {
  for (const t of texts) {
    const m = RESETS_IN.exec(t);
    const ms = m ? parseGoDuration(m[1]!) : undefined;
    if (ms !== undefined) return ms;
  }
  return undefined;
}

function withRetry(o: Outcome, texts: readonly string[]): Outcome {
  const ms = resetsIn(texts);
  return ms === undefined ? o : { ...o, retryAfterMs: ms };
}

/**
 * A SUCCESS that is agy 1.2.17+'s print timeout: an all-zero usage object with no finished model step (the
 * capture; or only a partial, still ACTIVE answer), or with steps whose usage the result then reports as zero (a
 * turn that ran reports what it spent: the usage is cumulative). A slash command also reports zeros, but says
 * it is one (`command`).
 */
function isPrintTimeout(i: OutcomeInput): boolean {
  // `result.command` also marks a slash command (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota.stdout).
  if (i.command || i.result?.command !== undefined) return false;
  const u: unknown = i.result?.usage;
  // Absent usage says nothing; only agy's explicit zeros do.
  const zeros =
    isRecord(u) &&
    USAGE_KEYS.every((k) => u[k] === undefined || u[k] === 0) &&
    USAGE_KEYS.some((k) => k in u);
  return zeros && (!i.finishedModelStep || i.sawStepUsage === true);
}
const USAGE_KEYS = ['input_tokens', 'output_tokens', 'thinking_tokens', 'cache_read_tokens', 'total_tokens'];

export function classifyTurn(i: OutcomeInput): Outcome {
  const requested = i.requested;
  if (requested === 'timeout') return { status: 'timeout', message: 'the watchdog stopped the turn' };

  const status = i.result?.status;
  const errorText = i.result ? resultErrorText(i.result) : '';
  const stoppedByUs = requested === 'interrupted' || requested === 'canceled';
  // The SDK sent the interrupt: whatever non-success shape agy answers with (1.3.1 ERROR "interrupted", 1.1.18
  // ERROR "context canceled" or "timeout waiting for response", an exit without a result) is what the user
  // asked for; agy's own words stay in the message (docs/reference/stream-json.md#interrupt-answers).
  if (stoppedByUs && status !== 'SUCCESS') {
    const ours = requested === 'canceled' ? 'the turn was canceled' : 'the turn was interrupted';
    const words = errorText && !INTERRUPTED.test(errorText) ? errorText : '';
    return { status: requested, message: words ? `${ours} (agy: ${words})` : ours };
  }

  const notices = i.notices ?? [];
  const failed = status !== 'SUCCESS';
  // stderr is read only when stdout did not report success: a SUCCESS turn is never re-judged by stderr text.
  const quota = failed ? quotaLine(i.stderrLines) : undefined;
  const evidence = [errorText, ...(quota ? [quota] : []), ...notices];
  if (i.exit?.code === 3 || quota || (failed && QUOTA_WORDING.test(errorText))) {
    return withRetry(
      {
        status: 'quota_exhausted',
        message: errorText || quota?.trim() || 'agy exited with code 3 (quota exhausted)',
      },
      evidence,
    );
  }

  if (!i.result && i.resultTooLong)
    return { status: 'error', message: "agy's result line was longer than maxLineBytes and was dropped" };
  if (!i.result) {
    const how = i.exit
      ? i.exit.signal
        ? `was killed by ${i.exit.signal}`
        : `exited with code ${i.exit.code}`
      : 'stopped';
    const last = notices.at(-1);
    return { status: 'error', message: `agy ${how} before the turn's result${last ? `: ${last}` : ''}` };
  }

  switch (status) {
    case 'SUCCESS':
      return classifySuccess(i);
    case 'INTERRUPTED':
      return { status: 'interrupted', message: errorText || 'agy reported INTERRUPTED' };
    case 'CANCELED': {
      // Not the SDK's cancel (that returned above): agy 1.1.x ends a soft-denied turn CANCELED, with the
      // tool step DONE and no output, and no `denied_actions` (docs/reference/stream-json.md#canceled-soft-denial).
      const jetski = softDenialLine(i.stderrLines);
      if (jetski !== undefined || (i.silentToolCalls ?? 0) > 0) {
        return {
          status: 'denied',
          message: jetski ?? 'agy canceled the turn after a silent tool step (auto-denied)',
        };
      }
      return { status: 'canceled', message: errorText || 'agy reported CANCELED' };
    }
    case 'ERROR':
      return classifyError(i, errorText, notices, evidence);
    default:
      return {
        status: 'error',
        message: `agy: status ${status ?? '(missing)'}${errorText ? `: ${errorText}` : ''}`,
      };
  }
}

/** A `SUCCESS` result is a clean success only when nothing was denied, failed, timed out or lost. */
function classifySuccess(i: OutcomeInput): Outcome {
  if (i.deniedActions.length > 0) {
    return {
      status: 'denied',
      message: describeDenials(i.deniedActions),
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
  if (isPrintTimeout(i)) {
    const line = i.stderrLines.find((l) => PRINT_TIMEOUT_LINE.test(l.trim()));
    return {
      status: 'timeout',
      message: line?.trim() ?? "agy's print timeout: a SUCCESS result with all-zero usage",
    };
  }
  if (i.lineTooLong) return { status: 'error', message: 'a line longer than maxLineBytes was dropped' };
  // Whatever that line carried (text, a tool result, usage) is lost: never a clean success.
  if (i.lineTooDeep) return { status: 'error', message: 'a line nested too deeply to read was dropped' };
  if (i.malformedSteps)
    return {
      status: 'error',
      message: `${i.malformedSteps.count} step update(s) could not be read (a field the SDK relies on is missing or of another type; agy may have changed its wire): ${i.malformedSteps.first}`,
    };
  return { status: 'success', message: '' };
}

/** An `ERROR` result, told apart by agy's words (its error text, notices and stderr error lines). */
function classifyError(
  i: OutcomeInput,
  errorText: string,
  notices: readonly string[],
  evidence: readonly string[],
): Outcome {
  const message = errorText || notices.at(-1) || 'agy reported ERROR';
  // agy 1.1.18 ends a turn whose tool a PreToolUse hook denied with ERROR and the step's own text; 1.3.1 with
  // SUCCESS (docs/reference/hooks.md#hook-denials-on-stdout): the same event, the same status.
  if (i.deniedToolSteps && HOOK_DENIAL.test(errorText)) return { status: 'denied', message };
  if (INTERRUPTED.test(errorText)) return { status: 'interrupted', message };
  if (AUTH.test(errorText)) return { status: 'auth_failed', message };
  if (OLD_PRINT_TIMEOUT.test(errorText)) return { status: 'timeout', message };
  const agyErrors = i.stderrLines.map(agyErrorLine).filter((e) => e !== undefined);
  if (
    RATE_LIMIT_WORDING.test(errorText) ||
    notices.some((n) => RATE_LIMIT_WORDING.test(n)) ||
    agyErrors.some((e) => e.error_code === 429 || e.status === 'RESOURCE_EXHAUSTED')
  ) {
    return withRetry({ status: 'rate_limited', message }, evidence);
  }
  return { status: 'error', message };
}

/** Classifies a failure before `init` (a lone `result`, an exit): used for start errors. */
export function classifyStartFailure(
  reason: string,
  exit: ExitInfo | null,
  stderrLines: readonly string[],
): 'auth_failed' | 'quota_exhausted' | 'error' {
  if (exit?.code === 3 || quotaLine(stderrLines) || QUOTA_WORDING.test(reason)) return 'quota_exhausted';
  if (AUTH.test(reason)) return 'auth_failed';
  return 'error';
}
