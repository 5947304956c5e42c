/**
 * Turns one stdout line into a typed event, or a bad-line report. Never throws: agy drifts, and a line we do
 * not understand must not take the session down (docs/reference/stream-json.md#drift-tolerance).
 */

import { isRecord } from '../../../internal/guards.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH, mayExceedJsonDepth } from '../../../internal/json-depth.js';
import type { CommandResult, Step } from '../../../model/step.js';
import type { WireInit, WireResult, WireStepUpdate } from '../../../protocol/stream-json-wire.js';
import { commandFromWire, type InitInfo, initFromWire, stepFromWire } from './normalize.js';

/**
 * A parsed stdout line's event (the process stream's `AgyEvent` carries it with its line). Wire payloads are kept
 * alongside the normalized view.
 */
export type ParsedEvent =
  | { type: 'init'; init: InitInfo; raw: WireInit }
  | { type: 'step'; step: Step }
  | { type: 'result'; conversationId: string | undefined; result: WireResult }
  | {
      type: 'command_result';
      conversationId: string | undefined;
      payload: Record<string, unknown>;
      /** The command's result; `undefined` when the payload has no `name`. */
      command: CommandResult | undefined;
    };

/** Why a line was not delivered as an event. */
export type BadLineReason =
  | 'not_json'
  | 'not_object'
  | 'unknown_event'
  | 'malformed_event'
  | 'too_long'
  | 'too_deep'
  | 'truncated';

/** A line that was not understood; passed to `onBadLine` and counted. */
export interface BadLine {
  /** Why the line was not understood. */
  reason: BadLineReason;
  /** The line (cut to 1 KiB; empty for `too_long`). */
  line: string;
  /**
   * The parsed value, for `unknown_event` and `malformed_event` (forward-compatible pass-through). Never set
   * for `too_deep`: such a value is not safe to hand on.
   */
  value?: unknown;
}

export type ParsedLine = { ok: true; event: ParsedEvent } | { ok: false; bad: BadLine };

const preview = (line: string): string => (line.length > 1024 ? `${line.slice(0, 1024)}…` : line);

/** Whether {@link parseEvent} reported a bad line (events always have a `type`, bad lines never). */
export function isBadLine(parsed: ParsedEvent | BadLine): parsed is BadLine {
  return (parsed as { type?: unknown }).type === undefined;
}

/** {@link parseEvent} with the outcome wrapped as `{ ok, event }` or `{ ok, bad }`. */
export function parseLine(line: string): ParsedLine {
  const parsed = parseEvent(line);
  return isBadLine(parsed) ? { ok: false, bad: parsed } : { ok: true, event: parsed };
}

/**
 * The hot path: one line to its event, or the bad-line report, with no wrapper object per line (tell them
 * apart with {@link isBadLine}).
 */
export function parseEvent(line: string): ParsedEvent | BadLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { reason: 'not_json', line: preview(line) };
  }
  // The one depth check for everything agy writes on stdout: past this point values are walked recursively
  // (normalize, the turn tracker, zod, user code), and a pathological nesting would throw a RangeError there.
  if (mayExceedJsonDepth(line) && exceedsJsonDepth(value, MAX_JSON_DEPTH)) {
    return { reason: 'too_deep', line: preview(line) };
  }
  if (!isRecord(value)) return { reason: 'not_object', line: preview(line) };
  const record = value;
  const name = record.event;
  switch (name) {
    case 'step_update': {
      const payload = record.step_update;
      // An out-of-range number (step_index 1e400 parses to Infinity) is a malformed line, never coerced.
      const step = isRecord(payload)
        ? stepFromWire(payload as WireStepUpdate, topConversationId(record))
        : undefined;
      if (step !== undefined) return { type: 'step', step };
      break;
    }
    case undefined:
      if (typeof record.status === 'string') {
        // `--output-format json` writes the result object alone, without an envelope (docs/reference/stream-json.md#output-format-json).
        return { type: 'result', conversationId: topConversationId(record), result: record as WireResult };
      }
      return { reason: 'unknown_event', line: preview(line), value };
    default:
      return parseOtherEvent(line, record, name);
  }
  return { reason: 'malformed_event', line: preview(line), value };
}

/** The top-level `conversation_id` some envelopes carry. */
function topConversationId(value: Record<string, unknown>): string | undefined {
  return typeof value.conversation_id === 'string' ? value.conversation_id : undefined;
}

/** Every event but `step_update` (one per turn or rarer, so off the hot path). */
function parseOtherEvent(line: string, value: Record<string, unknown>, name: unknown): ParsedEvent | BadLine {
  const payload = typeof name === 'string' ? value[name] : undefined;
  switch (name) {
    case 'result':
      if (isRecord(payload)) {
        const conversationId =
          typeof payload.conversation_id === 'string' && payload.conversation_id !== ''
            ? payload.conversation_id
            : topConversationId(value);
        return { type: 'result', conversationId, result: payload as WireResult };
      }
      break;
    case 'init':
      if (isRecord(payload)) {
        return {
          type: 'init',
          init: initFromWire(payload as WireInit, topConversationId(value)),
          raw: payload as WireInit,
        };
      }
      break;
    case 'command_result': {
      // The payload sits under `command` (agy-real/jdiazromeral-agy-plugin-cc/command_result-*).
      const body = isRecord(value.command) ? value.command : isRecord(payload) ? payload : {};
      return {
        type: 'command_result',
        conversationId: topConversationId(value),
        payload: body,
        command: commandFromWire(body),
      };
    }
    default:
      return { reason: 'unknown_event', line: preview(line), value };
  }
  return { reason: 'malformed_event', line: preview(line), value };
}
