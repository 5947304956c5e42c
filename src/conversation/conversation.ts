/**
 * Layer 2: a conversation over a `Connection`. Queues turns (one runs at a time, the rest wait in order),
 * keeps a bounded step history, and tracks usage per turn and for the whole conversation.
 */
import type { Connection, TurnRequest } from '../connection/connection.js';
import type { ContentPart } from '../content/content.js';
import { type AgySdkError, ClosedError, TurnDeniedError } from '../errors.js';
import { describeDenials } from '../model/denials.js';
import { addPriced, cacheWritesOf } from '../model/pricing.js';
import type { Step, Usage } from '../model/step.js';
import { TurnError } from '../model/turn-errors.js';
import type { BudgetName, DeniedAction, TurnResult, TurnStatus } from '../model/turn-result.js';
import type { TurnObserver } from '../telemetry/turn-observer.js';
import { ChatResponse } from './chat-response.js';
import { StepSubscriber } from './step-subscriber.js';
import type { TurnInput } from './turn-input.js';

/** Default number of steps kept in `history` (as in the Python SDK). */
export const DEFAULT_HISTORY_LIMIT = 10_000;

/** @internal A reason the pipeline asks to stop the running turn (e.g. a budget). */
export interface TurnStop {
  status: Extract<TurnStatus, 'budget_exceeded'>;
  message: string;
  error: AgySdkError;
  budget?: BudgetName;
}

/** @internal Hooks the Agent plugs into the turn pipeline; each gets the turn's own input. */
export interface ConversationPipeline {
  /**
   * Turns a turn's input into what the connection sends (runs when the turn's time comes, in queue order).
   * Throwing `TurnDeniedError` ends the turn `denied` without sending anything.
   */
  prepare(input: TurnInput): Promise<TurnRequest>;
  /** Sees each step of the running turn; returning a `TurnStop` interrupts the turn with that outcome. */
  onStep?(step: Step): TurnStop | undefined;
  /** Post-processes a finished turn (structured output validation against the turn's schema, post-turn hooks). */
  finalize?(result: TurnResult, input: TurnInput): Promise<TurnResult> | TurnResult;
}

/** @internal */
export interface ConversationOptions<P> {
  connection: Connection;
  pipeline: ConversationPipeline;
  /** Parses a prompt given to the conversation directly (`chat`, `send`) into its parts; throws on a bad one. */
  parse: (prompt: P) => readonly ContentPart[];
  /** Steps kept in `history`; older ones are dropped. Default 10,000; `0` keeps every step (Python's `0`). */
  historyLimit?: number | undefined;
  /** Sees each turn start, its prompt, its steps and its result (telemetry); never throws. */
  observer?: TurnObserver | undefined;
}

/** The `usageByModel` key of turns whose model is unknown (agy's unnamed default model). */
export const UNKNOWN_MODEL = 'default';

/** A prompt given to the conversation directly that did not parse: its turn fails when its time comes, in order. */
interface InvalidInput {
  invalid: unknown;
}

interface TurnItem {
  kind: 'turn';
  input: TurnInput | InvalidInput;
  /** Called once the prompt was handed to the backend (`send()` waits for it). */
  onSent?: (() => void) | undefined;
  response: ChatResponse;
  canceled: boolean;
}
type QueueItem = TurnItem | { kind: 'task'; run: () => Promise<void> };
interface RunningTurn {
  item: TurnItem;
  /** Set when the pipeline stopped the turn (e.g. a budget); it decides the outcome. */
  stop: TurnStop | undefined;
  /** `interrupt()` was called; before the message is sent this means it is never sent. */
  interrupted: boolean;
}

/**
 * A conversation over a `Connection`: turns run one at a time in call order, with a bounded step history and
 * usage per turn and in total. Created by the Agent only (`agent.conversation`).
 */
export class Conversation<P = unknown> {
  readonly #connection: Connection;
  readonly #pipeline: ConversationPipeline;
  readonly #parse: (prompt: P) => readonly ContentPart[];
  readonly #historyLimit: number;
  #history: Step[] = [];
  readonly #queue: QueueItem[] = [];
  #pumping = false;
  /** A queued task (`whenIdle`) is running; a turn counts as running through `#running`. */
  #runningTask = false;
  #turnCount = 0;
  #totalUsage: Usage | null = null;
  #lastTurnUsage: Usage | null = null;
  #lastResult: TurnResult | undefined;
  #closed = false;
  #running: RunningTurn | undefined;
  readonly #observer: TurnObserver | undefined;
  // Null-prototype records: keys are model and conversation ids, which must never reach Object.prototype.
  readonly #usageByModel: Record<string, Usage> = Object.create(null);
  readonly #subagentUsage: Record<string, Usage> = Object.create(null);
  /** The open `steps()` iterators: each step of every turn is pushed to each. */
  readonly #stepSubscribers = new Set<StepSubscriber>();
  /** Where compaction steps arrived, counted over every step since the last `clearHistory()`. */
  #compactionIndices: number[] = [];
  /** Steps pushed since the last `clearHistory()` (the index space of `#compactionIndices`). */
  #stepCount = 0;

  // Private: the Agent creates the conversation (the declarations show `private constructor()`).
  private constructor(opts: ConversationOptions<P>) {
    this.#connection = opts.connection;
    this.#pipeline = opts.pipeline;
    this.#parse = opts.parse;
    const limit = opts.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    this.#historyLimit = limit === 0 ? Number.POSITIVE_INFINITY : Math.max(1, limit);
    this.#observer = opts.observer;
  }

  /** @internal Created by the Agent. */
  static create<P>(opts: ConversationOptions<P>): Conversation<P> {
    return new Conversation(opts);
  }

  /** The conversation id agy assigned (or the one resumed). */
  get conversationId(): string | undefined {
    return this.#connection.conversationId;
  }

  /** Steps of all turns, oldest first, at most `historyLimit` of them: a copy, never the conversation's own list. */
  get history(): readonly Step[] {
    return this.#history.slice(-this.#historyLimit);
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
    return copyUsage(this.#totalUsage);
  }

  /**
   * Usage of this agent's turns so far, by the model each ran on (`TurnResult.model`; `'default'` when agy did
   * not name it), each the sum of those turns' `usage` with its `costUsd` (`null` once any part is unpriced).
   * Subagents' usage is apart, in `subagentUsage`. Counts turns run by this agent only, unlike `totalUsage`.
   */
  get usageByModel(): Readonly<Record<string, Usage>> {
    return copyUsages(this.#usageByModel);
  }

  /** Usage of each subagent over this agent's turns, by the subagent's conversation id (priced like turns). */
  get subagentUsage(): Readonly<Record<string, Usage>> {
    return copyUsages(this.#subagentUsage);
  }

  /** Usage of the last finished turn (the sum of its model steps); `null` when unknown, or after `clearHistory()`. */
  get lastTurnUsage(): Usage | null {
    return copyUsage(this.#lastTurnUsage);
  }

  /** The last finished turn's result; `undefined` before the first, and after `clearHistory()`. */
  get lastResult(): TurnResult | undefined {
    return this.#lastResult;
  }

  /** True when no turn is running or queued (so at once when the last turn's result resolves). */
  get isIdle(): boolean {
    return this.#running === undefined && this.#queue.length === 0 && !this.#runningTask;
  }

  /** True while a turn runs. */
  get isRunning(): boolean {
    return this.#running !== undefined;
  }

  /**
   * Where the context was compacted (Python `compaction_indices`): the `history` indices of its `compaction`
   * steps, shifted as the history is trimmed (a trimmed one is gone), emptied by `clearHistory()`; a copy. Empty
   * on agy, which streams no compaction step (docs/backends.md, "Not on agy").
   */
  get compactionIndices(): readonly number[] {
    const first = this.#stepCount - Math.min(this.#history.length, this.#historyLimit);
    return this.#compactionIndices.filter((i) => i >= first).map((i) => i - first);
  }

  /**
   * Sends a prompt without a response object (Python `send`): queued like `chat`, and resolves once the prompt
   * has been handed to the backend. Rejects with a `TurnError` when the turn ended before it was sent (denied by
   * a preTurn hook, canceled, the conversation closed). Read what follows with {@link Conversation.steps}.
   */
  send(prompt: P, opts: { turnTimeoutMs?: number | undefined } = {}): Promise<void> {
    let onSent!: () => void;
    const sent = new Promise<void>((resolve) => {
      onSent = resolve;
    });
    const response = this.#enqueue(this.#inputOf(prompt, opts.turnTimeoutMs), { onSent });
    // A sent turn resolves `sent` before it can end; one that ends unsent rejects with its result.
    return Promise.race([
      sent,
      response.result().then((result) => {
        throw new TurnError(result);
      }),
    ]);
  }

  /**
   * Every step of every turn from now on (Python `receive_steps`), trigger-started and steered turns included,
   * independent of any `ChatResponse` cursor. Ends when the conversation closes, or when the loop is left.
   * Steps wait for the reader in a queue bounded by `historyLimit` (the oldest are dropped past it). The
   * subscription starts at the call; leaving the loop (or calling `return()`) ends it before close.
   */
  steps(): AsyncIterableIterator<Step> {
    const subscriber = new StepSubscriber(this.#historyLimit, () => this.#stepSubscribers.delete(subscriber));
    if (this.#closed) subscriber.end();
    else this.#stepSubscribers.add(subscriber);
    return subscriber;
  }

  /**
   * Drops the step history to free memory (Python `clear_history`): the steps, the turn count, the compaction
   * indices, the last result and the last turn's usage. The conversation itself goes on, and its usage totals
   * (`totalUsage`, `usageByModel`, `subagentUsage`) stay: they count what was spent, not what is remembered.
   */
  clearHistory(): void {
    this.#history = [];
    this.#turnCount = 0;
    this.#compactionIndices = [];
    this.#stepCount = 0;
    this.#lastResult = undefined;
    this.#lastTurnUsage = null;
  }

  /**
   * Queues a turn and returns its response at once. Turns run one at a time, in call order: a `chat` sent
   * while a turn runs starts when that turn (and any queued before it) has ended. With `{ first: true }` the
   * turn jumps the queue (used by `steer(..., { when: 'now' })`).
   */
  chat(prompt: P, opts: { first?: boolean; turnTimeoutMs?: number | undefined } = {}): ChatResponse {
    return this.#enqueue(this.#inputOf(prompt, opts.turnTimeoutMs), opts);
  }

  /**
   * @internal Queues a turn whose input was built and checked already (`Agent.chat`): its parts, its own schema,
   * time limit and abort signal travel with it to every stage.
   */
  queueTurn(input: TurnInput, opts: { first?: boolean } = {}): ChatResponse {
    return this.#enqueue(input, opts);
  }

  /** The input of a prompt given to the conversation directly; one that does not parse fails its turn later. */
  #inputOf(prompt: P, timeoutMs: number | undefined): TurnInput | InvalidInput {
    try {
      return { parts: this.#parse(prompt), timeoutMs };
    } catch (err) {
      return { invalid: err };
    }
  }

  #enqueue(input: TurnInput | InvalidInput, opts: { first?: boolean; onSent?: () => void }): ChatResponse {
    if (this.#closed) throw new ClosedError();
    const item: TurnItem = {
      kind: 'turn',
      input,
      onSent: opts.onSent,
      canceled: false,
      response: ChatResponse.create({
        cancel: async () => {
          item.canceled = true;
          if (this.#running?.item === item) {
            await this.#connection.interrupt('canceled');
            return;
          }
          // Still queued: leave the queue now, rather than when the turns before it have ended.
          const index = this.#queue.indexOf(item);
          if (index === -1) return;
          this.#queue.splice(index, 1);
          item.response.finish(canceledResult(this.conversationId, 'canceled before it ran'));
        },
      }),
    };
    if (opts.first) this.#queue.unshift(item);
    else this.#queue.push(item);
    void this.#pump();
    // After the pump started: an already aborted signal cancels a turn that began, as one aborted later would.
    const signal = 'signal' in input ? input.signal : undefined;
    if (signal) cancelOnAbort(signal, item.response);
    return item.response;
  }

  /** Runs `fn` once every turn queued before it has ended (used for model switches). */
  whenIdle<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ kind: 'task', run: () => fn().then(resolve, reject) });
      void this.#pump();
    });
  }

  /** Interrupts the running turn, if any (it ends `interrupted`); queued turns still run. */
  async interrupt(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    running.interrupted = true;
    await this.#connection.interrupt('interrupted');
  }

  /** @internal Stops the running turn with a pipeline-chosen outcome (e.g. a budget). */
  async stopRunning(stop: TurnStop): Promise<void> {
    const running = this.#running;
    if (!running || running.stop) return;
    running.stop = stop;
    await this.#connection.interrupt('interrupted');
  }

  /** @internal Marks the conversation closed; queued turns end `canceled`. */
  markClosed(): void {
    this.#closed = true;
    for (const subscriber of this.#stepSubscribers) subscriber.end();
    this.#stepSubscribers.clear();
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (let item = this.#queue.shift(); item; item = this.#queue.shift()) {
        if (item.kind === 'task') {
          this.#runningTask = true;
          try {
            await item.run();
          } finally {
            this.#runningTask = false;
          }
        } else await this.#runTurn(item);
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #runTurn(item: TurnItem): Promise<void> {
    const { response } = item;
    if (item.canceled || this.#closed) {
      response.finish(
        canceledResult(this.conversationId, this.#closed ? 'the agent was closed' : 'canceled before it ran'),
      );
      return;
    }
    this.#turnCount++;
    // The turn counts as running from here, so a cancel or interrupt during `prepare` (hooks, file writes) is
    // honoured: the message is then never sent.
    const running: RunningTurn = { item, stop: undefined, interrupted: false };
    this.#running = running;
    const observer = this.#observer;
    observer?.turnStarted();
    let input: TurnInput;
    let request: TurnRequest;
    try {
      input = parsed(item.input);
      request = await this.#pipeline.prepare(input);
      if (input.timeoutMs !== undefined) request = { ...request, timeoutMs: input.timeoutMs };
    } catch (err) {
      this.#running = undefined;
      this.#finish(response, failedResult(this.conversationId, err));
      return;
    }
    if (item.canceled || running.interrupted || this.#closed) {
      this.#running = undefined;
      const status = item.canceled || this.#closed ? 'canceled' : 'interrupted';
      this.#finish(response, {
        ...canceledResult(this.conversationId, `${status} before it was sent`),
        status,
      });
      return;
    }
    observer?.turnSent(request.text);
    let result: TurnResult;
    try {
      const turn = this.#connection.runTurn(request, {
        onStep: (step) => {
          this.#pushHistory(step);
          observer?.step(step);
          response.pushStep(step);
          const stop = this.#pipeline.onStep?.(step);
          if (stop) void this.stopRunning(stop);
        },
      });
      // The prompt is the backend's now: runTurn has taken it (writing it is its first step).
      item.onSent?.();
      result = await turn;
      if (item.canceled && result.status !== 'success') result = { ...result, status: 'canceled' };
      // A stop we asked for (a budget) decides the outcome even if agy still reported SUCCESS: fail closed.
      const stop = running.stop;
      if (stop) {
        result = { ...result, status: stop.status, errorMessage: stop.message, error: stop.error };
        if (stop.budget) result.budget = stop.budget;
      }
      if (this.#pipeline.finalize) result = await this.#pipeline.finalize(result, input);
    } catch (err) {
      result = failedResult(this.conversationId, err);
    } finally {
      this.#running = undefined;
    }
    this.#lastResult = result;
    // Copies: the result is the caller's too, and what they do to it must not change the conversation's figures.
    this.#lastTurnUsage = copyUsage(result.usage);
    if (result.totalUsage) this.#totalUsage = copyUsage(result.totalUsage);
    if (result.usage) this.#addUsage(this.#usageByModel, result.model ?? UNKNOWN_MODEL, result.usage);
    for (const [id, usage] of Object.entries(result.subagentUsage ?? {}))
      this.#addUsage(this.#subagentUsage, id, usage);
    this.#finish(response, result);
  }

  /** Ends a turn's response, after the observer has seen its result. */
  #finish(response: ChatResponse, result: TurnResult): void {
    this.#observer?.turnEnded(result);
    response.finish(result);
  }

  #addUsage(into: Record<string, Usage>, key: string, usage: Usage): void {
    const sum = into[key];
    if (sum) addPriced(sum, usage);
    else into[key] = { ...usage, cacheWriteTokens: cacheWritesOf(usage) };
  }

  #pushHistory(step: Step): void {
    if (step.type === 'compaction' && step.state === 'DONE') this.#compactionIndices.push(this.#stepCount);
    this.#stepCount++;
    for (const subscriber of this.#stepSubscribers) subscriber.push(step);
    this.#history.push(step);
    // Trim in batches so a long conversation does not pay an O(n) shift per step.
    if (this.#history.length > this.#historyLimit + Math.ceil(this.#historyLimit / 10)) {
      this.#history.splice(0, this.#history.length - this.#historyLimit);
      const first = this.#stepCount - this.#history.length;
      this.#compactionIndices = this.#compactionIndices.filter((i) => i >= first);
    }
  }
}

/** A copy of a usage value (flat numbers), so what a caller receives is never the conversation's own. */
function copyUsage(usage: Usage | null): Usage | null {
  return usage === null ? null : { ...usage };
}

/** A copy of a usage record (null prototype, as the keys are ids), each value copied. */
function copyUsages(record: Record<string, Usage>): Record<string, Usage> {
  const out: Record<string, Usage> = Object.create(null);
  for (const [key, usage] of Object.entries(record)) out[key] = { ...usage };
  return out;
}

/** A queued turn's input, or the error its prompt failed to parse with (thrown now that the turn runs). */
function parsed(input: TurnInput | InvalidInput): TurnInput {
  if ('invalid' in input) throw input.invalid;
  return input;
}

/** Cancels `response` when `signal` aborts; the listener goes once the turn ends, so nothing leaks. */
function cancelOnAbort(signal: AbortSignal, response: ChatResponse): void {
  const cancel = () => void response.cancel();
  if (signal.aborted) {
    cancel();
    return;
  }
  signal.addEventListener('abort', cancel, { once: true });
  void response.result().finally(() => signal.removeEventListener('abort', cancel));
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
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof TurnDeniedError) {
    const denial: DeniedAction = {
      action: 'turn',
      source: 'sdk',
      deniedBy: err.deniedBy ?? { kind: 'sdk' },
      reason: message,
    };
    return {
      ...baseResult(conversationId),
      status: 'denied',
      errorMessage: describeDenials([denial]),
      error: err,
      deniedActions: [denial],
    };
  }
  const result: TurnResult = { ...baseResult(conversationId), status: 'error', errorMessage: message };
  if (err instanceof Error && 'code' in err) result.error = err as AgySdkError;
  return result;
}
