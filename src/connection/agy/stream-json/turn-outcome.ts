/**
 * A turn's `TurnResult`, built once it ended: the classification (`outcome.ts`, fail-closed), the text and usage
 * the tracker gathered, the resume report, and the typed error of a turn that did not succeed.
 */
import { ProcessExitError, StartError } from '../../../errors.js';
import type { TurnResult } from '../../../model/turn-result.js';
import type { ExitInfo } from '../../process/child-process.js';
import type { ActiveTurn } from './active-turn.js';
import { mismatchFromStderr } from './cassette-mismatch.js';
import { commandFromWire, deniedFromWire, resultFacts, usageFromWire } from './normalize.js';
import { classifyTurn, softDenialLine, softDenialPermission } from './outcome.js';
import type { TurnTracker } from './turn-tracker.js';

/** What a launch asked to resume and what agy opened (docs/reference/stream-json.md#unknown-conversation). */
export interface ResumeCheck {
  /** The conversation the launch asked for (`--conversation`). */
  asked: string;
  /** The conversation agy's `init` opened. */
  opened: string;
  /** agy's own stderr warning, when it wrote one before `init`. */
  warning: string | undefined;
  /** Reported on a turn already (`TurnResult.resumed`). */
  reported: boolean;
  /** Warned about and, under `resume: 'require'`, refused already. */
  checked: boolean;
}

/** The conversation facts a result names. */
export interface ResultContext {
  conversationId: string | undefined;
  /** This connection has run (or resumed) a conversation before: result-only usage is not trusted. */
  resumed: boolean;
  /** The turn's process's resume check, if its launch asked for `--conversation`. */
  resumeCheck: ResumeCheck | undefined;
  /** agy's stderr tail. */
  stderrTail: string;
}

/** The result of a turn that ran in agy's stream-json process (its `result`, or the exit that ended it). */
export function buildTurnResult(turn: ActiveTurn, exit: ExitInfo | null, ctx: ResultContext): TurnResult {
  const { tracker } = turn;
  const result = tracker.result;
  const wireDenied = result ? deniedFromWire(result) : [];
  tracker.applyDeniedActions(wireDenied);
  const deniedActions = [...wireDenied, ...tracker.hookDenials];
  const command = tracker.command ?? (result ? commandFromWire(result.command) : undefined);
  const outcome = classifyTurn({
    result,
    exit,
    stderrLines: tracker.stderrLines,
    deniedActions,
    agentResponseError: tracker.agentResponseError,
    requested: turn.requested,
    lineTooLong: tracker.lineTooLong,
    resultTooLong: tracker.resultTooLong,
    lineTooDeep: tracker.lineTooDeep,
    malformedSteps: tracker.malformedSteps,
    deniedToolSteps: tracker.deniedToolSteps.size,
    command: command !== undefined,
    finishedModelStep: tracker.finishedModelStep,
    sawStepUsage: tracker.sawStepUsage,
    notices: tracker.notices,
    silentToolCalls: tracker.silentToolCalls.length,
  });
  if (outcome.status === 'denied' && result?.status === 'CANCELED') {
    const line = softDenialLine(tracker.stderrLines);
    tracker.applySoftDenial(line === undefined ? undefined : softDenialPermission(line));
  }
  const totalUsage = result ? usageFromWire(result.usage) : null;
  const facts = resultFacts(result);
  let usage = tracker.stepUsage;
  // Result-only usage is trusted only for the first turn of a fresh conversation, where it equals the turn.
  if (!usage && !ctx.resumed && facts.numTurns === 1) usage = totalUsage;
  const turnResult: TurnResult = {
    status: outcome.status,
    text: tracker.text || (facts.response ?? ''),
    usage,
    totalUsage,
    notices: [...tracker.notices],
    deniedActions,
    toolCalls: tracker.toolCalls,
    exitCode: exit?.code ?? null,
    signal: exit?.signal ?? null,
    stderrTail: ctx.stderrTail,
    result,
    structuredOutput: facts.structuredOutput,
    conversationId: ctx.conversationId,
    durationMs: Date.now() - tracker.startedAt,
    errorMessage: outcome.message,
  };
  if (turn.sent) reportResume(turnResult, ctx.resumeCheck);
  const subagentUsage = tracker.subagentUsage;
  if (subagentUsage) turnResult.subagentUsage = subagentUsage;
  if (facts.durationSeconds !== undefined) turnResult.agyDurationSeconds = facts.durationSeconds;
  if (command) turnResult.command = command;
  if (outcome.retryAfterMs !== undefined) {
    turnResult.retryAfterMs = outcome.retryAfterMs;
    turnResult.resetsAt = new Date(Date.now() + outcome.retryAfterMs);
  }
  const error =
    outcome.status === 'success'
      ? undefined
      : (mismatchFromStderr(tracker.stderrLines) ??
        turn.error ??
        (exit
          ? new ProcessExitError(outcome.message, {
              exitCode: exit.code,
              signal: exit.signal,
              stderrTail: ctx.stderrTail,
            })
          : undefined));
  if (error) turnResult.error = error;
  return turnResult;
}

/** The first turn a launch ran says whether agy opened the conversation it was asked to resume. */
function reportResume(turnResult: TurnResult, check: ResumeCheck | undefined): void {
  if (!check || check.reported) return;
  check.reported = true;
  if (check.asked !== check.opened) {
    turnResult.resumed = false;
    turnResult.notices = [
      ...(turnResult.notices ?? []),
      `agy did not know conversation "${check.asked}" and started a new conversation "${check.opened}"`,
    ];
  } else turnResult.resumed = true;
}

/** The result of a turn whose process could not be started (a `StartError` keeps its diagnostics). */
export function startFailureResult(
  err: unknown,
  tracker: TurnTracker,
  closed: boolean,
  conversationId: string | undefined,
): TurnResult {
  const start = err instanceof StartError ? err : undefined;
  const status = start?.status ?? 'error';
  const result: TurnResult = {
    status: closed ? 'canceled' : status,
    text: '',
    usage: null,
    totalUsage: null,
    deniedActions: [],
    toolCalls: [],
    exitCode: start?.exitCode ?? null,
    signal: start?.signal ?? null,
    stderrTail: start?.stderrTail ?? '',
    result: null,
    structuredOutput: undefined,
    conversationId,
    durationMs: Date.now() - tracker.startedAt,
    errorMessage: err instanceof Error ? err.message.split('\n')[0]! : String(err),
  };
  if (start) result.error = start;
  return result;
}
