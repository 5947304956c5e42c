/**
 * The outcome of one turn. Fail-closed: `status` is `success` only when agy's terminal `result` said SUCCESS and
 * nothing else contradicted it (see `connection/stream-json/outcome.ts` for the full table).
 */
import type { AgySdkError } from '../errors.js';
import type { CommandResult, ToolCall, Usage, WireObject } from './step.js';
import type { ProviderUsage } from './usage.js';

/** How a turn ended. */
export type TurnStatus =
  /** agy reported SUCCESS and no signal contradicted it. */
  | 'success'
  /** agy soft-denied at least one action (`denied_actions` non-empty), or a policy denied the turn. */
  | 'denied'
  /**
   * agy's print timeout (a SUCCESS `result` with all-zero usage, no usage-bearing step and no command; or an
   * ERROR "timeout waiting for response" on older agy) or the SDK's watchdog fired.
   */
  | 'timeout'
  /**
   * The account's quota is used up: agy exited with code 3, or said "Individual quota reached" (its `result`
   * error or its `AGY_ERROR` line). `TurnResult.retryAfterMs` says when it resets, when agy states it.
   */
  | 'quota_exhausted'
  /**
   * A transient rate limit: the turn failed after 429 "Resource has been exhausted" answers that were not the
   * quota stop. Retrying later usually works; `retryAfterMs` is set when agy states a delay.
   */
  | 'rate_limited'
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

/**
 * Who denied a tool call or a turn. Every denial names one:
 * - `policy`: a policy by its name (`Policy.name`, else its target), including the SDK's own (`capabilities`,
 *   `workspace-only`), or one that failed closed (its condition threw, or nobody answered its `askUser` in time);
 * - `user`: the person asked by an `ask_user` policy answered no;
 * - `hook`: a hook by its name (a `preToolCall` or `preTurn` hook, or `agyHooks` for the raw agy hooks);
 * - `config`: a configuration field (an MCP server's `enabledTools` or `disabledTools`);
 * - `budget`: a budget ran out (`maxToolCalls`);
 * - `agy`: agy itself (its permission check: headless agy cannot ask, so it soft-denies);
 * - `sdk`: the SDK's own safety rule (a call from a turn that already ended, a hook that failed to answer).
 */
export type DeniedBy =
  | {
      /** A policy denied it. */
      kind: 'policy';
      /** The policy's name (its `name`, else its tool target). */
      name: string;
    }
  | {
      /** The person an `ask_user` policy asked said no. */
      kind: 'user';
      /** The policy that asked. */
      policy: string;
    }
  | {
      /** A hook denied it. */
      kind: 'hook';
      /** The hook's name (`agyHooks` for the raw agy hooks). */
      name: string;
    }
  | {
      /** A configuration field denied it. */
      kind: 'config';
      /** The field, e.g. `mcpServers.calc.enabledTools`. */
      field: string;
    }
  | {
      /** A budget ran out. */
      kind: 'budget';
      /** Which budget. */
      name: BudgetName;
    }
  | {
      /** agy itself denied it (its own permission check). */
      kind: 'agy';
    }
  | {
      /** The SDK's own safety rule denied it. */
      kind: 'sdk';
    };

/** A tool call or turn that was denied: by agy (a headless soft-denial) or by the SDK (policies, hooks, …). */
export interface DeniedAction {
  /** The permission agy denied (e.g. `write_file`), or the tool the SDK denied (e.g. `run_command`). */
  action: string;
  /** agy's display name for it, when given. */
  displayName?: string;
  /**
   * Where the denial was reported: `agy` (agy's `denied_actions`, or a hook denial agy echoed on a tool step) or
   * `sdk` (decided in the SDK). {@link DeniedAction.deniedBy} says who decided.
   */
  source?: 'agy' | 'sdk';
  /** Who denied it: a policy by name, the person asked, a hook, a config field, a budget, agy, or the SDK. */
  deniedBy?: DeniedBy;
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
   * Usage of this turn: the sum of the usage of its DONE steps of every type (model and `checkpoint` steps),
   * each step counted once, subagents' steps excluded. `null` when unknown (agy reported nothing, or only zeros).
   */
  usage: Usage | null;
  /** Usage of each subagent that ran during the turn, by the subagent's conversation id; absent when none reported any. */
  subagentUsage?: Record<string, Usage>;
  /**
   * Provider mode only (`AgentConfig.provider`): the upstream's own token counts for this turn, as the provider
   * bills them, next to agy's figures in `usage`; `null` when no upstream request finished during the turn.
   */
  providerUsage?: ProviderUsage | null;
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
  result: WireObject | null;
  /**
   * The validated structured output, when `responseSchema` is set and the turn succeeded. (A `Connection`
   * fills it with what the backend returned; the Agent validates it before any user sees it.)
   */
  structuredOutput: unknown;
  /** The conversation the turn ran in. */
  conversationId: string | undefined;
  /**
   * The model the turn's usage was priced at: the provider's model in provider mode, else the backend's model
   * (`AgentConfig.model`, or what the backend reported); absent when unknown (agy's unnamed default).
   */
  model?: string;
  /** Wall time of the turn, in ms, measured by the SDK. */
  durationMs: number;
  /**
   * agy's own `result.duration_seconds`: cumulative over the process's turns in a stream-json session,
   * `undefined` when no `result` arrived.
   */
  agyDurationSeconds?: number;
  /** The slash command's result, when the turn ran one (`command_result`, or `result.command`). */
  command?: CommandResult;
  /**
   * With `quota_exhausted` or `rate_limited`: how long until agy said the limit resets, in ms (from
   * "Resets in 34m13s"). `undefined` when agy stated no time.
   */
  retryAfterMs?: number;
  /** With `retryAfterMs`: the moment it points to (the turn's end plus `retryAfterMs`). */
  resetsAt?: Date;
  /**
   * Texts of the turn's `error_message` and `unknown` steps (failed API calls, retries, notices), in order.
   * When the turn fails they also feed `errorMessage`.
   */
  notices?: string[];
  /**
   * Set on the first turn after a start (or restart) that asked agy to resume a conversation: `true` when agy
   * resumed it, `false` when agy did not know it and started a new one (`conversationId` is then the new id and a
   * notice says so). Absent when no resume was asked for.
   */
  resumed?: boolean;
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
  | 'maxTotalTokens'
  | 'maxCostUsd';
