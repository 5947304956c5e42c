/**
 * One agy turn as AI SDK stream parts: a text block per agy response step, each agy tool call as a
 * provider-executed dynamic tool call and its result, then (fail-closed) an `error` part for a failed status
 * and the `finish` part. Subagents' steps stay out, as they stay out of the turn's text.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type ChatResponse, type ToolCall, TurnError, type TurnResult } from '../index.js';
import { conversationMetadata, FAILED_STATUSES, finishReason, turnMetadata, usageOf } from './finish.js';

/** How the turn's parts are written. */
export interface TurnStreamOptions {
  /** Where parts go. */
  emit: (part: LanguageModelV4StreamPart) => void;
  /** A structured-output turn: agy's prose is not the answer; the validated JSON is written as the text. */
  json: boolean;
  /** Also write each agy step as a `raw` part. */
  includeRaw: boolean;
}

/** The state of one turn's parts. */
class TurnParts {
  readonly #options: TurnStreamOptions;
  #openText: string | undefined;
  #conversationId: string | undefined;
  readonly #called = new Set<string>();
  readonly #ended = new Set<string>();
  /** Every text delta written, joined: the answer as the AI SDK will store it. */
  text = '';

  constructor(options: TurnStreamOptions) {
    this.#options = options;
  }

  textDelta(id: string, delta: string, conversationId: string | undefined): void {
    this.#conversationId ??= conversationId;
    if (this.#openText !== id) {
      this.endText();
      this.#openText = id;
      const providerMetadata = conversationMetadata(this.#conversationId);
      this.#options.emit({ type: 'text-start', id, ...(providerMetadata && { providerMetadata }) });
    }
    this.#options.emit({ type: 'text-delta', id, delta });
    this.text += delta;
  }

  endText(): void {
    if (this.#openText === undefined) return;
    const providerMetadata = conversationMetadata(this.#conversationId);
    this.#options.emit({
      type: 'text-end',
      id: this.#openText,
      ...(providerMetadata && { providerMetadata }),
    });
    this.#openText = undefined;
  }

  toolCall(call: ToolCall): void {
    if (!this.#called.has(call.id)) {
      this.endText();
      this.#called.add(call.id);
      this.#options.emit({
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.args ?? {}),
        providerExecuted: true,
        dynamic: true,
      });
    }
    const ended =
      call.state === 'ERROR' || (call.state === 'DONE' && (call.output !== undefined || call.denied));
    if (ended && !this.#ended.has(call.id)) this.#toolResult(call);
  }

  /** Calls that ended without an output (agy's silent soft-denial) get their result from the `TurnResult`. */
  endTools(result: TurnResult): void {
    for (const call of result.toolCalls) {
      if (!this.#called.has(call.id)) this.toolCall(call);
      if (!this.#ended.has(call.id)) this.#toolResult(call);
    }
  }

  #toolResult(call: ToolCall): void {
    this.#ended.add(call.id);
    const failure = call.error?.message ?? (call.denied ? 'denied' : undefined);
    const output = failure ?? call.output ?? (call.state === 'DONE' ? '' : `ended ${call.state}`);
    this.#options.emit({
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      result: (typeof output === 'string' ? output : JSON.parse(JSON.stringify(output))) ?? '',
      ...((failure !== undefined || call.state !== 'DONE') && { isError: true }),
      dynamic: true,
    });
  }

  /** Ends the text (a last empty block carries the conversation id when no text came) and the turn. */
  finish(result: TurnResult): void {
    this.#conversationId ??= result.conversationId;
    if (this.#options.json && result.status === 'success')
      this.textDelta('json', JSON.stringify(result.structuredOutput), result.conversationId);
    else if (this.text === '' && result.text !== '' && !this.#options.json)
      this.textDelta('response', result.text, result.conversationId);
    else if (this.text === '' && this.#openText === undefined)
      this.textDelta('empty', '', result.conversationId);
    this.endText();
    this.endTools(result);
    if (FAILED_STATUSES.has(result.status))
      this.#options.emit({ type: 'error', error: new TurnError(result) });
    this.#options.emit({
      type: 'finish',
      finishReason: finishReason(result),
      usage: usageOf(result.usage),
      providerMetadata: turnMetadata(result),
    });
  }
}

/** Writes a running turn's parts until it ends; resolves with its result and the text written. */
export async function streamTurn(
  response: ChatResponse,
  options: TurnStreamOptions,
): Promise<{ result: TurnResult; text: string }> {
  const parts = new TurnParts(options);
  for await (const step of response.steps()) {
    if (options.includeRaw) options.emit({ type: 'raw', rawValue: step.raw });
    if (step.subagent) continue;
    if (step.type === 'agent_response' && step.textDelta && !options.json)
      parts.textDelta(`text-${step.stepIndex}`, step.textDelta, step.conversationId);
    if (step.tool) parts.toolCall(step.tool);
  }
  const result = await response.result();
  parts.finish(result);
  return { result, text: parts.text };
}
