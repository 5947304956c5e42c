/**
 * One AG-UI thread: its agy conversation, the run streaming now, and a turn paused on approvals. A thread runs
 * one turn at a time. A turn's agy process ends with the turn; while it waits for an approval (between the
 * run that asked and the run that answers) it stays up, bounded by `askUserTimeoutMs`, or until `close()`.
 */
import { randomUUID } from 'node:crypto';
import type { BaseEvent, Interrupt, ResumeEntry } from '@ag-ui/core';
import { Agent, type AgentConfig, type AskUserHandler, type ContentPart } from '../index.js';
import { answerOf, approvalInterrupt, routeApprovals } from './approval.js';
import type { AgUiPeers } from './peers.js';
import { TurnEvents } from './turn-events.js';

/** Where one run's events go (an HTTP response). */
export interface RunSink {
  /** The run's thread. */
  threadId: string;
  /** The run. */
  runId: string;
  /** Writes one event. */
  write(event: BaseEvent): void;
  /** Ends the response. */
  end(): void;
}

/** What an `askUser` handler answers. */
type AskUserAnswer = Awaited<ReturnType<AskUserHandler>>;

interface Pending {
  interrupt: Interrupt;
  resolve: (answer: AskUserAnswer) => void;
}

interface Turn {
  agent: Agent;
  events: TurnEvents;
  abort: AbortController;
}

/** Why a run was refused, as an HTTP status and a message. */
export class RunRefused extends Error {
  /** The HTTP status to answer with. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** One AG-UI thread (see the file comment). */
export class AgUiThread {
  /** The agy conversation the thread continues, once a turn has run. */
  conversationId: string | undefined;
  readonly #peers: AgUiPeers;
  readonly #config: AgentConfig;
  #sink: RunSink | undefined;
  #buffer: BaseEvent[] = [];
  readonly #pending = new Map<string, Pending>();
  #turn: Turn | undefined;
  #closing: Promise<void> = Promise.resolve();

  constructor(peers: AgUiPeers, config: AgentConfig) {
    this.#peers = peers;
    this.#config = config;
  }

  /** True while a run streams, or a turn waits for answers: a new turn must wait. */
  get busy(): boolean {
    return this.#sink !== undefined || this.#turn !== undefined || this.#buffer.length > 0;
  }

  /** True while a turn is paused on approvals or left events for a resuming run. */
  get paused(): boolean {
    return this.#sink === undefined && (this.#pending.size > 0 || this.#buffer.length > 0);
  }

  /** Starts a turn with `prompt`, streaming into `sink`. Refused while the thread is busy. */
  async start(prompt: ContentPart[], sink: RunSink): Promise<void> {
    // What a turn left after its questions expired unanswered is dropped: nobody will resume it.
    if (!this.#sink && !this.#turn && this.#pending.size === 0) this.#buffer = [];
    if (this.busy)
      throw new RunRefused(409, 'this thread is already running a turn (one run at a time per thread)');
    const abort = new AbortController();
    this.#attach(sink);
    await this.#closing;
    const agent = new Agent({
      ...this.#config,
      ...(this.conversationId && { conversationId: this.conversationId }),
      policies: routeApprovals(this.#config.policies, this.#approval),
    });
    const events = new TurnEvents(this.#peers.EventType, (e) => this.#emit(e), sink.runId);
    const turn: Turn = { agent, events, abort };
    this.#turn = turn;
    void this.#run(turn, prompt);
  }

  /** Answers the paused turn's interrupts with `resume` and streams the rest of it into `sink`. */
  resume(entries: readonly ResumeEntry[], sink: RunSink): void {
    if (this.#sink)
      throw new RunRefused(409, 'this thread is already running a turn (one run at a time per thread)');
    if (!this.paused) throw new RunRefused(409, 'this thread has no interrupted run to resume');
    this.#attach(sink);
    for (const entry of entries) {
      const pending = this.#pending.get(entry.interruptId);
      if (!pending) continue; // expired (already denied) or unknown: nothing waits for it
      this.#pending.delete(entry.interruptId);
      pending.resolve(answerOf(entry));
    }
    const buffered = this.#buffer;
    this.#buffer = [];
    for (const event of buffered) this.#emit(event);
    this.#pause();
  }

  /** The run's client went away: a streaming turn is cancelled (a paused one keeps waiting for its answers). */
  detach(sink: RunSink): void {
    if (this.#sink !== sink) return;
    this.#sink = undefined;
    this.#turn?.abort.abort();
  }

  /** Ends the thread: the turn is cancelled, pending approvals denied, its agy process closed. */
  async close(): Promise<void> {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.resolve({ allow: false, message: 'The AG-UI handler closed.' });
    }
    this.#turn?.abort.abort();
    const agent = this.#turn?.agent;
    if (agent) await agent.close().catch(() => undefined);
    await this.#closing;
    this.#sink?.end();
    this.#sink = undefined;
  }

  #attach(sink: RunSink): void {
    this.#sink = sink;
    sink.write({
      type: this.#peers.EventType.RUN_STARTED,
      threadId: sink.threadId,
      runId: sink.runId,
    } as BaseEvent);
  }

  async #run(turn: Turn, prompt: ContentPart[]): Promise<void> {
    const T = this.#peers.EventType;
    try {
      const response = await turn.agent.chat(prompt, { signal: turn.abort.signal });
      for await (const step of response.steps()) turn.events.step(step);
      const result = await response.result();
      this.conversationId = result.conversationId ?? this.conversationId;
      this.#end(turn);
      turn.events.finish(result, { threadId: '', runId: '' });
    } catch (error) {
      this.#end(turn);
      turn.events.closeOpen();
      const { message, code } = error as { message?: string; code?: unknown };
      this.#emit({
        type: T.RUN_ERROR,
        message: message ?? String(error),
        code: typeof code === 'string' ? code : 'error',
      } as BaseEvent);
    }
  }

  /** The turn is over: its process closes (a next turn waits for that), answers still pending deny. */
  #end(turn: Turn): void {
    if (this.#turn === turn) this.#turn = undefined;
    this.conversationId = turn.agent.conversationId ?? this.conversationId;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.resolve(false);
    }
    this.#closing = turn.agent.close().catch(() => undefined);
  }

  /** Writes to the run streaming now, or keeps the event for the run that resumes. Run ends end the response. */
  #emit(event: BaseEvent): void {
    const sink = this.#sink;
    if (!sink) {
      this.#buffer.push(event);
      return;
    }
    const T = this.#peers.EventType;
    if (event.type === T.RUN_FINISHED) {
      sink.write({ ...event, threadId: sink.threadId, runId: sink.runId } as BaseEvent);
    } else sink.write(event);
    if (event.type === T.RUN_FINISHED || event.type === T.RUN_ERROR) {
      this.#sink = undefined;
      sink.end();
    }
  }

  /** Ends the streaming run with the `interrupt` outcome while approvals are pending. */
  #pause(): void {
    const sink = this.#sink;
    if (!sink || this.#pending.size === 0) return;
    this.#turn?.events.closeOpen();
    this.#sink = undefined;
    sink.write({
      type: this.#peers.EventType.RUN_FINISHED,
      threadId: sink.threadId,
      runId: sink.runId,
      outcome: { type: 'interrupt', interrupts: [...this.#pending.values()].map((p) => p.interrupt) },
    } as BaseEvent);
    sink.end();
  }

  /** The thread's `askUser` handler: asks the AG-UI client through an interrupt. */
  readonly #approval: AskUserHandler = (call, ctx) => {
    const id = randomUUID();
    this.#turn?.events.toolCall(call);
    const timeout = this.#config.askUserTimeoutMs ?? 5 * 60_000;
    const interrupt = approvalInterrupt(id, call, ctx.reason, new Date(Date.now() + timeout));
    return new Promise<AskUserAnswer>((resolve) => {
      this.#pending.set(id, { interrupt, resolve });
      ctx.signal.addEventListener(
        'abort',
        () => {
          if (this.#pending.delete(id)) resolve(false);
        },
        { once: true },
      );
      this.#pause();
    });
  };
}
