// The stdout reader that reads a text delta from the template of the one before it
// (src/connection/agy/stream-json/event-reader.ts) must say exactly what `parseEvent` says of every line: on every
// real agy capture (../shared/fixtures/agy-real/, docs/reference/stream-json.md#envelope), and on deltas of any
// text, valid JSON or not, sent in the captured shape.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventReader, lineEvent } from '../../../../src/connection/agy/stream-json/event-reader.js';
import {
  type BadLine,
  type ParsedEvent,
  parseEvent,
} from '../../../../src/connection/agy/stream-json/parse-line.js';
import type { Step } from '../../../../src/model/step.js';
import {
  captureRawLines,
  HAVE_CAPTURES,
  LB,
  NO_CAPTURES_REASON,
  stdoutFilesOnDisk,
} from '../../../helpers/captures.js';

// agy-real/littlebearapps-untether-agy-1.3.1/subagent.script: consecutive text deltas of one step, verbatim.
const CONVERSATION = '4054c80b-4ccb-486c-bb7d-0e951ef13f13';
const delta = (text: string, index = 3): string =>
  `{"event":"step_update","step_update":{"conversation_id":"${CONVERSATION}","step_index":${index},"state":"ACTIVE","step_type":"agent_response","text_delta":${JSON.stringify(text)}}}`;
/** The same line with raw text (possibly not a JSON string body) between the quotes. */
const rawDelta = (body: string): string =>
  `{"event":"step_update","step_update":{"conversation_id":"${CONVERSATION}","step_index":3,"state":"ACTIVE","step_type":"agent_response","text_delta":"${body}"}}`;

/** The step of a step event; throws on anything else. */
function stepOf(event: ParsedEvent | BadLine): Step {
  if (!('type' in event) || event.type !== 'step') throw new Error(`not a step: ${JSON.stringify(event)}`);
  return event.step;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('EventReader', () => {
  it.skipIf(!HAVE_CAPTURES)('says what parseEvent says of every line of every real capture', () => {
    if (!HAVE_CAPTURES) throw new Error(NO_CAPTURES_REASON);
    const files = stdoutFilesOnDisk();
    expect(files.length).toBeGreaterThan(20);
    let lines = 0;
    for (const file of files) {
      const reader = new EventReader();
      for (const line of captureRawLines(file)) {
        lines++;
        expect(reader.read(line), `${file}: ${line.slice(0, 120)}`).toEqual(parseEvent(line));
      }
    }
    expect(lines).toBeGreaterThan(200);
  });

  it.skipIf(!HAVE_CAPTURES)('reads the captured deltas of one step from a template, without a parse', () => {
    const lines = captureRawLines(`${LB}/subagent.script`).filter((l) => l.includes(`"step_index":3,`));
    const deltas = lines.filter((l) => l.includes('"state":"ACTIVE"') && l.includes('"text_delta"'));
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    const reader = new EventReader();
    reader.read(deltas[0] as string);
    const parse = vi.spyOn(JSON, 'parse');
    const steps = deltas.slice(1).map((l) => reader.read(l));
    expect(parse).not.toHaveBeenCalled();
    expect(steps).toEqual(deltas.slice(1).map((l) => parseEvent(l)));
  });

  it('any text in the delta, escaped, broken or changing the shape: the same event or bad line as a full parse', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom(
        '"',
        '\\',
        '\\"',
        '\\u00e9',
        '\\ud83c',
        '\\x',
        '\u0001',
        '\u2028',
        '","step_index":9,"x":"',
      ),
    );
    fc.assert(
      fc.property(fc.array(fc.array(piece, { maxLength: 4 }), { minLength: 1, maxLength: 12 }), (bodies) => {
        const reader = new EventReader();
        reader.read(delta('first'));
        for (const body of bodies) {
          const line = rawDelta(body.join(''));
          expect(reader.read(line)).toEqual(parseEvent(line));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a line that differs outside the string (another step, a done update with usage) is parsed in full', () => {
    const reader = new EventReader();
    reader.read(delta('a'));
    const parse = vi.spyOn(JSON, 'parse');
    const other = [
      delta('b', 4),
      delta('c', 3).replace('"ACTIVE"', '"DONE"'),
      delta('d').replace('}}', ',"usage":{"input_tokens":1,"output_tokens":2}}}'),
      `${delta('e')} `,
    ];
    for (const line of other) expect(reader.read(line)).toEqual(parseEvent(line));
    // Each was parsed (and the probe of the new templates: step 4's, then step 3's DONE one).
    expect(parse.mock.calls.length).toBeGreaterThanOrEqual(other.length);
    expect(parse.mock.calls.some(([text]) => text === other[0])).toBe(true);
  });

  it('hands out steps that share no object: a consumer changing one changes no later one', () => {
    const reader = new EventReader();
    const first = stepOf(reader.read(delta('one')));
    const second = stepOf(reader.read(delta('two')));
    (first.raw as Record<string, unknown>).state = 'CHANGED';
    first.repeat = true;
    (second.raw as Record<string, unknown>).step_index = 99;
    const third = reader.read(delta('three'));
    expect(third).toEqual(parseEvent(delta('three')));
    expect(stepOf(third).raw).not.toBe(second.raw);
    expect(stepOf(third).repeat).toBeUndefined();
  });

  it('makes no template of a payload holding an object (it would be shared by every step read from it)', () => {
    const nested = (text: string): string =>
      delta(text).replace('"state":"ACTIVE"', '"state":"ACTIVE","meta":{"k":1}');
    const reader = new EventReader();
    reader.read(nested('a'));
    const parse = vi.spyOn(JSON, 'parse');
    const got = reader.read(nested('b'));
    expect(parse).toHaveBeenCalledWith(nested('b'));
    expect(got).toEqual(parseEvent(nested('b')));
  });

  it('an envelope-only conversation id is kept on steps read from the template', () => {
    const line = (text: string): string =>
      `{"event":"step_update","conversation_id":"top","step_update":{"step_index":1,"state":"ACTIVE","step_type":"agent_response","text_delta":${JSON.stringify(text)}}}`;
    const reader = new EventReader();
    reader.read(line('a'));
    const parse = vi.spyOn(JSON, 'parse');
    const got = reader.read(line('b'));
    expect(parse).not.toHaveBeenCalled();
    expect(got).toEqual(parseEvent(line('b')));
    expect(got).toMatchObject({ type: 'step', step: { conversationId: 'top', textDelta: 'b' } });
  });

  it('stops making templates for a stream whose every delta differs outside its string', () => {
    const reader = new EventReader();
    const parse = vi.spyOn(JSON, 'parse');
    const n = 40;
    for (let i = 0; i < n; i++) reader.read(delta(`t${i}`, i));
    // One parse per line, plus a probe per template for the first few only.
    expect(parse.mock.calls.length).toBeLessThan(n + 8);
    expect(parse.mock.calls.length).toBeGreaterThanOrEqual(n);
  });

  it.skipIf(!HAVE_CAPTURES)(
    'event() is the stream event of what parseEvent says, carrying the line, on every capture',
    () => {
      if (!HAVE_CAPTURES) throw new Error(NO_CAPTURES_REASON);
      let lines = 0;
      for (const file of stdoutFilesOnDisk()) {
        const reader = new EventReader();
        for (const line of captureRawLines(file)) {
          lines++;
          expect(reader.event(line), `${file}: ${line.slice(0, 120)}`).toEqual(
            lineEvent(parseEvent(line), line),
          );
        }
      }
      expect(lines).toBeGreaterThan(200);
    },
  );

  it('event() reads a delta from the template without a parse, as one step event with its line', () => {
    const reader = new EventReader();
    reader.event(delta('one'));
    const parse = vi.spyOn(JSON, 'parse');
    const got = reader.event(delta('two'));
    expect(parse).not.toHaveBeenCalled();
    expect(got).toEqual({ type: 'step', line: delta('two'), step: stepOf(parseEvent(delta('two'))) });
    expect(reader.event('garbage')).toMatchObject({
      type: 'bad_line',
      line: 'garbage',
      bad: { reason: 'not_json' },
    });
  });
});
