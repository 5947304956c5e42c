/**
 * `--json-schema` takes inline JSON or a file path. Structured output comes from the scenario, from the turn's
 * text when it is JSON, or else is generated from the schema ({@link valueFromSchema}), so the default script
 * answers a schema too.
 */
import { readFileSync } from 'node:fs';
import { numberValue, stringValue } from './schema-values.js';

/** An unusable `--json-schema`: reported on stderr, exit 1 (a pre-turn failure). */
export class JsonSchemaError extends Error {}

/**
 * Reads and parses the schema.
 *
 * @throws JsonSchemaError when the file cannot be read or the text is not a JSON object.
 */
export function loadJsonSchema(value: string): object {
  const trimmed = value.trim();
  let text = trimmed;
  if (!trimmed.startsWith('{')) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (err) {
      throw new JsonSchemaError(`invalid --json-schema: cannot read ${value}: ${(err as Error).message}`);
    }
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    throw new JsonSchemaError(`invalid --json-schema: ${(err as Error).message}`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new JsonSchemaError('invalid --json-schema: the schema must be a JSON object');
  }
  return schema;
}

/**
 * A value that matches a JSON Schema (the common keywords: `const`, `enum`, `default`, `examples`, `type`,
 * `properties`, `items`/`minItems`, `anyOf`/`oneOf`/`allOf`, string and number bounds, `format`), shaped like what
 * a model sends: an enum's first value, small numbers within the bounds, strings from the schema's examples,
 * the property's name or its description (schema-values.ts); `null` when nothing is said. `name` is the
 * property the schema is for.
 */
export function valueFromSchema(schema: unknown, depth = 0, name?: string): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 16) return null;
  const s = schema as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('default' in s) return s.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = s[key];
    if (Array.isArray(list) && list.length > 0) return valueFromSchema(list[0], depth + 1, name);
  }
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part) => valueFromSchema(part, depth + 1, name) ?? {}));
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const props = (typeof s.properties === 'object' && s.properties) || {};
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props)) out[key] = valueFromSchema(sub, depth + 1, key);
      return out;
    }
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 1;
      return Array.from({ length: n }, () => valueFromSchema(s.items, depth + 1, name));
    }
    case 'string':
      return stringValue(s, name);
    case 'integer':
    case 'number':
      return numberValue(s, type === 'integer');
    case 'boolean':
      return true;
    default:
      return null;
  }
}
