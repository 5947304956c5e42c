/**
 * The turn pipeline as named stages composed in order (like Hono's `compose`): before a turn is sent each
 * `PrepareStage` works on one `TurnDraft`; each step of a running turn passes the `StepStage`s; the finished
 * result passes the `FinishStage`s. The Agent lists its stages (`agent/turn-stages.ts`); the Conversation
 * runs the composition.
 */
import type { TurnMedia } from '../connection/connection.js';
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import type { TurnStop } from './conversation.js';
import type { TurnInput } from './turn-input.js';

/** A turn being prepared: the prompt's parts (the turn's `TurnInput.parts`), and the text blocks that will be sent. */
export interface TurnDraft<Part = unknown> {
  /** The prompt's parts, as the user gave them (parsed once, by `chat`). */
  readonly parts: readonly Part[];
  /** The text blocks to send, in order; stages add to it. */
  text: string[];
  /** Media parts, each also named by a block of `text` (backends that take them natively send them instead). */
  media?: TurnMedia[];
}

/** One named step of preparing a turn. Throwing `TurnDeniedError` ends the turn `denied`, unsent. */
export interface PrepareStage<Part = unknown> {
  /** Shown in errors and logs. */
  readonly name: string;
  run(draft: TurnDraft<Part>): void | Promise<void>;
}

/** Sees each step of the running turn; returning a `TurnStop` stops the turn with that outcome. */
export interface StepStage {
  readonly name: string;
  run(step: Step): TurnStop | undefined;
}

/** Post-processes a finished turn's result (validation, post-turn hooks, folding in denials). */
export interface FinishStage {
  readonly name: string;
  /** Gets the turn's own input too (its schema, for the structured-output stage). */
  run(result: TurnResult, input: TurnInput): TurnResult | Promise<TurnResult>;
}

/** Runs prepare stages in order on one draft; the first that throws ends the preparation (errors pass as is). */
export function composePrepare<Part>(
  stages: readonly PrepareStage<Part>[],
): (draft: TurnDraft<Part>) => Promise<TurnDraft<Part>> {
  return async (draft) => {
    for (const stage of stages) await stage.run(draft);
    return draft;
  };
}

/** Runs step stages in order; the first `TurnStop` wins, and later stages still see the step. */
export function composeSteps(stages: readonly StepStage[]): (step: Step) => TurnStop | undefined {
  return (step) => {
    let stop: TurnStop | undefined;
    for (const stage of stages) {
      const asked = stage.run(step);
      stop ??= asked;
    }
    return stop;
  };
}

/** Runs finish stages in order, each on the previous one's result and the turn's input. */
export function composeFinish(
  stages: readonly FinishStage[],
): (result: TurnResult, input: TurnInput) => Promise<TurnResult> {
  return async (result, input) => {
    let current = result;
    for (const stage of stages) current = await stage.run(current, input);
    return current;
  };
}
