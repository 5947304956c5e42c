/**
 * One turn, as one object from `chat()` to the backend and back. `Agent.chat` builds it from the prompt's parts
 * and the turn's options; the Conversation's stages fill in what is sent (text blocks, media, a slash command, a
 * schema override); the backend receives it as its `TurnRequest` and delivers each step into it as its
 * `TurnSink`; the turn gathers those steps once, in the buffer its `ChatResponse` reads (as the Codex SDK's
 * `thread.runStreamedInternal(input, turnOptions)` carries one turn).
 */
import type { ContentPart } from '../content/content.js';
import type { AgySdkError } from '../errors.js';
import { ReplayBuffer } from '../internal/replay-buffer.js';
import type { Step } from '../model/step.js';
import type { BudgetName, TurnStatus } from '../model/turn-result.js';
import type { TurnCommand, TurnMedia, TurnRequest, TurnSink } from './connection.js';

/** A schema a turn's structured output is checked against (the Agent's `ResponseSchema` is one). */
export interface TurnSchema {
  /** The JSON Schema sent to the backend. */
  readonly jsonSchema: Record<string, unknown>;
  /** Checks the backend's unvalidated structured output; the error is what the turn ends with. */
  check(raw: unknown): { ok: true; value: unknown } | { ok: false; error: AgySdkError };
}

/** A turn's own options, checked (`ChatOptions`). */
export interface TurnOptions {
  /** This turn's own structured-output schema (`ChatOptions.responseSchema`); absent means the agent's. */
  schema?: TurnSchema | undefined;
  /** A time limit for this turn only, in ms (`ChatOptions.turnTimeoutMs`), over the connection's own. */
  timeoutMs?: number | undefined;
  /** Aborting it cancels this turn (`ChatOptions.signal`): a queued turn never runs, a running one is interrupted. */
  signal?: AbortSignal | undefined;
}

/** A reason a stage asks to stop the running turn (e.g. a budget): it decides the turn's outcome. */
export interface TurnStop {
  /** The status the turn ends with. */
  status: Extract<TurnStatus, 'budget_exceeded'>;
  /** Its `errorMessage`. */
  message: string;
  /** Its `error`. */
  error: AgySdkError;
  /** The budget that was crossed. */
  budget?: BudgetName;
}

/**
 * One turn: what the user asked (its parts and options), what is sent (filled in by the prepare stages), and
 * the steps the backend delivers. It is the backend's `TurnRequest` and `TurnSink` at once.
 */
export class Turn implements TurnRequest, TurnSink {
  /** The prompt's parts, as the user gave them (parsed once, by `chat`). */
  readonly parts: readonly ContentPart[];
  /** This turn's own schema; absent means the agent's (sent at launch). */
  readonly schema: TurnSchema | undefined;
  /** Aborting it cancels this turn. */
  readonly signal: AbortSignal | undefined;
  /** A time limit for this turn only, in ms. */
  timeoutMs: number | undefined;
  /** The text blocks to send, in order; the prepare stages add to it. */
  text: string[] = [];
  /** Media parts, each also named by a block of `text` (backends that take them natively send them instead). */
  media: TurnMedia[] | undefined;
  /** The JSON Schema of this turn only, when it differs from the one the backend was started with. */
  jsonSchema: Record<string, unknown> | undefined;
  /** The slash command this turn runs instead of a model turn (`text` is then empty). */
  command: TurnCommand | undefined;
  /** Set when a stage stopped the turn (e.g. a budget): it decides the outcome. */
  stop: TurnStop | undefined;
  /** Every step the backend delivered, in order: the one place a turn's steps are gathered. */
  readonly steps = new ReplayBuffer<Step>();
  #onStep: ((step: Step) => void) | undefined;

  /**
   * @param parts The prompt's parts, parsed and checked.
   * @param options The turn's own options, checked.
   */
  constructor(parts: readonly ContentPart[], options: TurnOptions = {}) {
    this.parts = parts;
    this.schema = options.schema;
    this.signal = options.signal;
    this.timeoutMs = options.timeoutMs;
  }

  /** @internal Who runs the turn sees each step after it was gathered (history, telemetry, step stages). */
  watch(onStep: (step: Step) => void): void {
    this.#onStep = onStep;
  }

  /** Gathers one step from the backend, then shows it to the watcher. */
  onStep(step: Step): void {
    this.steps.push(step);
    this.#onStep?.(step);
  }
}

/**
 * A plain copy of what a backend reads from a turn (only the fields that are set), for a backend that keeps
 * what it was sent (the in-memory connection's `requests`).
 */
export function requestOf(request: TurnRequest): TurnRequest {
  return {
    text: request.text,
    ...(request.media !== undefined && { media: request.media }),
    ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
    ...(request.jsonSchema !== undefined && { jsonSchema: request.jsonSchema }),
    ...(request.command !== undefined && { command: request.command }),
  };
}
