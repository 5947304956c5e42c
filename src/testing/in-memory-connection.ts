/**
 * An in-memory `Connection`: scripted steps and results, no process. Plug it into an Agent with
 * `new Agent({ connection: conn.connect })` (the factory that takes the Agent's host) to test a Conversation, ChatResponse cursors, budgets, steering or
 * pre/post-turn hooks in milliseconds. What needs agy itself (its hooks through the relay, MCP over HTTP,
 * process signals) still needs the simulator.
 */
import {
  type Connection,
  type ConnectionInfo,
  requestOf,
  type TurnRequest,
  type TurnSink,
} from '../connection/connection.js';
import type { ConnectionHost } from '../connection/host.js';
import { ClosedError, UsageError } from '../errors.js';
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';

/** A step to deliver: any `Step` field; `stepIndex`, `state` and `raw` are filled in when left out. */
export type ScriptedStep = Partial<Step> & Pick<Step, 'type'>;

/** One scripted turn. */
export interface ScriptedTurn {
  /** Steps delivered in order, each after the previous one was handled. */
  steps?: ScriptedStep[];
  /**
   * Fields of the turn's result, over a `success` result whose `text` is the steps' `textDelta`s joined and
   * whose `toolCalls` are the steps' tools.
   */
  result?: Partial<TurnResult>;
  /** Keep the turn running after its steps until `interrupt()` (or `close()`) ends it. */
  hang?: boolean;
}

/** A turn, or a function that builds one from the request (called when the turn starts). */
export type TurnScript = ScriptedTurn | ((request: TurnRequest, turn: number) => ScriptedTurn);

/** Options of an {@link InMemoryConnection}. */
export interface InMemoryConnectionOptions {
  /** The turns, in order. A turn past the end of the list ends `error` ("no scripted turn"). */
  turns?: TurnScript[];
  /** The conversation id reported after `start()`. Default `mem-conversation`. */
  conversationId?: string;
  /** The model reported after `start()`. */
  model?: string;
}

/** The in-memory `Connection` of `agy-sdk/testing`. */
export class InMemoryConnection implements Connection {
  readonly #turns: TurnScript[];
  readonly #conversationId: string;
  #info: ConnectionInfo;
  #started = false;
  #closed = false;
  #running: { end: (status: 'interrupted' | 'canceled') => void } | undefined;
  /** Every request the SDK sent, in order (what agy would have received on stdin). */
  readonly requests: TurnRequest[] = [];
  /** Every model switch asked for, in order. */
  readonly modelSwitches: string[] = [];
  /** The host the Agent handed over, once `connect()` built this connection for an Agent. */
  host: ConnectionHost | undefined;

  constructor(options: InMemoryConnectionOptions = {}) {
    this.#turns = [...(options.turns ?? [])];
    this.#conversationId = options.conversationId ?? 'mem-conversation';
    this.#info = {
      version: null,
      conversationId: undefined,
      model: options.model,
      tools: [],
      permissionMode: undefined,
      cwd: undefined,
      pid: undefined,
    };
  }

  /** A `connection` factory for `AgentConfig` that hands out this instance and keeps the host. */
  connect = (host: ConnectionHost): InMemoryConnection => {
    this.host = host;
    return this;
  };

  get conversationId(): string | undefined {
    return this.#started ? this.#conversationId : undefined;
  }

  get info(): ConnectionInfo {
    return this.#info;
  }

  get isIdle(): boolean {
    return this.#running === undefined;
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  async start(): Promise<ConnectionInfo> {
    if (this.#closed) throw new ClosedError();
    this.#started = true;
    this.#info = { ...this.#info, conversationId: this.#conversationId };
    return this.#info;
  }

  async runTurn(request: TurnRequest, sink: TurnSink): Promise<TurnResult> {
    if (this.#closed) throw new ClosedError();
    if (this.#running) throw new UsageError('runTurn: a turn is already running');
    const index = this.requests.length;
    this.requests.push(requestOf(request));
    const started = Date.now();
    const script = this.#turns[index];
    const turn: ScriptedTurn =
      script === undefined
        ? { result: { status: 'error', errorMessage: `no scripted turn #${index + 1}` } }
        : typeof script === 'function'
          ? script(request, index)
          : script;
    let ended: 'interrupted' | 'canceled' | undefined;
    const stopped = new Promise<'interrupted' | 'canceled'>((resolve) => {
      this.#running = {
        end: (status) => {
          ended ??= status;
          resolve(status);
        },
      };
    });
    try {
      const delivered: Step[] = [];
      for (const [i, partial] of (turn.steps ?? []).entries()) {
        // One step per macrotask, as steps arrive from a real process: a stop requested by one is seen
        // before the next is delivered.
        await new Promise((resolve) => setImmediate(resolve));
        if (ended) break;
        const step: Step = {
          conversationId: this.#conversationId,
          stepIndex: i,
          state: 'DONE',
          raw: {},
          ...partial,
        };
        delivered.push(step);
        sink.onStep(step);
      }
      if (turn.hang && !ended) await stopped;
      const text = delivered.map((s) => s.textDelta ?? '').join('');
      const base: TurnResult = {
        status: 'success',
        text,
        usage: null,
        totalUsage: null,
        deniedActions: [],
        toolCalls: delivered.flatMap((s) => (s.tool ? [s.tool] : [])),
        exitCode: null,
        signal: null,
        stderrTail: '',
        result: null,
        structuredOutput: undefined,
        conversationId: this.#conversationId,
        durationMs: Date.now() - started,
        notices: [],
        errorMessage: '',
      };
      return ended ? { ...base, ...turn.result, status: ended } : { ...base, ...turn.result };
    } finally {
      this.#running = undefined;
    }
  }

  async interrupt(reason: 'interrupted' | 'canceled' = 'interrupted'): Promise<void> {
    this.#running?.end(reason);
  }

  async setModel(model: string): Promise<void> {
    if (this.#running) throw new UsageError('setModel: wait until the turn ends');
    this.modelSwitches.push(model);
    this.#info = { ...this.#info, model };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#running?.end('canceled');
  }
}
