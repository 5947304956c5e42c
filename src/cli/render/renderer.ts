/**
 * What every output mode of `agy-sdk run` and `agy-sdk chat` implements: it is fed the turn's normalized steps
 * as they arrive and the result at the end. The mode is picked once (`--json`, TTY or not) by `pickRenderer`.
 */
import type { Step, TurnResult } from '../../index.js';

/** One output mode. */
export interface TurnRenderer {
  /**
   * The CLI waits on something before a turn (agy starting, a slash command): show it (the TTY renderer's
   * spinner with `label`) until `start` or `dispose`.
   */
  wait(label: string): void;
  /** The prompt was sent: show that the model is working (the TTY renderer's spinner). */
  start(): void;
  /** A normalized step, in arrival order. */
  step(step: Step): void;
  /** The turn ended; `structured` is the validated structured output when `--schema` was given. */
  end(result: TurnResult, options: { showStructured: boolean }): void;
  /** A line from the CLI itself (a notice, a hint), not from agy. */
  note(message: string): void;
  /** Stops anything animated, so a prompt or an exit leaves a clean line. */
  dispose(): void;
}

/** Where a renderer writes: answers on `out`, status lines on `err` (so `> answer.txt` keeps only the answer). */
export interface RenderStreams {
  /** The answer (text, structured output, NDJSON). */
  out: NodeJS.WritableStream;
  /** Tool status lines, notices, the closing summary. */
  err: NodeJS.WritableStream;
}
