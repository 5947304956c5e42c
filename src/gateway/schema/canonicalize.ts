/**
 * Gemini schema dialect → plain JSON Schema (docs/reference/gateway-translation.md#schema-dialects). Tool
 * schemas arrive as Gemini `parameters` (OpenAPI subset: upper-case types, `nullable`, numeric strings for
 * `minItems`…) or as `parametersJsonSchema` (real JSON Schema, but Gemini CLI's own `responseJsonSchema`
 * still uses upper-case types). Both go through the same pass, which is idempotent: canonicalizing a
 * canonical schema changes nothing. Local `$ref`s are inlined (`$defs`/`definitions` removed) with a cycle
 * guard, so upstreams that reject or mishandle refs never see one.
 */

/** A JSON Schema object (or a boolean schema). */
export type JsonSchema = { [key: string]: unknown } | boolean;

const NUMERIC_KEYWORDS = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'];
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const ONE_KEYWORDS = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];

/** What `walk` does with a keyword's value; one lookup per key instead of a scan of each list. */
type KeywordKind = 'drop' | 'numeric' | 'map' | 'list' | 'one';
const KEYWORD_KINDS = new Map<string, KeywordKind>([
  ...['$defs', 'definitions', 'propertyOrdering', 'example', 'nullable'].map((k) => [k, 'drop'] as const),
  ...NUMERIC_KEYWORDS.map((k) => [k, 'numeric'] as const),
  ...MAP_KEYWORDS.filter((k) => k !== '$defs' && k !== 'definitions').map((k) => [k, 'map'] as const),
  ...LIST_KEYWORDS.map((k) => [k, 'list'] as const),
  ...ONE_KEYWORDS.map((k) => [k, 'one'] as const),
]);
/** Beyond this depth a schema is cut off: a guard against hostile nesting, far past any real tool. */
const MAX_DEPTH = 64;
/** At most this many `$ref`s are inlined per schema: refs that fan out would otherwise grow exponentially. */
const MAX_INLINES = 500;

interface Budget {
  inlines: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function lowerType(t: unknown): unknown {
  if (typeof t === 'string') return t.toLowerCase();
  if (Array.isArray(t)) return t.map((x) => (typeof x === 'string' ? x.toLowerCase() : x));
  return t;
}

function resolvePointer(root: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const segments = ref
    .slice(1)
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => decodeURIComponent(s).replaceAll('~1', '/').replaceAll('~0', '~'));
  let node: unknown = root;
  for (const seg of segments) {
    if (!isObject(node)) return undefined;
    node = node[seg];
  }
  return node;
}

function walk(
  node: unknown,
  root: Record<string, unknown>,
  expanding: ReadonlySet<string>,
  depth: number,
  budget: Budget,
): unknown {
  if (!isObject(node)) return node;
  if (depth > MAX_DEPTH) return {};
  if (typeof node.$ref === 'string') {
    const ref = node.$ref;
    const target = resolvePointer(root, ref);
    const { $ref: _drop, ...siblings } = node;
    // A ref into itself (a recursive type), an unresolvable or external ref, or one past the inlining budget
    // becomes "any" plus its siblings: the upstream cannot express the recursion anyway.
    if (
      expanding.has(ref) ||
      budget.inlines >= MAX_INLINES ||
      !(isObject(target) || typeof target === 'boolean')
    ) {
      return walk(siblings, root, expanding, depth + 1, budget);
    }
    if (typeof target === 'boolean') return target;
    budget.inlines += 1;
    // The merged node is walked again: the target may itself be a `$ref`.
    return walk({ ...target, ...siblings }, root, new Set([...expanding, ref]), depth + 1, budget);
  }
  const source = node;
  const stack = expanding;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    const kind = KEYWORD_KINDS.get(key);
    if (kind === 'drop') continue;
    if (key === 'type') {
      const t = lowerType(value);
      if (t === 'type_unspecified') continue;
      out.type = t;
    } else if (key === 'format' && value === 'enum') {
    } else if (kind === 'numeric' && typeof value === 'string' && /^\d+$/.test(value)) {
      out[key] = Number(value);
    } else if (kind === 'map' && isObject(value)) {
      const map: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) map[k] = walk(v, root, stack, depth + 1, budget);
      out[key] = map;
    } else if (kind === 'list' && Array.isArray(value)) {
      out[key] = value.map((v) => walk(v, root, stack, depth + 1, budget));
    } else if (key === 'items') {
      out.items = Array.isArray(value)
        ? value.map((v) => walk(v, root, stack, depth + 1, budget))
        : walk(value, root, stack, depth + 1, budget);
    } else if (kind === 'one' && (isObject(value) || typeof value === 'boolean')) {
      out[key] = walk(value, root, stack, depth + 1, budget);
    } else {
      out[key] = value;
    }
  }
  if (source.nullable === true) {
    if (typeof out.type === 'string') out.type = out.type === 'null' ? 'null' : [out.type, 'null'];
    else if (Array.isArray(out.type)) {
      if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    } else if (Array.isArray(out.anyOf)) {
      if (!out.anyOf.some((s) => isObject(s) && s.type === 'null'))
        out.anyOf = [...out.anyOf, { type: 'null' }];
    }
  }
  return out;
}

/** Canonicalizes a Gemini or JSON Schema into plain, ref-free JSON Schema. Never throws. */
export function canonicalizeSchema(schema: unknown): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  if (!isObject(schema)) return {};
  return walk(schema, schema, new Set(), 0, { inlines: 0 }) as JsonSchema;
}

/** Visits every sub-schema (the node itself included), allowing in-place edits. */
export function visitSchemas(
  node: unknown,
  visit: (schema: Record<string, unknown>) => void,
  depth = 0,
): void {
  if (!isObject(node) || depth > MAX_DEPTH) return;
  visit(node);
  for (const key of MAP_KEYWORDS) {
    const map = node[key];
    if (isObject(map)) for (const v of Object.values(map)) visitSchemas(v, visit, depth + 1);
  }
  for (const key of LIST_KEYWORDS) {
    const list = node[key];
    if (Array.isArray(list)) for (const v of list) visitSchemas(v, visit, depth + 1);
  }
  const items = node.items;
  if (Array.isArray(items)) for (const v of items) visitSchemas(v, visit, depth + 1);
  else visitSchemas(items, visit, depth + 1);
  for (const key of ONE_KEYWORDS) visitSchemas(node[key], visit, depth + 1);
}
