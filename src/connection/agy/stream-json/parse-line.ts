/**
 * Turns one stdout line into a typed event, or a bad-line report. Never throws: agy drifts, and a line we do
 * not understand must not take the session down (docs/reference/stream-json.md#drift-tolerance).
 */

import { isRecord } from '../../../internal/guards.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH, mayExceedJsonDepth } from '../../../internal/json-depth.js';
import type { CommandResult, Step } from '../../../model/step.js';
import type { WireInit, WireResult, WireStepUpdate } from '../../../protocol/stream-json.js';
import { badNumber, commandFromWire, type InitInfo, initFromWire, stepFromWire } from './normalize.js';

/** A parsed agy event. Wire payloads are kept alongside the normalized view. */
export type AgyEvent =
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

export type ParsedLine = { ok: true; event: AgyEvent } | { ok: false; bad: BadLine };

const preview = (line: string): string => (line.length > 1024 ? `${line.slice(0, 1024)}…` : line);

export function parseLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, bad: { reason: 'not_json', line: preview(line) } };
  }
  // The one depth check for everything agy writes on stdout: past this point values are walked recursively
  // (normalize, the turn tracker, zod, user code), and a pathological nesting would throw a RangeError there.
  if (mayExceedJsonDepth(line) && exceedsJsonDepth(value, MAX_JSON_DEPTH)) {
    return { ok: false, bad: { reason: 'too_deep', line: preview(line) } };
  }
  if (!isRecord(value)) return { ok: false, bad: { reason: 'not_object', line: preview(line) } };
  const topConversationId = typeof value.conversation_id === 'string' ? value.conversation_id : undefined;
  const name = value.event;
  if (name === undefined && typeof value.status === 'string') {
    // `--output-format json` writes the result object alone, without an envelope (docs/reference/stream-json.md#output-format-json).
    return {
      ok: true,
      event: { type: 'result', conversationId: topConversationId, result: value as WireResult },
    };
  }
  const payload = typeof name === 'string' ? value[name] : undefined;
  switch (name) {
    case 'step_update':
      // An out-of-range number (step_index 1e400 parses to Infinity) is a malformed line, never coerced.
      if (isRecord(payload) && badNumber(payload, 'step') === undefined) {
        return {
          ok: true,
          event: { type: 'step', step: stepFromWire(payload as WireStepUpdate, topConversationId) },
        };
      }
      break;
    case 'result':
      if (isRecord(payload)) {
        const conversationId =
          typeof payload.conversation_id === 'string' && payload.conversation_id !== ''
            ? payload.conversation_id
            : topConversationId;
        return { ok: true, event: { type: 'result', conversationId, result: payload as WireResult } };
      }
      break;
    case 'init':
      if (isRecord(payload)) {
        return {
          ok: true,
          event: {
            type: 'init',
            init: initFromWire(payload as WireInit, topConversationId),
            raw: payload as WireInit,
          },
        };
      }
      break;
    case 'command_result': {
      // The payload sits under `command` (agy-real/jdiazromeral-agy-plugin-cc/command_result-*).
      const body = isRecord(value.command) ? value.command : isRecord(payload) ? payload : {};
      return {
        ok: true,
        event: {
          type: 'command_result',
          conversationId: topConversationId,
          payload: body,
          command: commandFromWire(body),
        },
      };
    }
    default:
      return { ok: false, bad: { reason: 'unknown_event', line: preview(line), value } };
  }
  return { ok: false, bad: { reason: 'malformed_event', line: preview(line), value } };
}
