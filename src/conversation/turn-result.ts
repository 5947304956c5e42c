/**
 * The outcome of one turn. Fail-closed: `status` is `success` only when agy's terminal `result` said SUCCESS and
 * nothing else contradicted it (see `connection/stream-json/outcome.ts` for the full table).
 */
import type { WireResult } from '../connection/stream-json/wire.js';
import type { AgySdkError } from '../errors.js';
import type { ToolCall, Usage } from './step.js';

/** How a turn ended. */
export type TurnStatus =
  /** agy reported SUCCESS and no signal contradicted it. */
  | 'success'
  /** agy soft-denied at least one action (`denied_actions` non-empty), or a policy denied the turn. */
  | 'denied'
  /** agy's print timeout or the SDK's watchdog fired. */
  | 'timeout'
  /** Quota exhausted (exit code 3, or a quota marker on stderr). */
  | 'quota_exhausted'
  /** agy could not authenticate. */
  | 'auth_failed'
  /** Interrupted with `interrupt()` (SIGINT). */
  | 'interrupted'
  /** Canceled with `ChatResponse.cancel()`, before or while running. */
  | 'canceled'
  /** A budget (`maxToolCalls`, `maxTotalTokens`, …) was exceeded; `TurnResult.budget` names it. */
  | 'budget_exceeded'
  /** Anything else: a model error, a crash, a missing `result`, invalid structured output, … */
  | 'error';

/** A permission agy soft-denied in headless mode. */
export interface DeniedAction {
  /** The permission agy denied (e.g. `write_file`), or the tool the SDK denied (e.g. `run_command`). */
  action: string;
  /** agy's display name for it, when given. */
  displayName?: string;
  /** Who denied it: agy itself (headless soft-denial), or the SDK (a policy, a hook, a pre-turn hook). */
  source?: 'agy' | 'sdk';
  /** The reason the model was given (SDK denials). */
  reason?: string;
  /** The denied call's arguments, as agy sent them (SDK denials of tool calls). */
  args?: Record<string, unknown>;
}

/** Everything known about a finished turn. */
export interface TurnResult {
  /** The fail-closed outcome. */
  status: TurnStatus;
  /** The turn's text: the concatenated streamed deltas, or `result.response` when nothing was streamed. */
  text: string;
  /**
   * Usage of this turn: the sum of its DONE model steps, each counted once. `null` when unknown (agy reported
   * nothing, or only zeros).
   */
  usage: Usage | null;
  /** Cumulative usage of the whole conversation from agy's `result` (earlier processes included); `null` if unknown. */
  totalUsage: Usage | null;
  /** Actions agy soft-denied during the turn. */
  deniedActions: DeniedAction[];
  /** Tool calls of the turn in the state they ended in. */
  toolCalls: ToolCall[];
  /** agy's exit code if the process exited during the turn, else null. */
  exitCode: number | null;
  /** The signal that ended agy during the turn, if any. */
  signal: NodeJS.Signals | null;
  /** The last lines of agy's stderr. */
  stderrTail: string;
  /** agy's `result` payload exactly as sent, or null when none arrived. */
  result: WireResult | null;
  /** The validated structured output, when `responseSchema` is set and the turn succeeded. */
  structuredOutput: unknown;
  /** The conversation the turn ran in. */
  conversationId: string | undefined;
  /** Wall time of the turn, in ms. */
  durationMs: number;
  /** Why the turn did not succeed, in one line (empty on success). */
  errorMessage: string;
  /** The typed error behind a non-success status, when there is one. */
  error?: AgySdkError;
  /** With status `budget_exceeded`: which budget. */
  budget?: BudgetName;
}

/** The budgets a turn can exceed (see `BudgetConfig`). */
export type BudgetName =
  | 'maxModelCalls'
  | 'maxToolCalls'
  | 'maxInputTokens'
  | 'maxOutputTokens'
  | 'maxTotalTokens';
