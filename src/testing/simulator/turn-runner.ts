/**
 * Runs one turn: a `user_input` step, the notices agy writes on a process's first turn (a DONE `system_message`
 * after a resume, a DONE `unknown` after a fallback), the scripted (or default) actions, a `checkpoint` on 1.1.x,
 * then the `result` line, with cumulative `usage`, `num_turns` and `duration_seconds` (docs/reference/stream-json.md#cumulative-results;
 * agy-real/jdiazromeral-agy-plugin-cc/resume-2026-08-02-run1.ndjson). Also owns the turn's abort controller,
 * so SIGINT and `--print-timeout` can cut the turn short the way agy does.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { MAX_TIMER_MS } from '../../internal/timing.js';
import { type AbortReason, TurnAborted } from './abort.js';
import {
  checkpoint,
  errorMessages,
  MODEL_ERROR_MESSAGE,
  ModelCallFailed,
  nextIndex,
  runAction,
  step,
  systemMessage,
  type TurnContext,
  unknownStep,
} from './actions.js';
import type { Conversation } from './conversation.js';
import { defaultTurn } from './default-script.js';
import { formatGoDuration } from './duration.js';
import type { Emitter } from './emitter.js';
import { type ResultFields, resultEnvelope, stepEnvelope } from './envelopes.js';
import { MAX_STOP_CONTINUATIONS, stopHooks } from './hook-events.js';
import { valueFromSchema } from './json-schema.js';
import type { ModelEndpointSession } from './model-endpoint.js';
import { type AgyProfile, olderThan } from './profile.js';
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
  /** The `--json-schema` schema, when given. */
  jsonSchema?: object | undefined;
  /** The first usable `--add-dir`, for the default script's `list_dir`. */
  workspace: string | undefined;
  /** Flushes output, saves state and exits the process. */
  exit: (code: number) => Promise<never>;
  /** What agy loaded: hooks, MCP servers, rules, custom agents. */
  runtime: SimRuntime;
  /** The agy build being imitated. */
  profile: AgyProfile;
  /**
   * The notice the process's first turn carries after its `user_input`: `resumed` (a DONE `system_message`,
   * `--conversation` of a known conversation), `fallback` (a DONE `unknown`: agy 1.1.9 fell back from an
   * unknown conversation or agent), or none.
   */
  notice: 'resumed' | 'fallback' | undefined;
  /**
   * Endpoint mode (`modelProvider: "gemini"` with `GOOGLE_GEMINI_BASE_URL`): turns the scenario does not script
   * take their model calls from the endpoint instead of the default script.
   */
  endpoint?: ModelEndpointSession | undefined;
}

/** The stderr line of agy 1.2.17+'s print timeout (agy-real/joiomi-playbook-plugin-agy-1.2.17/print-timeout.stderr). */
export function printTimeoutMarker(ms: number): string {
  return `[agy] print timeout after ${formatGoDuration(ms > 0 ? ms : 5 * 60_000)} with turn in progress; returning partial output`;
}

/** agy's quota message (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr). */
export const QUOTA_MESSAGE =
  'Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.';

/** 1.1.x's print-timeout error (agy-real/jdiazromeral-agy-plugin-cc/error_result-2026-08-02-run1.ndjson). */
const PRINT_TIMEOUT_ERROR = 'timeout waiting for response';

/** Plays turns one at a time. */
export class TurnRunner {
  #current: AbortController | undefined;
  #noticeWritten = false;
  /** The running turn's scripted end (a timer-fired print timeout honours its `printTimeout` option). */
  #currentEnd: ScenarioTurnEnd | undefined;

  readonly #opts: TurnRunnerOptions;

  constructor(opts: TurnRunnerOptions) {
    this.#opts = opts;
  }

  /**
   * Delivers SIGINT. Returns true when a turn is running and will end as interrupted; false when the process
   * is idle (or already ending a turn), in which case the caller exits with 130.
   */
  interrupt(): boolean {
    const controller = this.#current;
    if (controller === undefined || controller.signal.aborted) return false;
    controller.abort('interrupt' satisfies AbortReason);
    return true;
  }

  /** Runs one turn for `prompt`. Returns once its `result` is written (or never, if the turn exits). */
  async run(prompt: string): Promise<void> {
    const { conv } = this.#opts;
    const controller = new AbortController();
    this.#current = controller;
    const timeoutMs = this.#opts.printTimeoutMs;
    // Past setTimeout's limit a print timeout is as good as none.
    const timer =
      timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS
        ? setTimeout(() => controller.abort('printTimeout' satisfies AbortReason), timeoutMs)
        : undefined;
    const started = performance.now();
    conv.state.numTurns++;
    const fromEndpoint = this.#opts.endpoint !== undefined && !this.#scriptedTurnLeft();
    const turn = fromEndpoint ? { actions: [] } : this.#pickTurn(prompt);
    this.#currentEnd = turn.end;
    conv.save();
    const ctx = this.#newContext(prompt, controller.signal);
    const end = turn.end ?? {};
    try {
      await this.#play(ctx, turn, fromEndpoint);
      clearTimeout(timer);
      await this.#finish(ctx, end, started);
    } catch (err) {
      const failed = failedEnd(err, end);
      if (failed !== undefined) {
        clearTimeout(timer);
        await this.#finish(ctx, failed, started);
      } else if (err instanceof TurnAborted) {
        await this.#aborted(ctx, err.reason, started);
      } else {
        throw err;
      }
    } finally {
      clearTimeout(timer);
      this.#current = undefined;
    }
    // A SIGINT that landed while the result was being written finds the process idle, as it would in agy.
    if (controller.signal.aborted && controller.signal.reason === 'interrupt') await this.#opts.exit(130);
  }

  /** A new turn's context: nothing said, denied or counted yet. */
  #newContext(prompt: string, signal: AbortSignal): TurnContext {
    const { conv, emitter } = this.#opts;
    return {
      conv,
      emitter,
      signal,
      prompt,
      exit: this.#opts.exit,
      lastText: '',
      turnText: '',
      denied: [],
      runtime: this.#opts.runtime,
      invocations: 0,
      initialNumSteps: 0,
      injected: [],
      lastTool: undefined,
      profile: this.#opts.profile,
      modelSteps: 0,
      checkpointed: false,
    };
  }

  /**
   * The turn up to its `result`: the `user_input` step, the first turn's notice, the actions (or the endpoint's
   * model calls), the Stop hooks and 1.1.x's first-turn `checkpoint`.
   */
  async #play(ctx: TurnContext, turn: ScenarioTurn, fromEndpoint: boolean): Promise<void> {
    const { conv, emitter } = this.#opts;
    const end = turn.end ?? {};
    await emitter.line(stepEnvelope(conv.id, conv.nextStep(), { state: 'DONE', step_type: 'user_input' }));
    if (!this.#noticeWritten) {
      this.#noticeWritten = true;
      if (this.#opts.notice === 'resumed') await systemMessage(ctx, 'Conversation resumed');
      if (this.#opts.notice === 'fallback') await unknownStep(ctx);
    }
    ctx.initialNumSteps = conv.state.nextStepIndex;
    for (const action of turn.actions) {
      await runAction(ctx, action);
      // Headless agy stops the turn at a soft denial (both captured denials end right there).
      if (ctx.denied.length > 0) break;
    }
    if (fromEndpoint) await this.#opts.endpoint?.runTurn(ctx);
    if (!runsStopHooks(end)) return;
    await this.#stop(ctx);
    if (ctx.profile.checkpoints && conv.state.numTurns === 1 && ctx.modelSteps > 0 && !ctx.checkpointed) {
      await checkpoint(ctx, true);
    }
  }

  /** Whether the scenario still scripts a turn (or ends the run with errors once out of turns). */
  #scriptedTurnLeft(): boolean {
    const { scenario, conv } = this.#opts;
    return conv.state.turnCursor < (scenario?.turns ?? []).length || scenario?.afterTurns === 'error';
  }

  /** The scripted turn for this prompt, consuming it; the default script once the scenario has none left. */
  #pickTurn(prompt: string): ScenarioTurn {
    const { scenario, conv } = this.#opts;
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
    return defaultTurn(prompt, this.#opts.workspace, this.#opts.runtime);
  }

  /**
   * Runs the Stop hooks; each `{"decision":"continue","reason":R}` adds a model call answering
   * `Continuing: R`, then Stop runs again, up to {@link MAX_STOP_CONTINUATIONS} continuations.
   */
  async #stop(ctx: TurnContext): Promise<void> {
    for (let continuations = 0; ; continuations++) {
      const reason = await stopHooks(ctx);
      if (reason === undefined || continuations >= MAX_STOP_CONTINUATIONS) return;
      await runAction(ctx, { text: `Continuing: ${reason}`, chunks: 1 });
    }
  }

  /** Adds the turn's wall time to the conversation total and returns the new total. */
  #closeDuration(started: number): number {
    const state = this.#opts.conv.state;
    state.durationSeconds += (performance.now() - started) / 1000;
    this.#opts.conv.save();
    return state.durationSeconds;
  }

  #baseResult(ctx: TurnContext, durationSeconds: number): ResultFields {
    const state = this.#opts.conv.state;
    return {
      conversationId: this.#opts.conv.id,
      status: 'SUCCESS',
      response: ctx.lastText,
      durationSeconds,
      numTurns: state.numTurns,
      usage: { ...state.usage },
    };
  }

  async #finish(ctx: TurnContext, end: ScenarioTurnEnd, started: number): Promise<void> {
    const { emitter, exit } = this.#opts;
    const duration = this.#closeDuration(started);
    if (end.noResult) await exit(end.exitAfter ?? 0);
    if (end.printTimeout) {
      await this.#printTimeout(ctx, duration, end.printTimeout === true ? {} : end.printTimeout);
    }
    const result = this.#baseResult(ctx, duration);
    if (end.quota) {
      // agy 1.2.17: the failed API calls as error_message steps, then the stderr lines, then the result
      // keeping the tokens spent so far; the wording, not the 429, says "quota".
      await errorMessages(ctx, end.quota === true ? 1 : (end.quota.retries ?? 1));
      const message = end.error ?? QUOTA_MESSAGE;
      await emitter.stderr(`error: ${message}`);
      await emitter.stderr(
        `AGY_ERROR: ${JSON.stringify({
          short_error: `RESOURCE_EXHAUSTED (code 429): ${message}`,
          status: 'RESOURCE_EXHAUSTED',
          error_code: 429,
          code_kind: 'http',
          retryable: true,
          error_id: `${randomUUID()}-${this.#opts.conv.state.nextStepIndex}`,
        })}`,
      );
      await emitter.line(
        resultEnvelope({
          ...this.#baseResult(ctx, duration),
          status: 'ERROR',
          response: end.response ?? '',
          error: message,
        }),
      );
      await exit(end.exitAfter ?? 3);
    }
    result.status = end.status ?? 'SUCCESS';
    result.error = end.error;
    // Headless agy soft-denies: the turn "succeeds" with an empty response and the denials listed.
    const said = ctx.profile.responseText === 'joined' && ctx.turnText !== '' ? ctx.turnText : ctx.lastText;
    result.response = end.response ?? (ctx.denied.length > 0 ? '' : said);
    result.deniedActions = ctx.denied;
    if (ctx.denied.length > 0 && ctx.profile.softDenialResult === 'canceled' && end.status === undefined) {
      result.status = 'CANCELED';
      result.deniedActions = undefined;
    }
    if (this.#opts.structured || end.forceStructured)
      result.structured = structuredOutput(end, result.response, this.#opts.jsonSchema);
    if (this.#opts.jsonSchema !== undefined && !olderThan(ctx.profile.version, '1.3.0')) {
      result.jsonSchema = this.#opts.jsonSchema;
      // 1.3.1 ends a --json-schema turn with the `finish` pair: ACTIVE as tool `finish` with the value, then DONE
      // as step_type `finish` with no tool_info (agy-real/littlebearapps-untether-agy-1.3.1/json_schema_finish.script).
      if (result.status === 'SUCCESS' && result.structured !== undefined) {
        const index = nextIndex(ctx);
        await step(ctx, index, {
          state: 'ACTIVE',
          step_type: 'tool',
          tool_name: 'finish',
          tool_info: { name: 'finish', parameters: result.structured.value },
        });
        await step(ctx, index, { state: 'DONE', step_type: 'finish', duration_seconds: 0.027 });
      }
    }
    const firstDenied = ctx.denied[0];
    if (firstDenied !== undefined && result.response === '') {
      // agy's own line (agy-real/littlebearapps-untether-agy-1.3.1/tools_denied.script): it names the permission.
      await emitter.stderr(
        `jetski: no output produced — a tool required the "${firstDenied.action}" permission that headless mode cannot prompt for, so it was auto-denied. Add an allow-rule under permissions.allow in settings.json (e.g. ${firstDenied.action}(<target>)). Alternatively, re-run with --dangerously-skip-permissions to auto-approve all tools.`,
      );
    }
    await emitter.line(resultEnvelope(result));
    if (end.exitAfter !== undefined) await exit(end.exitAfter);
  }

  /**
   * The print timeout in the imitated build's shape. 1.2.17+: SUCCESS, empty response, all-zero usage, exit 0,
   * the stderr line before or after the result or absent. 1.1.x: ERROR "timeout waiting for response",
   * all-zero usage, exit 1.
   */
  async #printTimeout(
    ctx: TurnContext,
    duration: number,
    option: { stderr?: 'before' | 'after' | 'none' },
  ): Promise<never> {
    const { emitter, exit, printTimeoutMs } = this.#opts;
    const base = { ...this.#baseResult(ctx, duration), response: '', usage: zeroUsage() };
    if (ctx.profile.printTimeout === 'error') {
      await emitter.line(resultEnvelope({ ...base, status: 'ERROR', error: PRINT_TIMEOUT_ERROR }));
      return exit(1);
    }
    const where = option.stderr ?? 'after';
    if (where === 'before') await emitter.stderr(printTimeoutMarker(printTimeoutMs));
    await emitter.line(resultEnvelope({ ...base, durationSeconds: 0 }));
    // Let the result reach the reader first, so "after" really is after on the wire.
    await emitter.flush();
    if (where === 'after') await emitter.stderr(printTimeoutMarker(printTimeoutMs));
    return exit(0);
  }

  async #aborted(ctx: TurnContext, reason: AbortReason, started: number): Promise<never> {
    const { emitter, exit, scenario } = this.#opts;
    const duration = this.#closeDuration(started);
    if (reason === 'printTimeout') {
      const option = this.#currentEnd?.printTimeout;
      return this.#printTimeout(ctx, duration, typeof option === 'object' ? option : {});
    }
    // 1.3.x: ERROR "interrupted", then stderr `error: interrupted`, exit 1, for SIGINT and SIGTERM alike
    // (agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script, interrupted_sigterm.script); 1.1.x:
    // ERROR "context canceled" (docs/reference/stream-json.md#interrupt-answers). A scenario may still ask for the
    // reference's INTERRUPTED.
    const words = ctx.profile.interrupt === 'canceled' ? 'context canceled' : 'interrupted';
    const status = scenario?.interrupt?.status ?? 'ERROR';
    const result = this.#baseResult(ctx, duration);
    result.status = status;
    if (status === 'ERROR') result.error = words;
    result.deniedActions = ctx.denied;
    await emitter.line(resultEnvelope(result));
    await emitter.flush();
    await emitter.stderr(`error: ${words}`);
    return exit(scenario?.interrupt?.exitCode ?? 1);
  }
}

/**
 * The scenario's structured output, else the response parsed as JSON, else a value generated from the schema
 * (so the default script answers a schema), else nothing.
 */
function structuredOutput(
  end: ScenarioTurnEnd,
  response: string,
  schema: object | undefined,
): { value: unknown } | undefined {
  if (end.structuredOutput !== undefined) return { value: end.structuredOutput };
  try {
    return { value: JSON.parse(response) };
  } catch {
    return schema === undefined ? undefined : { value: valueFromSchema(schema) };
  }
}

/** Stop hooks run when a turn ends normally: not on a quota error, print timeout, cut stream or error status. */
function runsStopHooks(end: ScenarioTurnEnd): boolean {
  return !end.quota && !end.printTimeout && !end.noResult && (end.status ?? 'SUCCESS') === 'SUCCESS';
}

/**
 * The end a turn gets from a failure that ends it with an ERROR `result`: a failed model call (the scenario's
 * `error` wins, its `exitAfter` stays) or an unmet expectation; `undefined` for any other error.
 */
function failedEnd(err: unknown, end: ScenarioTurnEnd): ScenarioTurnEnd | undefined {
  if (err instanceof ModelCallFailed) {
    const failed: ScenarioTurnEnd = {
      status: 'ERROR',
      error: end.error ?? (err.message || MODEL_ERROR_MESSAGE),
      response: '',
    };
    if (end.exitAfter !== undefined) failed.exitAfter = end.exitAfter;
    return failed;
  }
  if (err instanceof ExpectationFailed) return { status: 'ERROR', error: err.message, response: '' };
  return undefined;
}
