/**
 * Layer 2: a conversation over a `Connection`. Queues turns (one runs at a time, the rest wait in order),
 * keeps a bounded step history, and tracks usage per turn and for the whole conversation.
 */
import type { Connection, TurnRequest } from '../connection/connection.js';
import { ClosedError } from '../errors.js';
import { ChatResponse } from './chat-response.js';
import type { Step, Usage } from './step.js';
import type { TurnResult } from './turn-result.js';

/** Default number of steps kept in `history` (as in the Python SDK). */
export const DEFAULT_HISTORY_LIMIT = 10_000;

/** @internal Hooks the Agent plugs into the turn pipeline. */
export interface ConversationPipeline<P> {
  /** Turns a prompt into what the connection sends (runs when the turn's time comes, in queue order). */
  prepare(prompt: P): Promise<TurnRequest>;
  /** Post-processes a finished turn (structured output validation, post-turn hooks). */
  finalize?(result: TurnResult): Promise<TurnResult> | TurnResult;
}

export interface ConversationOptions<P> {
  connection: Connection;
  pipeline: ConversationPipeline<P>;
  /** Steps kept in `history`; older ones are dropped. Default 10,000. */
  historyLimit?: number | undefined;
}

export class Conversation<P = unknown> {
  readonly #connection: Connection;
  readonly #pipeline: ConversationPipeline<P>;
  readonly #historyLimit: number;
  #history: Step[] = [];
  #tail: Promise<void> = Promise.resolve();
  #turnCount = 0;
  #totalUsage: Usage | null = null;
  #lastTurnUsage: Usage | null = null;
  #lastResult: TurnResult | undefined;
  #closed = false;
  #running: { response: ChatResponse; cancel: () => Promise<void> } | undefined;

  /** @internal Created by the Agent. */
  constructor(opts: ConversationOptions<P>) {
    this.#connection = opts.connection;
    this.#pipeline = opts.pipeline;
    this.#historyLimit = Math.max(1, opts.historyLimit ?? DEFAULT_HISTORY_LIMIT);
  }

  /** The conversation id agy assigned (or the one resumed). */
  get conversationId(): string | undefined {
    return this.#connection.conversationId;
  }

  /** Steps of all turns, oldest first, at most `historyLimit` of them. */
  get history(): readonly Step[] {
    const h = this.#history;
    return h.length > this.#historyLimit ? h.slice(-this.#historyLimit) : h;
  }

  /** Number of turns sent (including ones that failed). */
  get turnCount(): number {
    return this.#turnCount;
  }

  /**
   * Cumulative usage of the whole conversation, as agy reports it on each `result` (it includes turns run by
   * earlier processes of the same conversation). `null` until known.
   */
  get totalUsage(): Usage | null {
    return this.#totalUsage;
  }

  /** Usage of the last finished turn (the sum of its model steps); `null` when unknown. */
  get lastTurnUsage(): Usage | null {
    return this.#lastTurnUsage;
  }

  /** The last finished turn's result. */
  get lastResult(): TurnResult | undefined {
    return this.#lastResult;
  }

  /** True when no turn is running or queued. */
  get isIdle(): boolean {
    return this.#running === undefined && this.#connection.isIdle;
  }

  /** Drops the step history to free memory; the conversation itself goes on. */
  clearHistory(): void {
    this.#history = [];
  }

  /**
   * Queues a turn and returns its response at once. Turns run one at a time, in call order: a `chat` sent
   * while a turn runs starts when that turn (and any queued before it) has ended.
   */
  chat(prompt: P): ChatResponse {
    if (this.#closed) throw new ClosedError();
    let canceled = false;
    const response = new ChatResponse({
      cancel: async () => {
        canceled = true;
        if (this.#running?.response === response) await this.#running.cancel();
      },
    });
    const run = async (): Promise<void> => {
      if (canceled || this.#closed) {
        response.finish(
          canceledResult(
            this.conversationId,
            this.#closed ? 'the agent was closed' : 'canceled before it ran',
          ),
        );
        return;
      }
      this.#turnCount++;
      let request: TurnRequest;
      try {
        request = await this.#pipeline.prepare(prompt);
      } catch (err) {
        response.finish(failedResult(this.conversationId, err));
        return;
      }
      this.#running = { response, cancel: () => this.#connection.interrupt('canceled') };
      let result: TurnResult;
      try {
        result = await this.#connection.runTurn(request, {
          onStep: (step) => {
            this.#pushHistory(step);
            response.pushStep(step);
          },
        });
        if (canceled && result.status !== 'success') result = { ...result, status: 'canceled' };
        if (this.#pipeline.finalize) result = await this.#pipeline.finalize(result);
      } catch (err) {
        result = failedResult(this.conversationId, err);
      } finally {
        this.#running = undefined;
      }
      this.#lastResult = result;
      this.#lastTurnUsage = result.usage;
      if (result.totalUsage) this.#totalUsage = result.totalUsage;
      response.finish(result);
    };
    this.#tail = this.#tail.then(run, run);
    return response;
  }

  /** Runs `fn` when every queued turn has ended (used for model switches). */
  whenIdle<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn, fn);
    this.#tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** Interrupts the running turn, if any (it ends `interrupted`); queued turns still run. */
  async interrupt(): Promise<void> {
    if (this.#running) await this.#connection.interrupt('interrupted');
  }

  /** @internal Marks the conversation closed; queued turns end `canceled`. */
  markClosed(): void {
    this.#closed = true;
  }

  #pushHistory(step: Step): void {
    this.#history.push(step);
    // Trim in batches so a long conversation does not pay an O(n) shift per step.
    if (this.#history.length > this.#historyLimit + Math.ceil(this.#historyLimit / 10)) {
      this.#history.splice(0, this.#history.length - this.#historyLimit);
    }
  }
}

function baseResult(conversationId: string | undefined): Omit<TurnResult, 'status' | 'errorMessage'> {
  return {
    text: '',
    usage: null,
    totalUsage: null,
    deniedActions: [],
    toolCalls: [],
    exitCode: null,
    signal: null,
    stderrTail: '',
    result: null,
    structuredOutput: undefined,
    conversationId,
    durationMs: 0,
  };
}

function canceledResult(conversationId: string | undefined, why: string): TurnResult {
  return { ...baseResult(conversationId), status: 'canceled', errorMessage: why };
}

function failedResult(conversationId: string | undefined, err: unknown): TurnResult {
  const result: TurnResult = {
    ...baseResult(conversationId),
    status: 'error',
    errorMessage: err instanceof Error ? err.message : String(err),
  };
  if (err instanceof Error && 'code' in err) result.error = err as TurnResult['error'] & Error;
  return result;
}
