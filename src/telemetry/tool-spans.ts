/**
 * The `execute_tool` span of each tool call (docs/reference/observability.md#span-tree), whichever way it
 * arrives: a backend step (built-in and MCP tools), the host's decision before the step, or the agent's own
 * tool through the in-process gate and its handler. Its outcome (allowed, denied by whom, error) is known at
 * the step's end, or for agy's soft denials only at the turn's result.
 */
import type { Attributes, Context } from '@opentelemetry/api';
import type { ToolCall } from '../model/step.js';
import type { ToolCallDecision, ToolInvocation } from '../model/tool-call.js';
import { ATTR, OP } from './attributes.js';
import { decisionSpan } from './hook-spans.js';
import type { ToolOutcome } from './metrics.js';
import { json, now, type ToolSpan, type TracingState, type TurnTrace } from './tracing-state.js';

/** Tool-call spans of one Agent. */
export class ToolSpans {
  readonly #s: TracingState;
  /** Own-tool spans opened by the gate, waiting for their handler, by the tool's author name. */
  readonly #ownPending = new Map<string, ToolSpan[]>();

  constructor(state: TracingState) {
    this.#s = state;
  }

  /** True for a call to the agent's own tools: their spans come from the gate and the handler, not the step. */
  isOwn(call: ToolCall): boolean {
    return call.mcpServer !== undefined && this.#s.o.ownToolServers.includes(call.mcpServer);
  }

  #open(id: string, name: string, parent: Context, server: string | undefined, start?: number): ToolSpan {
    const s = this.#s;
    const attributes: Attributes = {
      [ATTR.operation]: OP.executeTool,
      [ATTR.toolName]: name,
      [ATTR.toolCallId]: id,
      [ATTR.toolType]: 'function',
    };
    if (server) attributes[ATTR.mcpServer] = server;
    const span = s.tracer!.startSpan(
      `${OP.executeTool} ${name}`,
      { attributes, ...(start !== undefined && { startTime: start }) },
      parent,
    );
    return {
      span,
      ctx: s.api.trace.setSpan(parent, span),
      verdict: undefined,
      endTime: undefined,
      ended: false,
    };
  }

  /** The turn's span of a call, opened (under `parent`, from `start`) when this is its first sight. */
  #get(
    turn: TurnTrace,
    id: string,
    name: string,
    parent: Context,
    server: string | undefined,
    start?: number,
  ): ToolSpan {
    let state = turn.tools.get(id);
    if (!state) {
      state = this.#open(id, name, parent, server, start);
      turn.tools.set(id, state);
    }
    return state;
  }

  /** A tool step as delivered: its span ends when the step does (a silent DONE waits for the result). */
  step(turn: TurnTrace, call: ToolCall, parent: Context): void {
    const state = this.#get(turn, call.id, call.name, parent, call.mcpServer);
    if (state.ended || state.endTime !== undefined) return;
    if (call.state !== 'DONE' && call.state !== 'ERROR') return;
    if (this.#s.o.captureContent) state.span.setAttribute(ATTR.toolArguments, json(call.args));
    if (call.state === 'DONE' && call.output === undefined && call.error === undefined) {
      // Soft-denied or silent: only the turn's result says which (ToolCall.denied is set in place then).
      state.endTime = now();
      turn.silent.push({ state, call });
      return;
    }
    this.end(state, call, now());
  }

  /** Ends a tool span with its outcome: denied (by whom, why), error, or allowed. */
  end(state: ToolSpan, call: ToolCall | undefined, end: number, error?: string): void {
    if (state.ended) return;
    state.ended = true;
    const s = this.#s;
    const span = state.span;
    const verdict = state.verdict;
    let outcome: ToolOutcome;
    if (verdict && !verdict.allow) {
      outcome = 'denied';
      span.setAttributes({ [ATTR.deniedBy]: 'sdk', [ATTR.denialReason]: verdict.reason });
    } else if (call?.denied) {
      outcome = 'denied';
      span.setAttribute(ATTR.deniedBy, 'agy');
    } else if (call?.state === 'ERROR' || error !== undefined) {
      outcome = 'error';
      span.setAttribute(ATTR.errorType, call?.error?.type ?? 'tool_error');
      span.setStatus({
        code: s.api.SpanStatusCode.ERROR,
        message: call?.error?.message ?? error ?? 'tool error',
      });
    } else {
      outcome = 'allowed';
    }
    span.setAttribute(ATTR.toolOutcome, outcome);
    if (s.o.captureContent && call?.output !== undefined)
      span.setAttribute(ATTR.toolResult, json(call.output));
    span.end(end);
    s.metrics?.toolCall(outcome);
  }

  /** The host decided on a call the backend asks about: its verdict and decision span (the span opens here when its step has not arrived yet). */
  decided(call: ToolInvocation, verdict: ToolCallDecision, start: number): void {
    const turn = this.#s.turn;
    if (!turn || !this.#s.tracer) return;
    const state = this.#get(turn, call.id, call.name, turn.ctx, call.server, start);
    state.verdict = verdict;
    decisionSpan(this.#s, state, verdict, start, now());
  }

  /** The answer the backend acted on (a raw hook's, or a fail-closed fallback) decides the outcome. */
  answered(call: ToolInvocation, verdict: ToolCallDecision): void {
    const state = this.#s.turn?.tools.get(call.id);
    if (state && !verdict.allow) state.verdict = verdict;
  }

  /** An own-tool call through the gate: its span opens (a denial ends it), waiting for the handler. */
  gated(call: ToolInvocation, decision: ToolCallDecision, start: number): void {
    const s = this.#s;
    if (!s.turn) return;
    const state = this.#open(
      call.id,
      call.name,
      s.turn.ctx,
      // The name users know the server by (`agent.toolServerName`), not the listener's bare catalog name.
      s.o.ownToolServers[0],
      start,
    );
    state.verdict = decision;
    decisionSpan(s, state, decision, start, now());
    if (!decision.allow) this.end(state, undefined, now());
    else {
      const queue = this.#ownPending.get(call.name);
      if (queue) queue.push(state);
      else this.#ownPending.set(call.name, [state]);
    }
  }

  /** The span an own-tool handler runs in: the one its gate opened, else a new one (a backend with no gate). */
  forHandler(name: string): ToolSpan {
    return (
      this.#ownPending.get(name)?.shift() ??
      this.#open(`own:${name}`, name, this.#s.parent(), this.#s.o.ownToolServers[0])
    );
  }

  /** The turn ended: every tool span still open ends, the unfinished ones marked incomplete. */
  endTurn(turn: TurnTrace, end: number): void {
    // Own-tool calls the gate allowed whose handler never ran (e.g. arguments rewritten into invalid ones).
    for (const queue of this.#ownPending.values()) for (const state of queue) this.#incomplete(state, end);
    this.#ownPending.clear();
    for (const { state, call } of turn.silent) this.end(state, call, state.endTime ?? end);
    for (const state of turn.tools.values()) if (!state.ended) this.#incomplete(state, end);
  }

  #incomplete(state: ToolSpan, end: number): void {
    state.span.setAttribute(ATTR.incomplete, true);
    this.end(state, undefined, end);
  }
}
