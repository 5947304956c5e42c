/**
 * The streamed answer to one `chat()` call. Every iterator is an independent cursor over one shared buffer:
 * text deltas, steps and tool calls can be consumed sequentially or concurrently, started early or late, and
 * each sees everything from the start.
 */

import { ReplayBuffer } from '../internal/replay-buffer.js';
import type { Step, ToolCall, Usage } from '../model/step.js';
import { TurnError } from '../model/turn-errors.js';
import type { TurnResult } from '../model/turn-result.js';

/** One streamed delta of a response (Python `StreamChunk`, with its `Text` and `Thought` kinds). */
export interface StreamChunk {
  /** `text`: the answer; `thought`: thinking text. */
  type: 'text' | 'thought';
  /** The delta. */
  text: string;
  /** The step it belongs to (`Step.stepIndex`). */
  stepIndex: number;
}

/** @internal How the Conversation drives a response. */
export interface ChatResponseControl {
  /** Cancels this turn (queued or running). */
  cancel(): Promise<void>;
}

/**
 * One turn's streamed response, returned by `agent.chat()`: iterate it for text, or read `steps()`,
 * `toolCalls()`, `result()`. Every cursor sees every step, whenever it starts. Created by the SDK only.
 *
 * @typeParam T - The type of {@link ChatResponse.structuredOutput}: inferred from a zod `responseSchema` given
 * to `agent.chat(prompt, { responseSchema })`, `unknown` otherwise.
 */
export class ChatResponse<T = unknown> implements AsyncIterable<string> {
  /** The turn's steps, gathered by the turn itself (`Turn.steps`); this response reads them. */
  readonly #steps: ReplayBuffer<Step>;
  readonly #result: Promise<TurnResult>;
  #settle!: (result: TurnResult) => void;
  #final: TurnResult | undefined;
  readonly #control: ChatResponseControl;

  // Private: users get responses from `agent.chat()` only (the declarations show `private constructor()`).
  private constructor(steps: ReplayBuffer<Step>, control: ChatResponseControl) {
    this.#steps = steps;
    this.#control = control;
    this.#result = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /**
   * @internal Created by `Conversation.chat()` over its turn's steps (a prompt that did not parse has no turn:
   * its response gets an empty buffer of its own).
   */
  static create(steps: ReplayBuffer<Step> | undefined, control: ChatResponseControl): ChatResponse {
    return new ChatResponse(steps ?? new ReplayBuffer<Step>(), control);
  }

  /** @internal Ends the response with its result. */
  finish(result: TurnResult): void {
    if (this.#final) return;
    this.#final = result;
    this.#steps.close();
    this.#settle(result);
  }

  /** Text deltas of the model's responses, in order. */
  [Symbol.asyncIterator](): AsyncGenerator<string, void, undefined> {
    // A subagent's text is its own, not the answer (Step.subagent).
    return this.#steps.select((step) =>
      step.type === 'agent_response' && step.textDelta && !step.subagent ? step.textDelta : undefined,
    );
  }

  /** Every normalized step of the turn (each `step_update`, in arrival order). */
  steps(): AsyncGenerator<Step, void, undefined> {
    return this.#steps.cursor();
  }

  /** Tool calls, each once (by id), as soon as agy reports them; arguments as sent. */
  async *toolCalls(): AsyncGenerator<ToolCall, void, undefined> {
    const seen = new Set<string>();
    for await (const step of this.#steps.cursor()) {
      if (step.tool && !seen.has(step.tool.id)) {
        seen.add(step.tool.id);
        yield step.tool;
      }
    }
  }

  /**
   * Tool calls, each once, when they end (DONE with `output`, or ERROR with `error`). A call that ended DONE
   * with neither is held until the turn ends: agy soft-denies a call that way, and only its `result` says so
   * (then `ToolCall.denied` is set).
   */
  async *toolResults(): AsyncGenerator<ToolCall, void, undefined> {
    const seen = new Set<string>();
    const silent: ToolCall[] = [];
    for await (const step of this.#steps.cursor()) {
      const call = step.tool;
      if (call && (call.state === 'DONE' || call.state === 'ERROR') && !seen.has(call.id)) {
        seen.add(call.id);
        if (call.state === 'DONE' && call.output === undefined && call.error === undefined) silent.push(call);
        else yield call;
      }
    }
    yield* silent;
  }

  /**
   * Thinking text, in order, on backends that stream it: the ACP backend (`agent_thought_chunk`, e.g. Gemini
   * CLI). Always empty with agy: agy counts thinking tokens but never streams thinking
   * (docs/reference/stream-json.md#text-streaming). It completes when the turn ends.
   * @experimental Empty on agy; see `agent.capabilities.thoughts`.
   */
  thoughts(): AsyncGenerator<string, void, undefined> {
    return this.#steps.select((step) =>
      step.thoughtDelta && !step.subagent ? step.thoughtDelta : undefined,
    );
  }

  /**
   * Text and thought deltas, in arrival order, each with the step it belongs to (Python `StreamChunk`: `Text`,
   * `Thought`), so a UI can tell which step a delta extends. Subagents' deltas are left out, as in the text
   * iterator. Thoughts come only on backends that stream them (see {@link ChatResponse.thoughts}).
   */
  async *chunks(): AsyncGenerator<StreamChunk, void, undefined> {
    for await (const step of this.#steps.cursor()) {
      if (step.subagent) continue;
      if (step.thoughtDelta) yield { type: 'thought', text: step.thoughtDelta, stepIndex: step.stepIndex };
      if (step.type === 'agent_response' && step.textDelta)
        yield { type: 'text', text: step.textDelta, stepIndex: step.stepIndex };
    }
  }

  /** The turn's outcome, whatever its status. Never rejects. */
  result(): Promise<TurnResult> {
    return this.#result;
  }

  /** The full text when the turn succeeded; otherwise rejects with a `TurnError` carrying the `TurnResult`. */
  async text(): Promise<string> {
    const result = await this.#result;
    if (result.status !== 'success') throw new TurnError(result);
    return result.text;
  }

  /**
   * The validated structured output (with `responseSchema` set; `undefined` without one). Rejects with a
   * `TurnError` when the turn did not succeed — including when the output was missing or did not match the
   * schema, so with a zod schema it is typed `T` (`z.infer` of the turn's or the agent's schema), never
   * `T | undefined`. An explicit type argument (`structuredOutput<X>()`) still asserts the type.
   *
   * @typeParam U - The type to assert; defaults to the response's own `T`.
   */
  async structuredOutput<U = T>(): Promise<U> {
    const result = await this.#result;
    if (result.status !== 'success') throw new TurnError(result);
    return result.structuredOutput as U;
  }

  /** Cancels the turn: a queued turn never runs; a running one is interrupted. It ends `canceled`. */
  cancel(): Promise<void> {
    return this.#control.cancel();
  }

  /** True once the turn has ended. */
  get done(): boolean {
    return this.#final !== undefined;
  }

  /** This turn's usage once it has ended (`null` when unknown), `undefined` before. */
  get usage(): Usage | null | undefined {
    return this.#final?.usage;
  }
}
