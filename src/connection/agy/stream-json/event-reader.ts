/**
 * agy's stdout lines to events, for one process: {@link parseEvent} with a memory of the last text delta.
 *
 * Most of a turn's lines are text deltas of one step, which differ only in their `text_delta` string
 * (agy-real/joiomi-playbook-plugin-agy-1.2.17/*.stdout, littlebearapps-untether-agy-1.3.1/subagent.script:
 * `{"event":"step_update","step_update":{"conversation_id":"…","step_index":3,"state":"ACTIVE",
 * "step_type":"agent_response","text_delta":"…"}}`). Such a line is read from a template of the one before it
 * (internal/delta-template.ts): the same bytes around another valid string token, so `JSON.parse` of the
 * line would give the template's value with that one field changed, and the step is built from that value
 * without the parse. Every other line, and any line that differs from the template anywhere but inside the
 * string, is parsed in full. The event is the one {@link parseEvent} returns for the same line.
 */

import { type DeltaTemplate, deltaTemplate, matchDelta } from '../../../internal/delta-template.js';
import type { Step } from '../../../model/step.js';
import type { WireStepUpdate } from '../../../protocol/stream-json-wire.js';
import type { AgyLineEvent } from './agy-event.js';
import { stepFromWire } from './normalize.js';
import { type BadLine, isBadLine, type ParsedEvent, parseEvent } from './parse-line.js';

/** Where a template's probe must land: the step's `text_delta`. */
const textDeltaOf = (value: unknown): unknown =>
  (value as { step_update?: { text_delta?: unknown } } | null)?.step_update?.text_delta;

/**
 * Templates made before one must earn its keep: past this many, a new one is made only while the templates so
 * far were each read about as often (a stream whose every line differs stops paying the probe's parse).
 */
const FREE_TEMPLATES = 4;
const HITS_PER_TEMPLATE = 4;

/** Reads one agy process's stdout lines, in order. */
export class EventReader {
  #template: DeltaTemplate | undefined;
  /** The template line's `step_update`, copied (the step handed out may be changed by its consumer). */
  #wire: Record<string, unknown> | undefined;
  /** The template step's conversation id: the fallback of a payload without its own (then the envelope's). */
  #conversationId: string | undefined;
  #templatesMade = 0;
  #templateHits = 0;

  /** The line's event, or the bad-line report; never throws. */
  read(line: string): ParsedEvent | BadLine {
    const step = this.#fromTemplate(line);
    if (step !== undefined) return { type: 'step', step };
    return this.#parse(line);
  }

  /**
   * The line as the stream's {@link AgyLineEvent}, carrying the line; never throws. A delta read from the
   * template builds that one event object (no parse result to wrap).
   */
  event(line: string): AgyLineEvent {
    const step = this.#fromTemplate(line);
    if (step !== undefined) return { type: 'step', line, step };
    return lineEvent(this.#parse(line), line);
  }

  /** The step of a line that matches the template around another text delta, or undefined. */
  #fromTemplate(line: string): Step | undefined {
    const template = this.#template;
    if (template === undefined) return undefined;
    const text = matchDelta(template, line);
    if (text === undefined) return undefined;
    this.#templateHits++;
    const wire = { ...this.#wire, text_delta: text } as WireStepUpdate;
    return stepFromWire(wire, this.#conversationId) as Step;
  }

  #parse(line: string): ParsedEvent | BadLine {
    const parsed = parseEvent(line);
    if (!isBadLine(parsed) && parsed.type === 'step') this.#remember(line, parsed.step);
    return parsed;
  }

  /**
   * Makes `line` the template when its step is a plain text delta: textual, no tool, subagents or usage, and a
   * payload of primitive values only (a shallow copy of it is then a deep one, and no two steps share an
   * object).
   */
  #remember(line: string, step: Step): void {
    // A text delta is a textual step, which never has a `message`.
    if (step.textDelta === undefined || step.tool !== undefined || step.subagents !== undefined) return;
    if (step.usage !== undefined) return;
    if (this.#templatesMade >= FREE_TEMPLATES && this.#templateHits < this.#templatesMade * HITS_PER_TEMPLATE)
      return;
    const wire = step.raw;
    for (const key in wire) {
      const v = wire[key];
      if (typeof v === 'object' && v !== null) return;
    }
    const template = deltaTemplate(line, 'text_delta', textDeltaOf);
    if (template === undefined) return;
    this.#templatesMade++;
    this.#template = template;
    this.#wire = { ...wire };
    // Used only when the payload has no string id of its own, and then the step's id is the envelope's.
    this.#conversationId = step.conversationId;
  }
}

/** A parsed line as the stream's event, carrying the line (a bad line too). */
export function lineEvent(parsed: ParsedEvent | BadLine, line: string): AgyLineEvent {
  if (isBadLine(parsed)) return { type: 'bad_line', line, bad: parsed };
  switch (parsed.type) {
    case 'step':
      return { type: 'step', line, step: parsed.step };
    case 'init':
      return { type: 'init', line, init: parsed.init, raw: parsed.raw };
    case 'result':
      return { type: 'result', line, conversationId: parsed.conversationId, result: parsed.result };
    case 'command_result':
      return {
        type: 'command_result',
        line,
        conversationId: parsed.conversationId,
        payload: parsed.payload,
        command: parsed.command,
      };
  }
}
