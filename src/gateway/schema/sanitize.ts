/**
 * Per-upstream sanitizers, applied to a canonical schema
 * (docs/reference/gateway-translation.md#schema-dialects). Both upstreams want an object at the root;
 * Anthropic rejects `anyOf`/`oneOf`/`allOf` at the top level ("input_schema does not support oneOf, allOf, or
 * anyOf at the top level"); OpenAI rejects arrays without `items`. Each sanitizer is idempotent and returns a
 * copy: its input is never written to.
 */
import { canonicalizeSchema, type JsonSchema, visitSchemas } from './canonicalize.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function hasType(schema: Record<string, unknown>, type: string): boolean {
  const t = schema.type;
  return t === type || (Array.isArray(t) && t.includes(type));
}

/** Merges top-level composition branches into one object schema with optional properties. */
function flattenTopLevel(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema };
  const notes: string[] = [];
  const properties: Record<string, unknown> = isObject(out.properties) ? { ...out.properties } : {};
  let required: string[] = Array.isArray(out.required)
    ? out.required.filter((r) => typeof r === 'string')
    : [];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = out[key];
    if (!Array.isArray(branches)) continue;
    delete out[key];
    const objects = branches.filter(isObject);
    for (const b of objects) {
      if (isObject(b.properties)) for (const [k, v] of Object.entries(b.properties)) properties[k] ??= v;
    }
    if (key === 'allOf') {
      for (const b of objects)
        if (Array.isArray(b.required)) required.push(...b.required.filter((r) => typeof r === 'string'));
    } else if (objects.length > 0) {
      // A property is required only if every alternative requires it; the exact constraint goes into text.
      const sets = objects.map((b) => new Set(Array.isArray(b.required) ? b.required : []));
      const common = [...(sets[0] ?? [])].filter((r) => typeof r === 'string' && sets.every((s) => s.has(r)));
      required.push(...(common as string[]));
      notes.push(
        `Accepts ${key === 'oneOf' ? 'exactly one' : 'any'} of ${objects.length} alternative shapes.`,
      );
    }
  }
  required = [...new Set(required)];
  out.properties = properties;
  if (required.length > 0) out.required = required;
  else delete out.required;
  if (notes.length > 0) {
    const description = typeof out.description === 'string' ? out.description : '';
    const note = notes.join(' ');
    if (!description.includes(note)) out.description = description ? `${description}\n${note}` : note;
  }
  return out;
}

function objectRoot(input: unknown): Record<string, unknown> {
  // The canonical pass builds every schema node anew (what the sanitizers edit); only leaf values such as
  // `enum` or `default` are shared with the input, and nothing here writes to them. A `structuredClone` on top
  // was half the cost of building a Gemini CLI request's upstream body.
  const canonical = canonicalizeSchema(input);
  let root: Record<string, unknown> = isObject(canonical) ? canonical : {};
  delete root.$schema;
  delete root.$id;
  root = flattenTopLevel(root);
  if (!hasType(root, 'object') || Array.isArray(root.type)) root.type = 'object';
  if (!isObject(root.properties)) root.properties = {};
  return root;
}

/** OpenAI Chat / Responses: object root, every array has `items`, no top-level composition. */
export function sanitizeForOpenAI(input: unknown): Record<string, unknown> {
  const root = objectRoot(input);
  visitSchemas(root, (s) => {
    if (hasType(s, 'array') && s.items === undefined) s.items = {};
  });
  return root;
}

/** Anthropic: object root, no top-level `anyOf`/`oneOf`/`allOf`. */
export function sanitizeForAnthropic(input: unknown): Record<string, unknown> {
  return objectRoot(input);
}

/** A response schema (structured output) for OpenAI: canonical, `items` everywhere, refs inlined. */
export function sanitizeResponseSchema(input: unknown): JsonSchema {
  const schema = canonicalizeSchema(input);
  if (!isObject(schema)) return schema;
  delete schema.$schema;
  visitSchemas(schema, (s) => {
    if (hasType(s, 'array') && s.items === undefined) s.items = {};
  });
  return schema;
}
