// The arguments and structured output the simulator generates from a JSON Schema look like what a model sends:
// small numbers within the bounds (never zod's `int()` bound, Number.MIN_SAFE_INTEGER), strings from the
// schema's examples, the property's name or its description (not the word "simulated"), an enum's first value,
// well-formed values for a `format`; every generated value is valid against its schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/v4';
import { valueFromSchema } from '../../../src/testing/simulator/json-schema.js';

// Formats are checked by the exact values below (ajv-formats is not a dependency).
const ajv = new Ajv2020({ strict: false, validateFormats: false });

/** The generated value, checked against its schema. */
function generated(schema: object): unknown {
  const value = valueFromSchema(schema);
  const validate = ajv.compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  return value;
}

describe('valueFromSchema', () => {
  it("a zod tool schema: small integers, the property's words, an enum's first value", () => {
    const schema = z.toJSONSchema(
      z.object({
        city: z.string(),
        count: z.number().int(),
        ratio: z.number(),
        filePath: z.string(),
        branch_name: z.string(),
        mode: z.enum(['fast', 'slow']),
        tags: z.array(z.string()),
        done: z.boolean(),
      }),
    );
    expect(generated(schema)).toEqual({
      city: 'city',
      count: 1,
      ratio: 1,
      filePath: 'file path',
      branch_name: 'branch name',
      mode: 'fast',
      tags: ['tags'],
      done: true,
    });
  });

  it('numbers within their bounds, on their step', () => {
    expect(generated({ type: 'integer', minimum: 3, maximum: 5 })).toBe(3);
    expect(generated({ type: 'integer', maximum: -10 })).toBe(-10);
    expect(generated({ type: 'integer', exclusiveMinimum: 7 })).toBe(8);
    expect(generated({ type: 'integer', minimum: 10, multipleOf: 4 })).toBe(12);
    expect(generated({ type: 'integer', multipleOf: 5 })).toBe(0);
    expect(generated({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.5 })).toBe(0.25);
    expect(generated({ type: 'number', minimum: 0.5, maximum: 0.75 })).toBe(0.625);
    expect(generated({ type: 'number', examples: [42.5] })).toBe(42.5);
  });

  it("strings: the schema's examples, a description's example or words, formats, length bounds", () => {
    const obj = (properties: Record<string, object>) => ({ type: 'object', properties });
    expect(generated(obj({ q: { type: 'string', examples: ['agy sdk'] } }))).toEqual({ q: 'agy sdk' });
    expect(generated({ type: 'string', description: 'Search query, e.g. "weather in Lisbon"' })).toBe(
      'weather in Lisbon',
    );
    expect(generated({ type: 'string', description: 'The name of the branch to check out' })).toBe(
      'name branch check',
    );
    expect(generated({ type: 'string' })).toBe('text');
    expect(generated(obj({ to: { type: 'string', format: 'email' } }))).toEqual({ to: 'user@example.com' });
    expect(generated(obj({ at: { type: 'string', format: 'date-time' } }))).toEqual({
      at: '2026-01-15T09:30:00Z',
    });
    expect(generated(obj({ id: { type: 'string', format: 'uuid' } }))).toEqual({
      id: '123e4567-e89b-42d3-a456-426614174000',
    });
    expect(generated(obj({ code: { type: 'string', maxLength: 3 } }))).toEqual({ code: 'cod' });
    expect(generated(obj({ note: { type: 'string', minLength: 10 } }))).toEqual({
      note: 'note note note note',
    });
  });
});
