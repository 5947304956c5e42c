/**
 * One running turn on the ACP backend: its steps (the agent's updates through `AcpTurnSteps`), the stop it was
 * asked for or the watchdog's timeout, and how it ends: the prompt's answer, a JSON-RPC error, the agent's exit,
 * or giving up on an agent that ignored `session/cancel` — each a fail-closed `TurnResult`.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { ProcessExitError, type WatchdogTimeoutError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Step, ToolCall, Usage, WireObject } from '../../model/step.js';
import type { TurnResult, TurnStatus } from '../../model/turn-result.js';
import type { AcpPromptResponse, AcpSessionNotification } from '../../protocol/acp.js';
import type { TurnSink } from '../connection.js';
import type { ExitInfo } from '../process/child-process.js';
import type { AcpAgent } from './acp-process.js';
import { type AcpTurnSteps, classifyRequestError, classifyStop, usageFromMeta, wire } from './normalize.js';
import { errorMessage } from './rpc-errors.js';

/** How the wait for `session/prompt` ended. */
export type TurnOutcome =
  | { kind: 'result'; value: AcpPromptResponse }
  | { kind: 'error'; error: unknown }
  | { kind: 'exit'; exit: ExitInfo }
  | { kind: 'abandoned' };

/** What a turn's result needs from the connection, read when the result is built. */
export interface TurnResultContext {
  /** The session id. */
  conversationId(): string | undefined;
  /** The running agent's recent stderr, or ''. */
  stderrTail(): string;
  /** Adds the turn's usage to the connection's total; the total so far (a copy), or null. */
  addUsage(usage: Usage | null): Usage | null;
  /** The agent exited during the turn: the next turn starts a fresh process. */
  agentExited(): void;
}

/** A verdict on the turn: its status, why, and the SDK error behind it. */
export interface TurnVerdict {
  /** The turn's status. */
  status: TurnStatus;
  /** Why (the result's `errorMessage` unless it succeeded). */
  message: string;
  /** The SDK error behind a failed turn, if any. */
  error?: TurnResult['error'];
}

/** One running turn. */
export class AcpTurn {
  /** Replaced once the agent runs (the session id and step index are known only then). */
  steps: AcpTurnSteps;
  /** Where the steps go. */
  readonly sink: TurnSink;
  /** When the turn began (ms). */
  readonly started = Date.now();
  /** Permission requests answered with a denial. */
  denials = 0;
  /** An interrupt or cancel the host asked for. */
  stopAsked: 'interrupted' | 'canceled' | undefined;
  /** The watchdog fired. */
  timeout: WatchdogTimeoutError | undefined;
  /** What the agent last did, for the watchdog's error. */
  lastEvent: string | undefined;
  /** Tool calls whose end was reported to the host. */
  readonly endedCalls = new Set<string>();
  /** Ends the wait for the prompt without its answer (process killed after a cancel or the watchdog). */
  readonly abandon: () => void;
  /** Resolves on `abandon()`. */
  readonly abandoned: Promise<void>;
  /** Resolves when `runTurn` has returned. */
  readonly ended: Promise<void>;
  /** Resolves `ended`. */
  readonly end: () => void;
  readonly #logger: Logger;

  constructor(steps: AcpTurnSteps, sink: TurnSink, logger: Logger) {
    this.steps = steps;
    this.sink = sink;
    this.#logger = logger;
    let abandon!: () => void;
    this.abandoned = new Promise<void>((resolve) => {
      abandon = resolve;
    });
    this.abandon = abandon;
    let end!: () => void;
    this.ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.end = end;
  }

  /** Delivers a step; a throwing consumer loses the step, never the turn. */
  emit(step: Step): void {
    try {
      this.sink.onStep(step);
    } catch (err) {
      this.#logger.error('a step consumer threw; the step was dropped', err);
    }
  }

  /** A `session/update` of this turn: its steps go out, and each tool call that ended is reported once. */
  update(update: AcpSessionNotification['update'], toolEnded: (call: ToolCall) => void): void {
    this.lastEvent = update.sessionUpdate;
    for (const step of this.steps.update(update)) {
      this.emit(step);
      const call = step.tool;
      if (call && (call.state === 'DONE' || call.state === 'ERROR') && !this.endedCalls.has(call.id)) {
        this.endedCalls.add(call.id);
        toolEnded(call);
      }
    }
  }

  /** The turn's result from how the wait for the prompt ended (the watchdog's timeout first). */
  finish(ctx: TurnResultContext, agent: AcpAgent, outcome: TurnOutcome): TurnResult {
    if (this.timeout) {
      this.#flush(null, {});
      return this.result(
        ctx,
        { status: 'timeout', message: this.timeout.message, error: this.timeout },
        null,
      );
    }
    switch (outcome.kind) {
      case 'result': {
        const usage = usageFromMeta(outcome.value._meta);
        this.#flush(usage, wire(outcome.value));
        const verdict = classifyStop(outcome.value.stopReason, {
          text: this.steps.text,
          denials: this.denials,
          stopAsked: this.stopAsked,
          completedTools: this.steps.toolCalls.filter((c) => c.state === 'DONE').length,
        });
        return this.result(
          ctx,
          { status: verdict.status, message: verdict.message },
          wire(outcome.value),
          usage,
        );
      }
      case 'error': {
        this.#flush(null, {});
        if (this.stopAsked)
          return this.result(
            ctx,
            { status: this.stopAsked, message: `the turn was ${this.stopAsked}` },
            null,
          );
        const code = outcome.error instanceof RequestError ? outcome.error.code : undefined;
        const message = errorMessage(outcome.error);
        const verdict = classifyRequestError(code, message);
        return this.result(
          ctx,
          { status: verdict.status, message: `the ACP agent answered the prompt with an error: ${message}` },
          null,
        );
      }
      case 'exit': {
        this.#flush(null, {});
        const { code, signal } = outcome.exit;
        const error = new ProcessExitError(
          `the ACP agent exited during the turn (code ${code}, signal ${signal})`,
          {
            exitCode: code,
            signal,
            stderrTail: agent.process.stderrTail,
          },
        );
        // The session survives only on disk: the next turn starts a fresh process and loads it, where it can.
        ctx.agentExited();
        const status: TurnStatus = this.stopAsked ?? 'error';
        return this.result(ctx, { status, message: error.message, error }, null, undefined, outcome.exit);
      }
      case 'abandoned': {
        this.#flush(null, {});
        const status: TurnStatus = this.stopAsked ?? 'error';
        return this.result(
          ctx,
          {
            status,
            message: `the turn was ${status}; the agent did not answer the cancel in time and was stopped`,
          },
          null,
        );
      }
    }
  }

  /** The `TurnResult` for a verdict (also for a turn that never reached the agent). */
  result(
    ctx: TurnResultContext,
    v: TurnVerdict,
    raw: WireObject | null,
    usage: Usage | null = null,
    exit?: ExitInfo,
  ): TurnResult {
    const total = ctx.addUsage(usage);
    return {
      status: v.status,
      text: this.steps.text,
      usage,
      totalUsage: total,
      deniedActions: [],
      toolCalls: this.steps.toolCalls,
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      stderrTail: ctx.stderrTail(),
      result: raw,
      structuredOutput: undefined,
      conversationId: ctx.conversationId(),
      durationMs: Date.now() - this.started,
      notices: [],
      errorMessage: v.status === 'success' ? '' : v.message,
      ...(v.error !== undefined && { error: v.error }),
    };
  }

  /** Delivers the turn's last steps (the open model step closes, with the usage). */
  #flush(usage: Usage | null, raw: WireObject): void {
    for (const step of this.steps.finish(usage, raw)) this.emit(step);
  }
}
