// The translation's hot path, cut for CPU (issue 20), must say exactly what the slow path said:
// - the shape check compiled from each wire schema (src/gateway/upstream/shape-check.ts) accepts a value only
//   when it already is its strict zod parse, and the reader gives what zod gives, on the recorded events of
//   every provider (test/fixtures/upstream-providers/, sources in its README) and on mutations of them;
// - the hand-framed text and thought chunks of StreamingSink are byte for byte `frameSse(wrap([part]))`
//   (docs/reference/gemini-api.md#sse-framing, U+2028/2029 escaped);
// - the line measure of the SSE decoder counts the same with `\n` and `\r\n` line ends
//   (docs/reference/gateway-translation.md#reading-upstream-events).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamingSink } from '../../src/gateway/gemini-sink.js';
import { frameSse, type SseWriter } from '../../src/gateway/sse-writer.js';
import { compileShapeCheck } from '../../src/gateway/upstream/shape-check.js';
import { createSseDecoder, UpstreamTooLargeError } from '../../src/gateway/upstream/sse-parse.js';
import { createWireReader, WIRE_SCHEMAS, type WireKind } from '../../src/gateway/upstream/wire.js';
import { cassetteBodies, chunkEvents, ssePayloads } from '../helpers/gateway/provider-recordings.js';

const RECORDED: Record<WireKind, Record<string, unknown>[]> = {
  chatChunk: [
    'deepseek/deepseek-reasoning.chunks.txt',
    'groq/groq-reasoning.chunks.txt',
    'mistral/mistral-reasoning.chunks.txt',
    'xai-native/xai-tool-call.chunks.txt',
    'xai/xai-text.chunks.txt',
    'xai/xai-tool-call.chunks.txt',
  ]
    .flatMap(chunkEvents)
    .concat(
      ['openrouter/test_openrouter_streaming_reasoning.yaml', 'openrouter/test_openrouter_stream_error.yaml']
        .flatMap((f) => cassetteBodies(f))
        .flatMap(ssePayloads),
    ),
  responsesEvent: [
    'azure/azure-reasoning-encrypted-content.1.chunks.txt',
    'lmstudio/lmstudio-tool-call.1.chunks.txt',
    'openai/openai-error.1.chunks.txt',
    'openai/openai-reasoning-encrypted-content.1.chunks.txt',
  ].flatMap(chunkEvents),
  anthropicEvent: [
    'anthropic/test_anthropic_model_thinking_part_stream.yaml',
    'anthropic/test_anthropic_model_thinking_part_redacted_stream.yaml',
  ]
    .flatMap((f) => cassetteBodies(f))
    .flatMap(ssePayloads),
};
const KINDS = Object.keys(RECORDED) as WireKind[];
const SHAPES = Object.fromEntries(KINDS.map((k) => [k, compileShapeCheck(WIRE_SCHEMAS.strict[k])])) as Record<
  WireKind,
  (v: unknown) => boolean
>;

/** What the reader returned before the shape check: zod's strict parse, else its tolerant one. */
function zodRead(kind: WireKind, value: unknown): unknown {
  const strict = WIRE_SCHEMAS.strict[kind].safeParse(value);
  if (strict.success) return strict.data;
  const tolerant = WIRE_SCHEMAS.tolerant[kind].safeParse(value);
  return tolerant.success ? tolerant.data : undefined;
}

/** Every path to a value inside `root` (objects and arrays), the root itself excluded. */
function paths(root: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof root !== 'object' || root === null) return [];
  const keys: (string | number)[] = Array.isArray(root) ? root.map((_, i) => i) : Object.keys(root);
  return keys.flatMap((k) => [
    [...at, k],
    ...paths((root as Record<string | number, unknown>)[k], [...at, k]),
  ]);
}

/** `root` with the value at `path` replaced (`undefined`: the key removed). */
function mutate(root: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(root);
  let node = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

describe('wire shape checks', () => {
  it('every recorded event of every provider takes the fast path, and reads as zod reads it', () => {
    for (const kind of KINDS) {
      expect(RECORDED[kind].length).toBeGreaterThan(5);
      const read = createWireReader();
      for (const event of RECORDED[kind]) {
        expect(SHAPES[kind](event), `${kind}: ${JSON.stringify(event).slice(0, 120)}`).toBe(true);
        expect(read(kind, event)).toEqual(zodRead(kind, event));
      }
    }
  });

  it('on recorded events with one value changed anywhere, a passing shape check means zod parses it to the same value, and the reader always agrees with zod', () => {
    const replacement = fc.oneof(
      fc.constantFrom(undefined, null, 0, -1.5, '', 'x', true, [], {}, [1, 'a'], { type: 'text' }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.nat(),
        fc.nat(),
        fc.array(replacement, { minLength: 1, maxLength: 3 }),
        (kind, pick, where, values) => {
          const events = RECORDED[kind];
          let value: unknown = events[pick % events.length];
          for (const [i, v] of values.entries()) {
            const all = paths(value);
            if (all.length === 0) break;
            value = mutate(value, all[(where + i * 7) % all.length] as (string | number)[], v);
          }
          if (SHAPES[kind](value)) {
            const strict = WIRE_SCHEMAS.strict[kind].safeParse(value);
            expect(strict.success).toBe(true);
            expect(strict.data).toEqual(value);
          }
          expect(createWireReader()(kind, value)).toEqual(zodRead(kind, value));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a refinement, a stripping object or a transform compiles to "never": such values always go through zod', async () => {
    const { z } = await import('zod/v4');
    expect(compileShapeCheck(z.string().min(2))('abc')).toBe(false);
    expect(compileShapeCheck(z.object({ a: z.string() }))({ a: 'x' })).toBe(false);
    expect(compileShapeCheck(z.looseObject({ a: z.string().transform((s) => s.length) }))({ a: 'x' })).toBe(
      false,
    );
    expect(compileShapeCheck(z.looseObject({ a: z.string() }))({ a: 'x', b: 1 })).toBe(true);
    expect(compileShapeCheck(z.number())(Number.NaN)).toBe(false);
  });

  it('an object with an own __proto__ key goes through zod (which does not keep it): found by the property above', async () => {
    const { z } = await import('zod/v4');
    const schema = z.looseObject({ type: z.string(), content_block: z.looseObject({}).optional() });
    const value = JSON.parse('{"type":"content_block_start","content_block":{"__proto__":[]}}');
    expect(schema.parse(value)).not.toEqual(value);
    expect(compileShapeCheck(schema)(value)).toBe(false);
    expect(compileShapeCheck(schema)(JSON.parse('{"type":"content_block_start","content_block":{}}'))).toBe(
      true,
    );
  });
});

/** A writer that keeps what it is given, and a sink on it. */
function capture(): { sink: StreamingSink; frames: string[] } {
  const frames: string[] = [];
  const writer = {
    write: (chunk: unknown) => frames.push(frameSse(chunk)),
    writeJson: (json: string) => frames.push(`data: ${json}\r\n\r\n`),
  } as unknown as SseWriter;
  return { sink: new StreamingSink(writer), frames };
}

describe('hand-framed text and thought chunks', () => {
  it('are byte for byte the framing of the whole chunk object, whatever the text, signature, model and id', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1 }),
      fc.string({ unit: 'binary', minLength: 1 }),
      fc.constantFrom('\u2028', 'a\u2029b', '"\\\n\r\t', '😀', '\u0000'),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            kind: fc.constantFrom('text', 'thought'),
            text,
            signature: fc.option(text, { nil: undefined }),
            model: fc.option(text, { nil: undefined }),
            id: fc.option(text, { nil: undefined }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        (events) => {
          const { sink, frames } = capture();
          const expected: string[] = [];
          let model: string | undefined;
          let id: string | undefined;
          for (const e of events) {
            sink.meta(e.model, e.id);
            model = e.model || model;
            id = e.id || id;
            const part =
              e.kind === 'thought'
                ? { text: e.text, thought: true }
                : e.signature
                  ? { text: e.text, thoughtSignature: e.signature }
                  : { text: e.text };
            if (e.kind === 'thought') sink.thought(e.text);
            else sink.text(e.text, e.signature);
            const chunk: Record<string, unknown> = {
              candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }],
            };
            if (model !== undefined) chunk.modelVersion = model;
            if (id !== undefined) chunk.responseId = id;
            expected.push(frameSse(chunk));
          }
          expect(frames).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('SSE line measure', () => {
  it('counts lines the same with LF and CRLF ends: a line over the cap is refused either way, one under it is not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 8, max: 40 }), fc.nat({ max: 3 }), fc.boolean(), (cap, over, crlf) => {
        const nl = crlf ? '\r\n' : '\n';
        const ok = `data: ${'a'.repeat(Math.max(0, cap - 6))}${nl}${nl}`;
        const seen: string[] = [];
        const decoder = createSseDecoder((_e, d) => seen.push(d), { maxLineChars: cap, maxEventChars: 1e6 });
        decoder.feed(ok);
        expect(seen).toHaveLength(1);
        const long = `data: ${'b'.repeat(cap - 6 + over + 1)}${nl}`;
        expect(() => decoder.feed(long)).toThrow(UpstreamTooLargeError);
      }),
      { numRuns: 200 },
    );
  });
});
