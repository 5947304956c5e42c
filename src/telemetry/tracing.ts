/**
 * The recording side of telemetry: one `AgentTracing` per Agent, created only when `@opentelemetry/api` is
 * installed and a tracer or meter provider is there (else the Agent holds none and calls nothing). It builds
 * the span tree of docs/reference/observability.md#span-tree from what already passes through the SDK: the
 * Conversation's turn observer (turns, model steps, tool steps, subagents), the host's tool decisions, the
 * agent's own tool handlers, timed hooks, and the gateway's upstream requests. This facade only routes each
 * event, contained, to the recorder of its concept (`turn-spans`, `chat-spans`, `tool-spans`,
 * `tool-wrappers`, `hook-spans`, `upstream-spans`, `metrics`), which share one `TracingState`.
 */
import type { ConnectionHost } from '../connection/host.js';
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import type { UpstreamObserver } from '../model/upstream-trace.js';
import type { ToolDefinition } from '../tools/tool.js';
import { ChatSpans } from './chat-spans.js';
import { timedHook } from './hook-spans.js';
import { AgentMetrics } from './metrics.js';
import { ToolSpans } from './tool-spans.js';
import { wrapHost, wrapTools } from './tool-wrappers.js';
import type { TracingOptions } from './tracing-options.js';
import { now, TracingState } from './tracing-state.js';
import type { TurnObserver } from './turn-observer.js';
import { TurnSpans } from './turn-spans.js';
import { upstreamObserver } from './upstream-spans.js';

/** Spans and metrics of one Agent. Every method is contained: telemetry never breaks a turn. */
export class AgentTracing implements TurnObserver {
  readonly #s: TracingState;
  readonly #turns: TurnSpans;
  readonly #chats: ChatSpans;
  readonly #tools: ToolSpans;

  constructor(options: TracingOptions) {
    this.#s = new TracingState(options, options.meter && new AgentMetrics(options.meter, options));
    this.#turns = new TurnSpans(this.#s);
    this.#chats = new ChatSpans(this.#s);
    this.#tools = new ToolSpans(this.#s);
  }

  // ---- Session -------------------------------------------------------------------------------------------

  /** The agent is starting: the session span opens (every turn is its child). */
  sessionStarting(): void {
    this.#s.contain('sessionStarting', () => this.#turns.sessionStarting());
  }

  /** The backend is up: the conversation id and model are known. */
  sessionStarted(conversationId: string | undefined): void {
    this.#s.contain('sessionStarted', () => {
      this.#s.metrics?.sessionStarted();
      this.#turns.sessionStarted(conversationId);
    });
  }

  /** The agent closed (or failed to start): the session span ends with the usage of its turns. */
  sessionEnded(error?: unknown): void {
    this.#s.contain('sessionEnded', () => this.#turns.sessionEnded(error));
  }

  // ---- Turns (the Conversation's observer) ---------------------------------------------------------------

  turnStarted(): void {
    this.#s.contain('turnStarted', () => this.#turns.turnStarted());
  }

  turnSent(text: readonly string[]): void {
    this.#s.contain('turnSent', () => this.#turns.turnSent(text));
  }

  step(step: Step): void {
    this.#s.contain('step', () => {
      const turn = this.#s.turn;
      if (!turn || !this.#s.tracer) return;
      const parent = step.subagent ? this.#turns.subagent(turn, step.subagent) : turn.ctx;
      const call = step.tool;
      if (call && !this.#tools.isOwn(call)) this.#tools.step(turn, call, parent);
      if (step.type === 'agent_response' || step.usage) this.#chats.step(turn, step, parent);
    });
  }

  turnEnded(result: TurnResult): void {
    this.#s.contain('turnEnded', () => {
      const turn = this.#s.turn;
      this.#s.turn = undefined;
      const end = now();
      // Children first: tool and model spans, then subagents, then the turn itself.
      if (turn) {
        this.#tools.endTurn(turn, end);
        this.#chats.endTurn(turn, end);
        this.#turns.endTurn(turn, result, end);
      }
      this.#turns.addUsage(result);
      this.#s.metrics?.turnEnded(result, turn ? end - turn.startedAt : result.durationMs);
    });
  }

  // ---- Tools and hooks -----------------------------------------------------------------------------------

  /** The host, with its tool decisions timed and recorded on the calls' spans. */
  wrapHost(host: ConnectionHost): ConnectionHost {
    return wrapHost(this.#s, this.#tools, host);
  }

  /**
   * The agent's own tools, each handler run inside its `execute_tool` span (opened by the gate, or here when
   * the backend has no gate), so whatever the handler traces is its child.
   */
  wrapTools(tools: readonly ToolDefinition[]): ToolDefinition[] {
    return wrapTools(this.#s, this.#tools, tools);
  }

  /** Runs a hook (`preTurn`, `stop`, …); a span shows it when it took time. */
  hook<T>(name: string, run: () => Promise<T>): Promise<T> {
    return timedHook(this.#s, name, run);
  }

  // ---- Gateway upstream requests (provider mode) ---------------------------------------------------------

  /** Observes the gateway's upstream requests: a `chat` span each, its context sent as `traceparent`. */
  upstreamObserver(): UpstreamObserver {
    return upstreamObserver(this.#s);
  }
}
