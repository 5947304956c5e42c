/**
 * One agy turn as AG-UI events: a text message per agy response step, each agy tool call as
 * TOOL_CALL_START/ARGS/END and TOOL_CALL_RESULT, a STEP per agy model or tool step, and the run's end:
 * RUN_FINISHED (with usage) or, for a failed status, RUN_ERROR with agy's error text. Fail-closed like the
 * AI SDK provider (docs/guides/ag-ui.md#statuses). The events only describe; where they go is the thread's.
 */
import type { BaseEvent, TokenUsage } from '@ag-ui/core';
import type { HookToolCall, Step, ToolCall, TurnResult, TurnStatus, Usage } from '../index.js';
import type { AgUiPeers } from './peers.js';

/** Statuses that end a run with RUN_ERROR: the turn gave no complete answer. */
export const RUN_ERROR_STATUSES: ReadonlySet<TurnStatus> = new Set([
  'error',
  'timeout',
  'auth_failed',
  'quota_exhausted',
  'rate_limited',
  'budget_exceeded',
]);

/** Statuses that end a run RUN_FINISHED with the `cancelled` outcome. */
const CANCELLED: ReadonlySet<TurnStatus> = new Set(['interrupted', 'canceled']);

/** AG-UI's token usage: its input total includes cache reads, which agy counts apart. */
export function tokenUsage(usage: Usage | null, model: string | undefined): TokenUsage[] | undefined {
  if (!usage) return undefined;
  const cached = usage.cacheReadTokens ?? 0;
  const entry: TokenUsage = {
    inputTokens: usage.inputTokens + cached,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + cached + usage.outputTokens,
  };
  if (model) entry.model = model;
  if (usage.thinkingTokens !== null) entry.reasoningTokens = usage.thinkingTokens;
  if (usage.cacheReadTokens !== null) entry.cachedInputTokens = usage.cacheReadTokens;
  return [entry];
}

/** Writes the events of one turn, keeping what is open so a pause or the end can close it. */
export class TurnEvents {
  readonly #types: AgUiPeers['EventType'];
  readonly #emit: (event: BaseEvent) => void;
  readonly #prefix: string;
  #openText: string | undefined;
  readonly #openSteps = new Set<string>();
  readonly #started = new Set<string>();
  readonly #resulted = new Set<string>();

  /** `prefix` makes message ids unique per turn. */
  constructor(types: AgUiPeers['EventType'], emit: (event: BaseEvent) => void, prefix: string) {
    this.#types = types;
    this.#emit = emit;
    this.#prefix = prefix;
  }

  /** One agy step. Subagents' steps stay out, as they stay out of the turn's text. */
  step(step: Step): void {
    if (step.subagent) return;
    const T = this.#types;
    const name = `${step.type} ${step.stepIndex}`;
    const tracked = step.type === 'agent_response' || step.type === 'tool';
    // A step opens at first sight (a one-update step comes DONE at once) and closes once: a step closed by a
    // pause is not reopened by its later updates.
    if (tracked && !this.#started.has(`step:${name}`)) {
      this.#started.add(`step:${name}`);
      this.#openSteps.add(name);
      this.#emit({ type: T.STEP_STARTED, stepName: name } as BaseEvent);
    }
    if (step.type === 'agent_response' && step.textDelta)
      this.#text(`${this.#prefix}-${step.stepIndex}`, step.textDelta);
    if (step.tool) this.toolCall(step.tool);
    if (step.state !== 'ACTIVE') {
      if (step.type === 'agent_response') this.endText();
      this.#endStep(name);
    }
  }

  #text(id: string, delta: string): void {
    const T = this.#types;
    if (this.#openText !== id) {
      this.endText();
      this.#openText = id;
      this.#emit({ type: T.TEXT_MESSAGE_START, messageId: id, role: 'assistant' } as BaseEvent);
    }
    this.#emit({ type: T.TEXT_MESSAGE_CONTENT, messageId: id, delta } as BaseEvent);
  }

  /** Ends the open text message, if any. */
  endText(): void {
    if (this.#openText === undefined) return;
    this.#emit({ type: this.#types.TEXT_MESSAGE_END, messageId: this.#openText } as BaseEvent);
    this.#openText = undefined;
  }

  #endStep(name: string): void {
    if (!this.#openSteps.delete(name)) return;
    this.#emit({ type: this.#types.STEP_FINISHED, stepName: name } as BaseEvent);
  }

  /**
   * A tool call: START, ARGS and END at first sight (agy sends its arguments whole), the RESULT once it ends.
   * Also called with a call an approval is asked for, which may come before agy's step shows it.
   */
  toolCall(call: ToolCall | HookToolCall): void {
    const T = this.#types;
    if (!this.#started.has(call.id)) {
      this.endText();
      this.#started.add(call.id);
      this.#emit({ type: T.TOOL_CALL_START, toolCallId: call.id, toolCallName: call.name } as BaseEvent);
      this.#emit({
        type: T.TOOL_CALL_ARGS,
        toolCallId: call.id,
        delta: JSON.stringify(call.args ?? {}),
      } as BaseEvent);
      this.#emit({ type: T.TOOL_CALL_END, toolCallId: call.id } as BaseEvent);
    }
    if (!('state' in call) || this.#resulted.has(call.id)) return;
    const failed = call.state === 'ERROR' || call.denied === true;
    if (call.state === 'DONE' && call.output === undefined && !failed) return; // agy's silent denial: at the end
    if (call.state !== 'DONE' && call.state !== 'ERROR') return;
    this.#result(call);
  }

  #result(call: ToolCall): void {
    this.#resulted.add(call.id);
    const output = call.error?.message ?? (call.denied ? 'denied' : call.output);
    const content = typeof output === 'string' ? output : output === undefined ? '' : JSON.stringify(output);
    this.#emit({
      type: this.#types.TOOL_CALL_RESULT,
      messageId: `${this.#prefix}-result-${call.id}`,
      toolCallId: call.id,
      content,
      role: 'tool',
    } as BaseEvent);
  }

  /** Closes the open text and steps: before a pause (an interrupt ends the run) and at the end. */
  closeOpen(): void {
    this.endText();
    for (const name of [...this.#openSteps]) this.#endStep(name);
  }

  /** The turn's end: results still missing (silent denials), then RUN_FINISHED or RUN_ERROR. */
  finish(result: TurnResult, ids: { threadId: string; runId: string }): void {
    this.closeOpen();
    for (const call of result.toolCalls) {
      this.toolCall(call);
      if (!this.#resulted.has(call.id)) this.#result(call);
    }
    const T = this.#types;
    const usage = tokenUsage(result.usage, result.model);
    if (RUN_ERROR_STATUSES.has(result.status)) {
      this.#emit({
        type: T.RUN_ERROR,
        message: result.errorMessage || `agy turn ended ${result.status}`,
        code: result.status,
        ...(usage && { usage }),
      } as BaseEvent);
      return;
    }
    this.#emit({
      type: T.RUN_FINISHED,
      ...ids,
      outcome: CANCELLED.has(result.status) ? { type: 'cancelled' } : { type: 'success' },
      result: {
        status: result.status,
        conversationId: result.conversationId ?? null,
        ...(result.deniedActions.length > 0 && {
          deniedActions: result.deniedActions.map((d) => ({ action: d.action, reason: d.reason ?? null })),
        }),
      },
      ...(usage && { usage }),
    } as BaseEvent);
  }
}
