/**
 * Layer 2: a conversation over a `Connection`. Queues turns (one runs at a time, the rest wait in order), runs
 * each through the stages it was given, and keeps a bounded step history; its usage is its `UsageLedger`'s.
 */
import { type Connection, Turn, type TurnStop } from '../connection/connection.js';
import type { ContentPart } from '../content/content.js';
import { ClosedError } from '../errors.js';
import type { Step, Usage } from '../model/step.js';
import { TurnError } from '../model/turn-errors.js';
import type { TurnResult } from '../model/turn-result.js';
import type { TurnObserver } from '../telemetry/turn-observer.js';
import { ChatResponse } from './chat-response.js';
import { type ComposedStages, composeStages, type TurnStage } from './stages.js';
import { StepSubscriber } from './step-subscriber.js';
import { canceledResult, failedResult } from './turn-results.js';
import { UsageLedger } from './usage-ledger.js';

export type { TurnStop } from '../connection/connection.js';
export { UNKNOWN_MODEL } from './usage-ledger.js';

/** Default number of steps kept in `history` (as in the Python SDK). */
export const DEFAULT_HISTORY_LIMIT = 10_000;

/** @internal */
export interface ConversationOptions<P> {
  connection: Connection;
  /** The turn's stages, in order (composed once, here). */
  stages?: readonly TurnStage[] | undefined;
  /** Prices and sums the turns' usage; without one, a ledger that sums unpriced. */
  usage?: UsageLedger | undefined;
  /** Parses a prompt given to the conversation directly (`chat`, `send`) into its parts; throws on a bad one. */
  parse: (prompt: P) => readonly ContentPart[];
  /** Steps kept in `history`; older ones are dropped. Default 10,000; `0` keeps every step (Python's `0`). */
  historyLimit?: number | undefined;
  /** Sees each turn start, its prompt, its steps and its result (telemetry); never throws. */
  observer?: TurnObserver | undefined;
}

/** A prompt given to the conversation directly that did not parse: its turn fails when its time comes, in order. */
interface InvalidInput {
  invalid: unknown;
}

interface TurnItem {
  kind: 'turn';
  turn: Turn | InvalidInput;
  /** Called once the prompt was handed to the backend (`send()` waits for it). */
  onSent?: (() => void) | undefined;
  response: ChatResponse;
  canceled: boolean;
}
type QueueItem = TurnItem | { kind: 'task'; run: () => Promise<void> };
interface RunningTurn {
  item: TurnItem;
  /** The turn, once its prompt parsed (a stage's stop is kept on it). */
  turn: Turn | undefined;
  /** `interrupt()` was called; before the message is sent this means it is never sent. */
  interrupted: boolean;
}

/**
 * A conversation over a `Connection`: turns run one at a time in call order, with a bounded step history and
 * usage per turn and in total. Created by the Agent only (`agent.conversation`).
 */
export class Conversation<P = unknown> {
  readonly #connection: Connection;
  readonly #stages: ComposedStages;
  readonly #usage: UsageLedger;
  readonly #parse: (prompt: P) => readonly ContentPart[];
  readonly #historyLimit: number;
  #history: Step[] = [];
  readonly #queue: QueueItem[] = [];
  #pumping = false;
  /** A queued task (`whenIdle`) is running; a turn counts as running through `#running`. */
  #runningTask = false;
  #turnCount = 0;
  #lastResult: TurnResult | undefined;
  #closed = false;
  #running: RunningTurn | undefined;
  readonly #observer: TurnObserver | undefined;
  /** The open `steps()` iterators: each step of every turn is pushed to each. */
  readonly #stepSubscribers = new Set<StepSubscriber>();
  /** Where compaction steps arrived, counted over every step since the last `clearHistory()`. */
  #compactionIndices: number[] = [];
  /** Steps pushed since the last `clearHistory()` (the index space of `#compactionIndices`). */
  #stepCount = 0;

  // Private: the Agent creates the conversation (the declarations show `private constructor()`).
  private constructor(opts: ConversationOptions<P>) {
    this.#connection = opts.connection;
    this.#stages = composeStages(opts.stages ?? []);
    this.#usage = opts.usage ?? new UsageLedger();
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
    return this.#usage.total;
  }

  /**
   * Usage of this agent's turns so far, by the model each ran on (`TurnResult.model`; `'default'` when agy did
   * not name it), each the sum of those turns' `usage` with its `costUsd` (`null` once any part is unpriced).
   * Subagents' usage is apart, in `subagentUsage`. Counts turns run by this agent only, unlike `totalUsage`.
   */
  get usageByModel(): Readonly<Record<string, Usage>> {
    return this.#usage.byModel;
  }

  /** Usage of each subagent over this agent's turns, by the subagent's conversation id (priced like turns). */
  get subagentUsage(): Readonly<Record<string, Usage>> {
    return this.#usage.bySubagent;
  }

  /** Usage of the last finished turn (the sum of its model steps); `null` when unknown, or after `clearHistory()`. */
  get lastTurnUsage(): Usage | null {
    return this.#usage.lastTurn;
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
    this.#usage.forgetLastTurn();
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
   * @internal Queues a turn built and checked already (`Agent.chat`): its parts, its own schema, time limit and
   * abort signal travel with it to every stage and to the backend.
   */
  queueTurn(turn: Turn, opts: { first?: boolean } = {}): ChatResponse {
    return this.#enqueue(turn, opts);
  }

  /** The turn of a prompt given to the conversation directly; one that does not parse fails its turn later. */
  #inputOf(prompt: P, timeoutMs: number | undefined): Turn | InvalidInput {
    try {
      return new Turn(this.#parse(prompt), { timeoutMs });
    } catch (err) {
      return { invalid: err };
    }
  }

  #enqueue(turn: Turn | InvalidInput, opts: { first?: boolean; onSent?: () => void }): ChatResponse {
    if (this.#closed) throw new ClosedError();
    const item: TurnItem = {
      kind: 'turn',
      turn,
      onSent: opts.onSent,
      canceled: false,
      response: ChatResponse.create(turn instanceof Turn ? turn.steps : undefined, {
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
    const signal = turn instanceof Turn ? turn.signal : undefined;
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

  /** @internal Stops the running turn with a stage-chosen outcome (e.g. a budget). */
  async stopRunning(stop: TurnStop): Promise<void> {
    const running = this.#running;
    if (!running?.turn || running.turn.stop) return;
    running.turn.stop = stop;
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
    const running: RunningTurn = { item, turn: undefined, interrupted: false };
    this.#running = running;
    this.#observer?.turnStarted();
    let turn: Turn;
    try {
      turn = parsed(item.turn);
      running.turn = turn;
      await this.#stages.prepare(turn);
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
    const result = await this.#send(item, turn);
    this.#lastResult = result;
    this.#usage.record(result);
    this.#finish(response, result);
  }

  /** Hands the prepared turn to the backend, and its result through the finish stages. */
  async #send(item: TurnItem, turn: Turn): Promise<TurnResult> {
    const observer = this.#observer;
    observer?.turnSent(turn.text);
    turn.watch((step) => {
      this.#pushHistory(step);
      observer?.step(step);
      const stop = this.#stages.step(step, turn);
      if (stop) void this.stopRunning(stop);
    });
    try {
      // The backend reads what to send from the turn and delivers each step into it.
      const running = this.#connection.runTurn(turn, turn);
      // The prompt is the backend's now: runTurn has taken it (writing it is its first step).
      item.onSent?.();
      let result = await running;
      if (item.canceled && result.status !== 'success') result = { ...result, status: 'canceled' };
      // A stop we asked for (a budget) decides the outcome even if agy still reported SUCCESS: fail closed.
      const stop = turn.stop;
      if (stop) {
        result = { ...result, status: stop.status, errorMessage: stop.message, error: stop.error };
        if (stop.budget) result.budget = stop.budget;
      }
      return await this.#stages.finish(result, turn);
    } catch (err) {
      return failedResult(this.conversationId, err);
    } finally {
      this.#running = undefined;
    }
  }

  /** Ends a turn's response, after the observer has seen its result. */
  #finish(response: ChatResponse, result: TurnResult): void {
    this.#observer?.turnEnded(result);
    response.finish(result);
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

/** A queued turn, or the error its prompt failed to parse with (thrown now that the turn runs). */
function parsed(turn: Turn | InvalidInput): Turn {
  if ('invalid' in turn) throw turn.invalid;
  return turn;
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
