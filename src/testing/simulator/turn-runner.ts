/**
 * Runs one turn: a `user_input` step, the scripted (or default) actions, then the `result` line, with
 * cumulative `usage`, `num_turns` and `duration_seconds` (agy-cli.md §0.5). Also owns the turn's abort
 * controller, so SIGINT and `--print-timeout` can cut the turn short the way agy does.
 */
import { performance } from 'node:perf_hooks';
import { type AbortReason, TurnAborted } from './abort.js';
import { runAction, systemMessage, type TurnContext } from './actions.js';
import type { Conversation } from './conversation.js';
import { defaultTurn } from './default-script.js';
import { formatGoDuration } from './duration.js';
import type { Emitter } from './emitter.js';
import { type ResultFields, resultEnvelope, stepEnvelope } from './envelopes.js';
import { MAX_STOP_CONTINUATIONS, stopHooks } from './hook-events.js';
import type { SimRuntime } from './runtime.js';
import type { Scenario, ScenarioTurn, ScenarioTurnEnd } from './scenario.js';
import { ExpectationFailed } from './tool-steps.js';
import { zeroUsage } from './usage.js';

/** What the turn runner needs from the process around it. */
export interface TurnRunnerOptions {
  conv: Conversation;
  emitter: Emitter;
  scenario: Scenario | undefined;
  /** `--print-timeout` in ms; `0` or less means none. */
  printTimeoutMs: number;
  /** Whether `--json-schema` was given. */
  structured: boolean;
  /** The first usable `--add-dir`, for the default script's `list_dir`. */
  workspace: string | undefined;
  /** Flushes output, saves state and exits the process. */
  exit: (code: number) => Promise<never>;
  /** What agy loaded: hooks, MCP servers, rules, custom agents. */
  runtime: SimRuntime;
}

/** The stderr line of agy 1.2.17's print timeout (agy-cli.md §D.3). */
export function printTimeoutMarker(ms: number): string {
  return `[agy] print timeout after ${formatGoDuration(ms > 0 ? ms : 5 * 60_000)} with turn in progress; returning partial output`;
}

const QUOTA_MESSAGE = 'Individual quota reached. Your quota resets in 2h.';

/** setTimeout's limit; a longer print timeout is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Plays turns one at a time. */
export class TurnRunner {
  private current: AbortController | undefined;
  private announcedResume = false;

  constructor(private readonly opts: TurnRunnerOptions) {}

  /**
   * Delivers SIGINT. Returns true when a turn is running and will end as interrupted; false when the process
   * is idle (or already ending a turn), in which case the caller exits with 130.
   */
  interrupt(): boolean {
    const controller = this.current;
    if (controller === undefined || controller.signal.aborted) return false;
    controller.abort('interrupt' satisfies AbortReason);
    return true;
  }

  /** Runs one turn for `prompt`. Returns once its `result` is written (or never, if the turn exits). */
  async run(prompt: string): Promise<void> {
    const { conv, emitter } = this.opts;
    const controller = new AbortController();
    this.current = controller;
    const timeoutMs = this.opts.printTimeoutMs;
    const timer =
      timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS
        ? setTimeout(() => controller.abort('printTimeout' satisfies AbortReason), timeoutMs)
        : undefined;
    const started = performance.now();
    conv.state.numTurns++;
    const turn = this.pickTurn(prompt);
    conv.save();
    const ctx: TurnContext = {
      conv,
      emitter,
      signal: controller.signal,
      prompt,
      exit: this.opts.exit,
      lastText: '',
      denied: [],
      runtime: this.opts.runtime,
      invocations: 0,
      initialNumSteps: 0,
      injected: [],
      lastTool: undefined,
    };
    try {
      if (conv.resumed && !this.announcedResume) {
        this.announcedResume = true;
        await systemMessage(ctx, 'Conversation resumed');
      }
      await emitter.line(stepEnvelope(conv.id, conv.nextStep(), { state: 'DONE', step_type: 'user_input' }));
      ctx.initialNumSteps = conv.state.nextStepIndex;
      for (const action of turn.actions) await runAction(ctx, action);
      const end = turn.end ?? {};
      if (runsStopHooks(end)) await this.stop(ctx);
      clearTimeout(timer);
      await this.finish(ctx, end, started);
    } catch (err) {
      if (err instanceof ExpectationFailed) {
        clearTimeout(timer);
        await this.finish(ctx, { status: 'ERROR', error: err.message, response: '' }, started);
      } else if (err instanceof TurnAborted) {
        await this.aborted(ctx, err.reason, started);
      } else {
        throw err;
      }
    } finally {
      clearTimeout(timer);
      this.current = undefined;
    }
    // A SIGINT that landed while the result was being written finds the process idle, as it would in agy.
    if (controller.signal.aborted && controller.signal.reason === 'interrupt') await this.opts.exit(130);
  }

  /** The scripted turn for this prompt, consuming it; the default script once the scenario has none left. */
  private pickTurn(prompt: string): ScenarioTurn {
    const { scenario, conv } = this.opts;
    const turns = scenario?.turns ?? [];
    if (conv.state.turnCursor < turns.length) {
      const turn = turns[conv.state.turnCursor++] as ScenarioTurn;
      if (turn.expectPrompt !== undefined && !prompt.includes(turn.expectPrompt)) {
        const error = `simulator: expected the prompt to contain ${JSON.stringify(turn.expectPrompt)}`;
        return { actions: [], end: { status: 'ERROR', error, response: '' } };
      }
      return turn;
    }
    if (scenario?.afterTurns === 'error') {
      return {
        actions: [],
        end: {
          status: 'ERROR',
          error: 'simulator: the scenario has no turn left for this prompt',
          response: '',
        },
      };
    }
    return defaultTurn(prompt, this.opts.workspace, this.opts.runtime);
  }

  /**
   * Runs the Stop hooks; each `{"decision":"continue","reason":R}` adds a model call answering
   * `Continuing: R`, then Stop runs again, up to {@link MAX_STOP_CONTINUATIONS} continuations.
   */
  private async stop(ctx: TurnContext): Promise<void> {
    for (let continuations = 0; ; continuations++) {
      const reason = await stopHooks(ctx);
      if (reason === undefined || continuations >= MAX_STOP_CONTINUATIONS) return;
      await runAction(ctx, { text: `Continuing: ${reason}`, chunks: 1 });
    }
  }

  /** Adds the turn's wall time to the conversation total and returns the new total. */
  private closeDuration(started: number): number {
    const state = this.opts.conv.state;
    state.durationSeconds += (performance.now() - started) / 1000;
    this.opts.conv.save();
    return state.durationSeconds;
  }

  private baseResult(ctx: TurnContext, durationSeconds: number): ResultFields {
    const state = this.opts.conv.state;
    return {
      conversationId: this.opts.conv.id,
      status: 'SUCCESS',
      response: ctx.lastText,
      durationSeconds,
      numTurns: state.numTurns,
      usage: { ...state.usage },
    };
  }

  private async finish(ctx: TurnContext, end: ScenarioTurnEnd, started: number): Promise<void> {
    const { emitter, exit } = this.opts;
    const duration = this.closeDuration(started);
    if (end.noResult) await exit(end.exitAfter ?? 0);
    if (end.printTimeout) await this.printTimeout(ctx, duration);
    const result = this.baseResult(ctx, duration);
    if (end.quota) {
      // agy 1.2.17: the tokens spent so far stay in usage; the wording, not the 429, says "quota".
      await emitter.stderr(`error: ${QUOTA_MESSAGE}`);
      await emitter.stderr(
        `AGY_ERROR: ${JSON.stringify({ short_error: 'RESOURCE_EXHAUSTED (code 429)', message: QUOTA_MESSAGE })}`,
      );
      await emitter.line(
        resultEnvelope({
          ...result,
          status: 'ERROR',
          response: end.response ?? '',
          error: end.error ?? QUOTA_MESSAGE,
        }),
      );
      await exit(end.exitAfter ?? 3);
    }
    result.status = end.status ?? 'SUCCESS';
    result.error = end.error;
    // Headless agy soft-denies: the turn "succeeds" with an empty response and the denials listed.
    result.response = end.response ?? (ctx.denied.length > 0 ? '' : ctx.lastText);
    result.deniedActions = ctx.denied;
    if (this.opts.structured || end.forceStructured)
      result.structured = structuredOutput(end, result.response);
    const firstDenied = ctx.denied[0];
    if (firstDenied !== undefined && result.response === '') {
      await emitter.stderr(
        `jetski: no output produced — a tool required the "${firstDenied.action}" permission`,
      );
    }
    await emitter.line(resultEnvelope(result));
    if (end.exitAfter !== undefined) await exit(end.exitAfter);
  }

  /** agy 1.2.17's print timeout: stderr marker, SUCCESS with the partial text and all-zero usage, exit 0. */
  private async printTimeout(ctx: TurnContext, duration: number): Promise<never> {
    const { emitter, exit, printTimeoutMs } = this.opts;
    await emitter.stderr(printTimeoutMarker(printTimeoutMs));
    await emitter.line(resultEnvelope({ ...this.baseResult(ctx, duration), usage: zeroUsage() }));
    return exit(0);
  }

  private async aborted(ctx: TurnContext, reason: AbortReason, started: number): Promise<never> {
    const { emitter, exit, scenario } = this.opts;
    const duration = this.closeDuration(started);
    if (reason === 'printTimeout') return this.printTimeout(ctx, duration);
    // Both shapes are seen in the wild: INTERRUPTED, or ERROR with error "interrupted" (seed 000).
    const status = scenario?.interrupt?.status ?? 'INTERRUPTED';
    await emitter.stderr('error: interrupted');
    const result = this.baseResult(ctx, duration);
    result.status = status;
    if (status === 'ERROR') result.error = 'interrupted';
    result.deniedActions = ctx.denied;
    await emitter.line(resultEnvelope(result));
    return exit(scenario?.interrupt?.exitCode ?? 0);
  }
}

/** The scenario's structured output, else the response parsed as JSON, else nothing. */
function structuredOutput(end: ScenarioTurnEnd, response: string): { value: unknown } | undefined {
  if (end.structuredOutput !== undefined) return { value: end.structuredOutput };
  try {
    return { value: JSON.parse(response) };
  } catch {
    return undefined;
  }
}

/** Stop hooks run when a turn ends normally: not on a quota error, print timeout, cut stream or error status. */
function runsStopHooks(end: ScenarioTurnEnd): boolean {
  return !end.quota && !end.printTimeout && !end.noResult && (end.status ?? 'SUCCESS') === 'SUCCESS';
}
