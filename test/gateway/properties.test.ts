// Property tests (fast-check): the SSE writer's framing always parses with a strict line parser, with the
// @google/genai 1.30 splitter Gemini CLI bundles, and with the real @google/genai client; the schema
// canonicalizer and sanitizers are idempotent and never throw; translation of any valid Gemini request shape
// for every upstream never throws.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGenerateContentRequest } from '../../src/gateway/gemini-types.js';
import { normalizeRequest } from '../../src/gateway/normalize-request.js';
import { canonicalizeSchema, visitSchemas } from '../../src/gateway/schema/canonicalize.js';
import {
  sanitizeForAnthropic,
  sanitizeForOpenAI,
  sanitizeResponseSchema,
} from '../../src/gateway/schema/sanitize.js';
import { packSignature } from '../../src/gateway/signature.js';
import { frameSse } from '../../src/gateway/sse-writer.js';
import { anthropicUpstream } from '../../src/gateway/upstream/anthropic.js';
import { openAIChatUpstream } from '../../src/gateway/upstream/openai-chat.js';
import { openAIResponsesUpstream } from '../../src/gateway/upstream/openai-responses.js';
import { genai130Frames, strictFrames } from '../helpers/gateway/helpers.js';

// Strings that stress framing: newlines, CRs, `data: ` look-alikes, separators, astral characters.
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\n\n',
    '\r\n\r\n',
    'data: x\n\n',
    '\u2028\u2029',
    '[DONE]',
    ': comment',
    'event: x',
    '😀',
    '',
  ),
);

const part = fc.oneof(
  nasty.map((text) => ({ text })),
  fc.record({ text: nasty, thought: fc.constant(true) }),
  fc.record({
    functionCall: fc.record({
      id: nasty,
      name: fc.stringMatching(/^[a-z_]{1,10}$/),
      args: fc.dictionary(nasty, fc.jsonValue()),
    }),
    thoughtSignature: nasty,
  }),
);

const chunk = fc.record({
  candidates: fc.tuple(
    fc.record(
      {
        content: fc.record({ role: fc.constant('model'), parts: fc.array(part, { maxLength: 3 }) }),
        finishReason: fc.constantFrom('STOP', 'MAX_TOKENS'),
        index: fc.constant(0),
      },
      { requiredKeys: ['content', 'index'] },
    ),
  ),
});

describe('SSE writer framing', () => {
  it('always parses with a strict line parser and the genai 1.30 splitter, value for value', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(chunk, fc.jsonValue()), { minLength: 1, maxLength: 8 }), (payloads) => {
        const body = payloads.map((p) => frameSse(p)).join('');
        const expected = payloads.map((p) => JSON.parse(JSON.stringify(p)) as unknown);
        expect(strictFrames(body)).toEqual(expected);
        expect(genai130Frames(body)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('parses with the real @google/genai client, whatever the TCP split', async () => {
    let current: { body: string; cuts: number[] } = { body: '', cuts: [] };
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Cuts at arbitrary byte offsets, multi-byte characters included.
      const bytes = Buffer.from(current.body, 'utf8');
      let at = 0;
      for (const cut of [...current.cuts].sort((a, b) => a - b)) {
        res.write(bytes.subarray(at, cut));
        at = cut;
      }
      res.end(bytes.subarray(at));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new GoogleGenAI({
      apiKey: 'k',
      httpOptions: { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(chunk, { minLength: 1, maxLength: 5 }),
          fc.array(fc.nat(), { maxLength: 6 }),
          async (chunks, rawCuts) => {
            const body = chunks.map((c) => frameSse(c)).join('');
            current = { body, cuts: rawCuts.map((n) => n % Math.max(1, Buffer.byteLength(body))) };
            const seen: unknown[] = [];
            for await (const c of await client.models.generateContentStream({ model: 'm', contents: 'x' })) {
              seen.push(c.candidates?.[0]?.content?.parts ?? []);
            }
            expect(seen).toEqual(
              chunks.map((c) => JSON.parse(JSON.stringify(c.candidates[0].content.parts)) as unknown),
            );
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

// Gemini and JSON Schema shapes, with refs into $defs (cycles included) and upper-case Gemini types.
const schemaLeaf = fc.record(
  {
    type: fc.constantFrom('STRING', 'integer', 'ARRAY', 'object'),
    nullable: fc.boolean(),
    $ref: fc.constantFrom('#/$defs/A', '#/$defs/B', '#'),
  },
  { requiredKeys: [] },
);
const schemaArb = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    schemaLeaf,
    fc.record(
      {
        type: fc.oneof(
          fc.constantFrom(
            'OBJECT',
            'STRING',
            'ARRAY',
            'INTEGER',
            'NUMBER',
            'BOOLEAN',
            'NULL',
            'TYPE_UNSPECIFIED',
          ),
          fc.constantFrom('object', 'string', 'array', 'integer'),
          fc.constant(['STRING', 'NULL']),
        ),
        nullable: fc.boolean(),
        description: fc.string({ maxLength: 8 }),
        properties: fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), tie('schema'), { maxKeys: 3 }),
        items: tie('schema'),
        anyOf: fc.array(tie('schema'), { maxLength: 2 }),
        oneOf: fc.array(tie('schema'), { maxLength: 2 }),
        required: fc.array(fc.stringMatching(/^[a-z]{1,4}$/), { maxLength: 2 }),
        minItems: fc.oneof(fc.nat(5), fc.constant('3')),
        $ref: fc.constantFrom('#/$defs/A', '#/$defs/B', '#/definitions/C', '#', '#/nowhere', 'http://x/y'),
        $defs: fc.record({ A: tie('schema'), B: fc.constant({ $ref: '#/$defs/B' }) }, { requiredKeys: [] }),
        propertyOrdering: fc.constant(['a']),
        example: fc.jsonValue(),
      },
      { requiredKeys: [] },
    ),
  ),
})).schema;

function anySchema(): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: schemaArb }, { weight: 1, arbitrary: fc.jsonValue() });
}

describe('schema canonicalizer', () => {
  it('is idempotent and leaves no refs, defs, nullable or upper-case types', () => {
    fc.assert(
      fc.property(anySchema(), (schema) => {
        const once = canonicalizeSchema(schema);
        expect(canonicalizeSchema(once)).toEqual(once);
        const text = JSON.stringify(once);
        expect(text).not.toMatch(/"\$ref":"#|"\$defs"|"nullable"|"type":"[A-Z]/);
      }),
      { numRuns: 400 },
    );
  });

  it('per-upstream sanitizers are idempotent, meet their upstream rules and never write to their input', () => {
    fc.assert(
      fc.property(anySchema(), (schema) => {
        const before = structuredClone(schema);
        const openai = sanitizeForOpenAI(schema);
        expect(schema).toEqual(before);
        expect(sanitizeForOpenAI(openai)).toEqual(openai);
        expect(openai.type).toBe('object');
        visitSchemas(openai, (s) => {
          const t = s.type;
          if (t === 'array' || (Array.isArray(t) && t.includes('array'))) expect(s.items).toBeDefined();
        });
        const anthropic = sanitizeForAnthropic(schema);
        expect(schema).toEqual(before);
        const response = sanitizeResponseSchema(schema);
        expect(schema).toEqual(before);
        expect(sanitizeResponseSchema(response)).toEqual(response);
        expect(sanitizeForAnthropic(anthropic)).toEqual(anthropic);
        expect(anthropic.type).toBe('object');
        expect(anthropic.anyOf ?? anthropic.oneOf ?? anthropic.allOf).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });
});

const name = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,70}$/);
const signature = fc.oneof(
  fc.constant(undefined),
  fc.constant('skip_thought_signature_validator'),
  fc.string({ maxLength: 10 }),
  fc.constant('gw1.bm90LWpzb24'),
  fc
    .constantFrom('anthropic', 'responses', 'chat')
    .map((p) =>
      packSignature(
        p === 'anthropic'
          ? { v: 1, p, m: 'x', b: [{ type: 'thinking', thinking: 't', signature: 's' }] }
          : p === 'responses'
            ? { v: 1, p, m: 'x', b: [{ type: 'reasoning', summary: [], encrypted_content: 'e' }] }
            : { v: 1, p, m: 'x', b: [{ reasoning_content: 'r' }] },
      ),
    ),
);
const reqPart = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 20 }), thoughtSignature: signature }, { requiredKeys: ['text'] }),
  fc.record({ text: fc.string({ maxLength: 10 }), thought: fc.constant(true) }),
  fc.record({
    inlineData: fc.record({
      mimeType: fc.constantFrom('image/png', 'application/pdf', 'audio/wav', 'video/mp4'),
      data: fc.base64String({ maxLength: 12 }),
    }),
  }),
  fc.record({
    fileData: fc.record({
      mimeType: fc.constantFrom('image/png', 'application/pdf'),
      fileUri: fc.constant('https://example.com/a.png'),
    }),
  }),
  fc.record(
    {
      functionCall: fc.record(
        {
          id: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
          name,
          args: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue()),
        },
        { requiredKeys: ['name'] },
      ),
      thoughtSignature: signature,
    },
    { requiredKeys: ['functionCall'] },
  ),
  fc.record({
    functionResponse: fc.record(
      {
        id: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
        name,
        response: fc.oneof(
          fc.record({ output: fc.string() }),
          fc.record({ error: fc.jsonValue() }),
          fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue()),
        ),
        parts: fc.array(
          fc.record({
            inlineData: fc.record({
              mimeType: fc.constant('image/png'),
              data: fc.base64String({ maxLength: 8 }),
            }),
          }),
          { maxLength: 1 },
        ),
      },
      { requiredKeys: ['name', 'response'] },
    ),
  }),
);
const geminiRequest = fc.record(
  {
    contents: fc.array(
      fc.record({
        role: fc.constantFrom('user', 'model', 'function', undefined),
        parts: fc.array(reqPart, { maxLength: 4 }),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    systemInstruction: fc.record({
      parts: fc.array(fc.record({ text: fc.string({ maxLength: 10 }) }), { maxLength: 2 }),
    }),
    tools: fc.array(
      fc.record({
        functionDeclarations: fc.array(
          fc.record(
            { name, description: fc.string({ maxLength: 10 }), parameters: schemaArb },
            { requiredKeys: ['name'] },
          ),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 2 },
    ),
    toolConfig: fc.record({
      functionCallingConfig: fc.record(
        {
          mode: fc.constantFrom('AUTO', 'ANY', 'NONE', 'VALIDATED'),
          allowedFunctionNames: fc.array(name, { maxLength: 2 }),
        },
        { requiredKeys: [] },
      ),
    }),
    generationConfig: fc.record(
      {
        temperature: fc.double({ min: 0, max: 2, noNaN: true }),
        topP: fc.double({ min: 0, max: 1, noNaN: true }),
        topK: fc.integer({ min: 1, max: 100 }),
        maxOutputTokens: fc.integer({ min: 1, max: 100000 }),
        stopSequences: fc.array(fc.string({ maxLength: 4 }), { maxLength: 5 }),
        responseMimeType: fc.constantFrom('application/json', 'text/plain'),
        responseJsonSchema: schemaArb,
        thinkingConfig: fc.record(
          {
            includeThoughts: fc.boolean(),
            thinkingBudget: fc.integer({ min: -1, max: 40000 }),
            thinkingLevel: fc.constantFrom('MINIMAL', 'LOW', 'HIGH', 'XHIGH'),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['contents'] },
);

/** `value` with every -0 replaced by 0: JSON has one zero. */
function negativeZeroAsZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(negativeZeroAsZero);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, negativeZeroAsZero(v)]));
  return value;
}

describe('request translation', () => {
  it('never throws on a valid Gemini request shape, for any upstream, and yields JSON', () => {
    const upstreams = [
      openAIChatUpstream({ kind: 'openai-chat', baseUrl: 'https://api.openai.com/v1', apiKey: 'k' }),
      openAIResponsesUpstream({
        kind: 'openai-responses',
        baseUrl: 'https://api.openai.com/v1',
        apiKey: 'k',
      }),
      anthropicUpstream({ kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'k' }),
    ];
    fc.assert(
      fc.property(
        geminiRequest,
        fc.constantFrom('gpt-4.1', 'gpt-5', 'claude-sonnet-4-5', 'claude-3-haiku'),
        (request, model) => {
          const parsed = parseGenerateContentRequest(request);
          const hasContent = parsed.contents.some((c) =>
            c.parts.some(
              (p) =>
                p.thought !== true &&
                (p.text !== '' || p.functionCall || p.functionResponse || p.inlineData || p.fileData),
            ),
          );
          let normalized: ReturnType<typeof normalizeRequest>;
          try {
            normalized = normalizeRequest(parsed, 'gemini-x', model);
          } catch (error) {
            // The only refusal a valid shape can meet: nothing left to send after thought parts are dropped.
            expect(hasContent).toBe(false);
            expect((error as { code?: number }).code).toBe(400);
            return;
          }
          for (const u of upstreams) {
            const built = u.buildRequest(normalized);
            // Only JSON values (no undefined, NaN or functions); -0 is written as 0, which is the same JSON number.
            expect(JSON.parse(JSON.stringify(built.body))).toEqual(negativeZeroAsZero(built.body));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('stream translators', () => {
  // Any event sequence, well-formed or not, ends in exactly one terminal sink call and never throws.
  const eventType = fc.constantFrom(
    'message_start',
    'content_block_start',
    'content_block_delta',
    'content_block_stop',
    'message_delta',
    'message_stop',
    'error',
    'ping',
    'response.created',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.output_item.done',
    'response.output_text.delta',
    'response.completed',
    'response.failed',
    'response.incomplete',
  );
  const event = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          type: eventType,
          index: fc.nat(3),
          delta: fc.jsonValue(),
          item: fc.jsonValue(),
          content_block: fc.jsonValue(),
          choices: fc.jsonValue(),
          response: fc.jsonValue(),
          message: fc.jsonValue(),
          usage: fc.jsonValue(),
        },
        { requiredKeys: ['type'] },
      )
      .map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          choices: fc.array(
            fc.record({
              index: fc.nat(1),
              delta: fc.record(
                {
                  content: fc.string(),
                  tool_calls: fc.array(
                    fc.record({
                      index: fc.option(fc.nat(2), { nil: undefined }),
                      id: fc.constantFrom('', 'a', 'b'),
                      function: fc.record({
                        name: fc.string({ maxLength: 3 }),
                        arguments: fc.string({ maxLength: 4 }),
                      }),
                    }),
                  ),
                },
                { requiredKeys: [] },
              ),
              finish_reason: fc.constantFrom(null, 'stop', 'tool_calls', 'length'),
            }),
          ),
          usage: fc.jsonValue(),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc.constantFrom('[DONE]', '', '{'),
  );
  it('never throw and always end the turn exactly once', () => {
    const req = normalizeRequest(
      parseGenerateContentRequest({
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: { thinkingConfig: { includeThoughts: true } },
      }),
      'g',
      'm',
    );
    const upstreams = [
      openAIChatUpstream({ kind: 'openai-chat', baseUrl: 'http://x/v1', apiKey: 'k' }),
      openAIResponsesUpstream({ kind: 'openai-responses', baseUrl: 'http://x/v1', apiKey: 'k' }),
      anthropicUpstream({ kind: 'anthropic', baseUrl: 'http://x', apiKey: 'k' }),
    ];
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), (events) => {
        for (const u of upstreams) {
          let terminal = 0;
          const sink = {
            done: false,
            failed: false,
            meta: () => {},
            text: () => {},
            thought: () => {},
            functionCall: (call: { args: unknown }) => expect(typeof call.args).toBe('object'),
            finish: () => {
              terminal++;
              sink.done = true;
            },
            fail: () => {
              terminal++;
              sink.done = true;
              sink.failed = true;
            },
          };
          const t = u.createTranslator(req, sink);
          for (const data of events) t.event(undefined, data);
          t.end();
          expect(terminal).toBe(1);
        }
      }),
      { numRuns: 400 },
    );
  });
});
