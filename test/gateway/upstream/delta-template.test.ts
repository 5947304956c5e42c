// A delta event read from a template (src/internal/delta-template.ts) must be read exactly as
// `JSON.parse` reads it: the same value when the event is the template's text with another string in its place,
// and "parse it in full" (undefined) for anything else. Events are the xAI recording's
// (test/fixtures/upstream-providers/xai/xai-text.chunks.txt) with arbitrary strings as their deltas.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EmittedCall, GeminiSink } from '../../../src/gateway/gemini-sink.js';
import { parseGenerateContentRequest } from '../../../src/gateway/gemini-types.js';
import { normalizeRequest } from '../../../src/gateway/normalize-request.js';
import { openAIChatUpstream } from '../../../src/gateway/upstream/openai-chat.js';
import { deltaTemplate, matchDelta } from '../../../src/internal/delta-template.js';
import { chunkEvents } from '../../helpers/gateway/provider-recordings.js';

type Chunk = { choices: { delta: Record<string, unknown> }[] };
const field = (p: unknown): unknown => (p as Chunk).choices?.[0]?.delta?.reasoning_content;
const EVENT = chunkEvents('xai/xai-text.chunks.txt')[1] as Chunk;
const raw = (value: string): string =>
  JSON.stringify({ ...EVENT, choices: [{ ...EVENT.choices[0], delta: { reasoning_content: value } }] });

/** What a full parse reads as the delta, or undefined when the text is not JSON. */
function parsed(text: string): unknown {
  try {
    return field(JSON.parse(text));
  } catch {
    return undefined;
  }
}

describe('delta templates', () => {
  const template = deltaTemplate(raw(','), 'reasoning_content', field);

  it('a recorded event makes a template; an event of the same shape reads as JSON.parse reads it', () => {
    expect(template).toBeDefined();
    if (!template) return;
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(matchDelta(template, raw(value))).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it('any text between the prefix and the suffix: the template reads it as JSON.parse does, or not at all', () => {
    if (!template) throw new Error('no template');
    const piece = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"', '\\', '\\"', '\\u00e9', '\\x', '\u0001', '","x":"', '"}],"y":{"z":"', '\\u12'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 5 }), (pieces) => {
        const text = `${template.prefix}${pieces.join('')}${template.suffix}`;
        const got = matchDelta(template, text);
        // Read from the template only when the full parse says the same; else the caller parses in full.
        if (got !== undefined) expect(got).toBe(parsed(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('another shape (a different id, a different field, a truncated event) is not read from the template', () => {
    if (!template) throw new Error('no template');
    expect(matchDelta(template, raw('x').replace('"id":"f', '"id":"g'))).toBeUndefined();
    expect(matchDelta(template, raw('x').replace('reasoning_content', 'content'))).toBeUndefined();
    expect(matchDelta(template, raw('x').slice(0, -1))).toBeUndefined();
    expect(matchDelta(template, template.prefix)).toBeUndefined();
  });

  it('no template where the key is not proven to be the field: a duplicate, an escaped key, another object', () => {
    const one = raw('a');
    const dup = one.replace('"reasoning_content":"a"', '"reasoning_content":"a","reasoning_content":"b"');
    expect(deltaTemplate(dup, 'reasoning_content', field)).toBeUndefined();
    // The escaped key is the field, but the pattern is found in another object.
    const escaped = one
      .replace('"reasoning_content":"a"', '"reasoning\\u005fcontent":"a"')
      .replace('"model":', '"x":{"reasoning_content":"decoy"},"model":');
    expect(parsed(escaped)).toBe('a');
    expect(deltaTemplate(escaped, 'reasoning_content', field)).toBeUndefined();
    expect(
      deltaTemplate(one.replace('reasoning_content', 'content'), 'reasoning_content', field),
    ).toBeUndefined();
  });
});

describe('the Chat translator reading deltas from templates', () => {
  it('says what a full parse of every event says, on the xAI recording with deltas that escape, break or change shape', () => {
    const events = chunkEvents('xai/xai-text.chunks.txt').map((e) => JSON.stringify(e));
    const deltas = fc.array(
      fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0001', '\\u00e9', '","x":"')),
      { minLength: events.length, maxLength: events.length },
    );
    fc.assert(
      fc.property(deltas, (pieces) => {
        // Each reasoning event's delta replaced by raw text (possibly invalid JSON), as an upstream might send.
        const sent = events.map((e, i) =>
          e.replace(/"reasoning_content":"((?:[^"\\]|\\.)*)"/, (_m) => `"reasoning_content":"${pieces[i]}"`),
        );
        const want = sent
          .map((e) => {
            try {
              const d = (JSON.parse(e) as Chunk).choices?.[0]?.delta?.reasoning_content;
              return typeof d === 'string' ? d : '';
            } catch {
              return '';
            }
          })
          .join('');
        const thoughts: string[] = [];
        const sink: GeminiSink = {
          meta() {},
          text() {},
          thought: (t) => thoughts.push(t),
          functionCall(_c: EmittedCall) {},
          finish() {},
          fail() {},
          done: false,
          failed: false,
        };
        const req = normalizeRequest(
          parseGenerateContentRequest({
            contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
            generationConfig: { thinkingConfig: { includeThoughts: true } },
          }),
          'gemini-2.5-flash',
          'grok-3-mini',
        );
        const translator = openAIChatUpstream({
          kind: 'openai-chat',
          baseUrl: 'http://127.0.0.1/v1',
          apiKey: 'k',
        }).createTranslator(req, sink);
        for (const e of sent) translator.event(undefined, e);
        expect(thoughts.join('')).toBe(want);
      }),
      { numRuns: 60 },
    );
  });
});
