/**
 * Everything one agy process tells the SDK, as one discriminated union: what `AgyProcess.events` yields, in the
 * order it happened, and what the connection's one `switch` (`agy-connection.ts`, `#onEvent`) consumes.
 *
 * Each stdout line is one event that carries its raw text (the recorder, the watchdog's last-line diagnostic);
 * the parsed members are the shapes `parse-line.ts` gives (docs/reference/stream-json.md#envelope).
 */
import type { CommandResult, Step } from '../../../model/step.js';
import type { WireInit, WireResult } from '../../../protocol/stream-json-wire.js';
import type { ExitInfo } from '../../process/child-process.js';
import type { InitInfo } from './normalize.js';
import type { BadLine } from './parse-line.js';

/** One thing an agy process did: a stdout line (parsed), a stderr line, its spawn, its exit, or a stall. */
export type AgyEvent =
  /** agy was spawned with this pid (before any output). */
  | { type: 'spawned'; pid: number }
  /** agy's `init`: the handshake that ends its start. */
  | { type: 'init'; line: string; init: InitInfo; raw: WireInit }
  /** A `step_update` (text delta, tool call, message, …), normalized. */
  | { type: 'step'; line: string; step: Step }
  /** agy's `result`: the end of a turn (or, before `init`, the reason agy cannot start). */
  | { type: 'result'; line: string; conversationId: string | undefined; result: WireResult }
  /** A slash command's `command_result`, with its payload as sent. */
  | {
      type: 'command_result';
      line: string;
      conversationId: string | undefined;
      payload: Record<string, unknown>;
      /** The command's result; `undefined` when the payload has no `name`. */
      command: CommandResult | undefined;
    }
  /** An empty stdout line (activity, nothing to parse). */
  | { type: 'blank_line'; line: string }
  /** A stdout line that was not understood (never thrown); a truncated last line is one too. */
  | { type: 'bad_line'; line: string; bad: BadLine }
  /** A stdout line over `maxLineBytes` was dropped as it streamed; `head` is its first bytes. */
  | { type: 'line_too_long'; head: string }
  /** One stderr line. */
  | { type: 'stderr'; line: string }
  /** The turn's watchdog found agy quiet (`idle`) or the turn too long (`turn`) for `limitMs`. */
  | {
      type: 'stall';
      kind: 'idle' | 'turn';
      limitMs: number /** The turn whose watchdog fired. */;
      turnId: number;
    }
  /** agy exited (always the last event). */
  | { type: 'exit'; exit: ExitInfo };

/** The events that come from one stdout line. */
export type AgyLineEvent = Exclude<
  AgyEvent,
  { type: 'spawned' | 'line_too_long' | 'stderr' | 'stall' | 'exit' }
>;
