/**
 * The turn's stages: one ordered list, given to the Conversation once and composed once (as Hono's `compose`
 * runs one middleware list over one `Context`). Each stage works on the one `Turn` in up to three phases:
 * before it is sent (`prepare`, in list order), on each of its steps (`step`), and on its result (`finish`,
 * each on the previous one's result). The Agent lists its stages (`agent/turn-stages.ts`); the Conversation
 * runs them and never calls back into whoever built them.
 */
import type { Turn, TurnStop } from '../connection/connection.js';
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';

/** One named stage of a turn; each phase is optional. */
export interface TurnStage {
  /** Shown in errors and logs. */
  readonly name: string;
  /**
   * Prepares the turn before it is sent (fills in its text, media, command or schema). Throwing
   * `TurnDeniedError` ends the turn `denied`, unsent. Once a stage set `turn.command`, later stages do not
   * prepare (a slash command is not a model turn).
   */
  prepare?(turn: Turn): void | Promise<void>;
  /** Sees each step of the running turn; returning a `TurnStop` stops the turn with that outcome. */
  step?(step: Step, turn: Turn): TurnStop | undefined;
  /** Post-processes the finished turn's result (validation, post-turn hooks, usage, cost). */
  finish?(result: TurnResult, turn: Turn): TurnResult | Promise<TurnResult>;
}

/** The three phases of a stage list, composed once. */
export interface ComposedStages {
  /** Runs the prepare phases in order; the first that throws ends the preparation (errors pass as is). */
  prepare(turn: Turn): Promise<Turn>;
  /** Runs the step phases in order; the first `TurnStop` wins, and later stages still see the step. */
  step(step: Step, turn: Turn): TurnStop | undefined;
  /** Runs the finish phases in order, each on the previous one's result. */
  finish(result: TurnResult, turn: Turn): Promise<TurnResult>;
}

/** Composes a stage list once into its three phases. */
export function composeStages(stages: readonly TurnStage[]): ComposedStages {
  const prepares = stages.filter((s) => s.prepare);
  const steps = stages.filter((s) => s.step);
  const finishes = stages.filter((s) => s.finish);
  return {
    async prepare(turn) {
      for (const stage of prepares) {
        if (turn.command) break;
        await stage.prepare?.(turn);
      }
      return turn;
    },
    step(step, turn) {
      let stop: TurnStop | undefined;
      for (const stage of steps) {
        const asked = stage.step?.(step, turn);
        stop ??= asked;
      }
      return stop;
    },
    async finish(result, turn) {
      let current = result;
      for (const stage of finishes) if (stage.finish) current = await stage.finish(current, turn);
      return current;
    },
  };
}
