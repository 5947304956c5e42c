/**
 * The `chat` span of each model step (docs/reference/observability.md#span-tree): opened when the step is
 * first seen, ended when it is DONE or ERROR, with exactly the usage the turn tracker counts.
 */
import type { Attributes, Context } from '@opentelemetry/api';
import type { Step } from '../model/step.js';
import { ATTR, OP } from './attributes.js';
import { now, type TracingState, type TurnTrace } from './tracing-state.js';
import { usageAttributes } from './usage-attributes.js';

/** Model-step spans of one Agent. */
export class ChatSpans {
  readonly #s: TracingState;
  /** Model steps already given a span, across the conversation (agy resends a DONE step; count it once). */
  readonly #done = new Set<string>();

  constructor(state: TracingState) {
    this.#s = state;
  }

  /** A model step as delivered: remembered while running, a span when it finished. */
  step(turn: TurnTrace, step: Step, parent: Context): void {
    const s = this.#s;
    const key = `${step.conversationId ?? ''}:${step.stepIndex}`;
    if (this.#done.has(key)) return;
    const terminal = step.state === 'DONE' || step.state === 'ERROR';
    const seen = turn.chats.get(key);
    const t = now();
    if (!terminal) {
      if (seen === undefined) turn.chats.set(key, t);
      return;
    }
    turn.chats.delete(key);
    this.#done.add(key);
    const model = s.o.model();
    const attributes: Attributes = {
      [ATTR.operation]: OP.chat,
      [ATTR.provider]: s.o.providerName,
      [ATTR.stepIndex]: step.stepIndex,
      [ATTR.stepType]: step.type,
    };
    if (model) attributes[ATTR.requestModel] = model;
    if (step.conversationId) attributes[ATTR.conversationId] = step.conversationId;
    // Exactly the usage the turn tracker counts: DONE steps' usage, each step once.
    if (step.state === 'DONE' && step.usage) usageAttributes(step.usage, attributes);
    const span = s.tracer!.startSpan(
      `${OP.chat} ${model ?? 'default'}`,
      { startTime: seen ?? t, attributes, kind: s.api.SpanKind.CLIENT },
      parent,
    );
    if (step.state === 'ERROR') {
      span.setAttribute(ATTR.errorType, 'model_error');
      span.setStatus({
        code: s.api.SpanStatusCode.ERROR,
        ...(step.message && { message: step.message }),
      });
    }
    span.end(t);
    s.metrics?.duration(t - (seen ?? t), {
      [ATTR.operation]: OP.chat,
      [ATTR.provider]: s.o.providerName,
      ...(model && { [ATTR.requestModel]: model }),
    });
  }

  /** Model steps still running when the turn ended (interrupt, timeout, crash): shown, marked incomplete. */
  endTurn(turn: TurnTrace, end: number): void {
    for (const [key, start] of turn.chats) {
      this.#done.add(key);
      const span = this.#s.tracer!.startSpan(
        `${OP.chat} ${this.#s.o.model() ?? 'default'}`,
        { startTime: start, attributes: { [ATTR.operation]: OP.chat, [ATTR.incomplete]: true } },
        turn.ctx,
      );
      span.end(end);
    }
  }
}
