// The schema canonicalizer and per-upstream sanitizers on the checklist shapes
// (docs/reference/gateway-checklist.md#request-translator-invariants): the SDK's Gemini `parameters` with
// upper-case types and `nullable` (gemini-cli-0.61/sdk-requests.json), Gemini CLI's upper-case
// `responseJsonSchema` (cli-requests.json), an MCP-style schema with `$ref/$defs` (recursive too), a
// top-level `anyOf` (rejected by Anthropic), an array without `items` (rejected by OpenAI).
import { describe, expect, it } from 'vitest';
import { canonicalizeSchema } from '../../../src/gateway/schema/canonicalize.js';
import { sanitizeForAnthropic, sanitizeForOpenAI } from '../../../src/gateway/schema/sanitize.js';

describe('canonicalizeSchema', () => {
  it('lower-cases Gemini types and turns nullable into a null type (sdk-requests.json get_time)', () => {
    expect(
      canonicalizeSchema({ type: 'OBJECT', properties: { tz: { type: 'STRING', nullable: true } } }),
    ).toEqual({
      type: 'object',
      properties: { tz: { type: ['string', 'null'] } },
    });
  });

  it("handles Gemini CLI's classifier responseJsonSchema (cli-requests.json #1)", () => {
    const schema = {
      type: 'OBJECT',
      properties: {
        complexity_reasoning: { type: 'STRING', description: 'Brief explanation for the score.' },
        complexity_score: { type: 'INTEGER', description: 'Complexity score from 1-100.' },
      },
      required: ['complexity_reasoning', 'complexity_score'],
    };
    const out = canonicalizeSchema(schema) as { type: string; properties: Record<string, { type: string }> };
    expect(out.type).toBe('object');
    expect(out.properties.complexity_score?.type).toBe('integer');
  });

  it('converts numeric strings, drops propertyOrdering, example and TYPE_UNSPECIFIED', () => {
    expect(
      canonicalizeSchema({
        type: 'ARRAY',
        minItems: '1',
        maxItems: '5',
        items: { type: 'TYPE_UNSPECIFIED', example: 1 },
        propertyOrdering: ['a'],
      }),
    ).toEqual({ type: 'array', minItems: 1, maxItems: 5, items: {} });
  });

  it('inlines $ref/$defs and breaks cycles', () => {
    const mcp = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' }, when: { $ref: '#/definitions/Date' } },
      $defs: {
        Node: { type: 'object', properties: { value: { type: 'string' }, next: { $ref: '#/$defs/Node' } } },
      },
      definitions: { Date: { type: 'string', format: 'date' } },
    };
    expect(canonicalizeSchema(mcp)).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        node: { type: 'object', properties: { value: { type: 'string' }, next: {} } },
        when: { type: 'string', format: 'date' },
      },
    });
  });

  it('bounds fan-out refs (no exponential blow-up)', () => {
    const defs: Record<string, unknown> = { D0: { type: 'string' } };
    for (let i = 1; i < 40; i++)
      defs[`D${i}`] = { anyOf: [{ $ref: `#/$defs/D${i - 1}` }, { $ref: `#/$defs/D${i - 1}` }] };
    const out = canonicalizeSchema({ $ref: '#/$defs/D39', $defs: defs });
    expect(JSON.stringify(out).length).toBeLessThan(200_000);
  });
});

describe('sanitizers', () => {
  it('Anthropic: no top-level anyOf; branches merged into optional properties', () => {
    const out = sanitizeForAnthropic({
      anyOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'c'] },
        { type: 'object', properties: { b: { type: 'number' } }, required: ['c'] },
      ],
    });
    expect(out.anyOf).toBeUndefined();
    expect(out.type).toBe('object');
    expect(out.properties).toEqual({ a: { type: 'string' }, b: { type: 'number' } });
    expect(out.required).toEqual(['c']);
    expect(out.description).toMatch(/alternative shapes/);
  });

  it('OpenAI: arrays get items at any depth, the root becomes an object, $schema stripped', () => {
    const out = sanitizeForOpenAI({
      $schema: 'x',
      properties: {
        list: { type: 'array' },
        deep: { type: 'object', properties: { l: { type: ['array', 'null'] } } },
      },
    });
    expect(out).toEqual({
      type: 'object',
      properties: {
        list: { type: 'array', items: {} },
        deep: { type: 'object', properties: { l: { type: ['array', 'null'], items: {} } } },
      },
    });
    expect(sanitizeForOpenAI({ type: 'string' })).toEqual({ type: 'object', properties: {} });
  });
});
