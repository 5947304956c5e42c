/**
 * The session span (one per Agent, every turn its child), the `invoke_agent` span of each turn, and the
 * subagent spans under it (docs/reference/observability.md#span-tree). The session span ends with the summed
 * usage of its turns.
 */
import type { Attributes, Context } from '@opentelemetry/api';
import type { Step, Usage } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import { addUsage } from '../model/usage.js';
import { ATTR, OP, SPAN } from './attributes.js';
import { json, now, type TracingState, type TurnTrace } from './tracing-state.js';
import { usageAttributes } from './usage-attributes.js';

/** Session, turn and subagent spans; the state they open is the parent of every other span. */
export class TurnSpans {
  readonly #s: TracingState;
  readonly #sessionUsage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    thinkingTokens: 0,
    cacheReadTokens: 0,
    totalTokens: 0,
  };

  constructor(state: TracingState) {
    this.#s = state;
  }

  /** The session span opens. */
  sessionStarting(): void {
    const s = this.#s;
    if (!s.tracer) return;
    const span = s.tracer.startSpan(SPAN.session, {
      attributes: { [ATTR.agentName]: s.o.agentName, [ATTR.provider]: s.o.providerName },
    });
    s.session = { span, ctx: s.api.trace.setSpan(s.api.context.active(), span) };
  }

  /** The conversation id and model go on the session span. */
  sessionStarted(conversationId: string | undefined): void {
    const span = this.#s.session?.span;
    if (!span) return;
    if (conversationId) span.setAttribute(ATTR.conversationId, conversationId);
    const model = this.#s.o.model();
    if (model) span.setAttribute(ATTR.requestModel, model);
  }

  /** The session span ends with the usage of its turns, and the error the agent failed with. */
  sessionEnded(error?: unknown): void {
    const s = this.#s;
    const session = s.session;
    if (!session) return;
    s.session = undefined;
    session.span.setAttributes(usageAttributes(this.#sessionUsage, {}));
    if (error !== undefined) {
      session.span.setStatus({ code: s.api.SpanStatusCode.ERROR, message: String(error) });
      session.span.setAttribute(ATTR.errorType, error instanceof Error ? error.name : 'error');
    }
    session.span.end();
  }

  /** The turn span opens under the session (none without a tracer). */
  turnStarted(): void {
    const s = this.#s;
    if (!s.tracer) {
      s.turn = undefined;
      return;
    }
    const startedAt = now();
    const model = s.o.model();
    const attributes: Attributes = {
      [ATTR.operation]: OP.invokeAgent,
      [ATTR.agentName]: s.o.agentName,
      [ATTR.provider]: s.o.providerName,
    };
    if (model) attributes[ATTR.requestModel] = model;
    const parent = s.session?.ctx ?? s.api.context.active();
    const span = s.tracer.startSpan(
      `${OP.invokeAgent} ${s.o.agentName}`,
      { attributes, startTime: startedAt, kind: s.api.SpanKind.INTERNAL },
      parent,
    );
    s.turn = {
      span,
      ctx: s.api.trace.setSpan(parent, span),
      startedAt,
      chats: new Map(),
      tools: new Map(),
      silent: [],
      subagents: new Map(),
    };
  }

  /** The prompt, when content is captured. */
  turnSent(text: readonly string[]): void {
    const turn = this.#s.turn;
    if (!turn || !this.#s.o.captureContent) return;
    turn.span.setAttribute(
      ATTR.inputMessages,
      json([{ role: 'user', parts: text.map((content) => ({ type: 'text', content })) }]),
    );
  }

  /** The context of a subagent's span, opened (linked to the turn) at its first step. */
  subagent(turn: TurnTrace, info: NonNullable<Step['subagent']>): Context {
    const s = this.#s;
    const known = turn.subagents.get(info.conversationId);
    if (known) return known.ctx;
    const name = info.typeName ?? 'subagent';
    const attributes: Attributes = {
      [ATTR.operation]: OP.invokeAgent,
      [ATTR.agentName]: name,
      [ATTR.conversationId]: info.conversationId,
      [ATTR.provider]: s.o.providerName,
    };
    if (info.role) attributes[ATTR.subagentRole] = info.role;
    const span = s.tracer!.startSpan(
      `${OP.invokeAgent} ${name}`,
      { attributes, links: [{ context: turn.span.spanContext() }] },
      turn.ctx,
    );
    const ctx = s.api.trace.setSpan(turn.ctx, span);
    turn.subagents.set(info.conversationId, { span, ctx });
    return ctx;
  }

  /** The subagent spans, then the turn span, end with the result (after the turn's tool and model spans). */
  endTurn(turn: TurnTrace, result: TurnResult, end: number): void {
    for (const [id, sub] of turn.subagents) {
      const usage = result.subagentUsage?.[id];
      if (usage) sub.span.setAttributes(usageAttributes(usage, {}));
      sub.span.end(end);
    }
    const span = turn.span;
    const attributes: Attributes = { [ATTR.turnStatus]: result.status };
    if (result.conversationId) attributes[ATTR.conversationId] = result.conversationId;
    if (result.model) attributes[ATTR.responseModel] = result.model;
    if (result.usage) usageAttributes(result.usage, attributes);
    if (result.budget) attributes[ATTR.budget] = result.budget;
    if (this.#s.o.captureContent && result.text) {
      attributes[ATTR.outputMessages] = json([
        { role: 'assistant', parts: [{ type: 'text', content: result.text }] },
      ]);
    }
    if (result.status !== 'success') {
      attributes[ATTR.errorType] = result.status;
      span.setStatus({ code: this.#s.api.SpanStatusCode.ERROR, message: result.errorMessage });
    }
    span.setAttributes(attributes);
    span.end(end);
  }

  /** Adds a finished turn's usage to the session's (the cost stays unknown once one turn's is). */
  addUsage(result: TurnResult): void {
    if (!result.usage) return;
    const u = this.#sessionUsage;
    addUsage(u, result.usage);
    if (u.costUsd !== null)
      u.costUsd = typeof result.usage.costUsd === 'number' ? (u.costUsd ?? 0) + result.usage.costUsd : null;
  }
}
