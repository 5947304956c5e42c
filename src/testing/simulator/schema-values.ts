/**
 * The leaf values {@link valueFromSchema} (json-schema.ts) generates, shaped like what a model sends for a
 * schema: the schema's own `examples` or an example its description gives (`e.g. "Lisbon"`), else words from
 * the property's name or its description (`file_path` → `file path`), a well-formed value for a known `format`,
 * and small numbers within the bounds (not `Number.MIN_SAFE_INTEGER`, the lower bound zod writes for an `int()`).
 */

/** Well-formed values for the string formats a tool schema commonly names. */
const FORMATS: Readonly<Record<string, string>> = {
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  date: '2026-01-15',
  'date-time': '2026-01-15T09:30:00Z',
  time: '09:30:00',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

/** Words of a name: `file_path`, `filePath`, `file-path` → `file path`. */
function nameWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** Filler words a model would not send as a value. */
const FILLER = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'for',
  'in',
  'on',
  'and',
  'or',
  'is',
  'be',
  'that',
  'this',
]);

/** The example a description gives (`e.g. "Lisbon"`, `for example: main.ts`), else its first content words. */
function descriptionWords(description: string): string | undefined {
  const example =
    /(?:e\.g\.|for example|such as|example)[,:]?\s+(?:"([^"]+)"|'([^']+)'|`([^`]+)`|([^\s,;.)]+))/i.exec(
      description,
    );
  const given = example?.slice(1).find((g) => g !== undefined);
  if (given) return given;
  const words = (description.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !FILLER.has(w));
  return words.length > 0 ? words.slice(0, 3).join(' ') : undefined;
}

/** The first of the schema's `examples` that `ok` accepts. */
function firstExample(s: Record<string, unknown>, ok: (v: unknown) => boolean): unknown {
  return Array.isArray(s.examples) ? s.examples.find(ok) : undefined;
}

/** A string for `s` under the property `name` (undefined at the top level), within its length bounds. */
export function stringValue(s: Record<string, unknown>, name: string | undefined): string {
  const example = firstExample(s, (v) => typeof v === 'string');
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  const described = typeof s.description === 'string' ? descriptionWords(s.description) : undefined;
  const named = name === undefined ? undefined : nameWords(name) || undefined;
  let text = (example as string | undefined) ?? format ?? named ?? described ?? 'text';
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Number.POSITIVE_INFINITY;
  while (text.length < min) text = `${text} ${text}`;
  return Array.from(text)
    .slice(0, Math.max(min, Math.min(max, text.length)))
    .join('');
}

/** A small number for `s`: 1 where the bounds allow, else the value nearest the lower bound that fits them. */
export function numberValue(s: Record<string, unknown>, integer: boolean): number {
  const example = firstExample(s, (v) => typeof v === 'number' && (!integer || Number.isInteger(v)));
  if (example !== undefined) return example as number;
  const num = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  const [min, max, exMin, exMax] = [s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum].map(num);
  const fits = (v: number): boolean =>
    (min === undefined || v >= min) &&
    (max === undefined || v <= max) &&
    (exMin === undefined || v > exMin) &&
    (exMax === undefined || v < exMax);
  const step = num(s.multipleOf) ?? (integer ? 1 : undefined);
  if (fits(1) && (step === undefined || Number.isInteger(1 / step))) return 1;
  const lower = Math.max(min ?? Number.NEGATIVE_INFINITY, exMin ?? Number.NEGATIVE_INFINITY);
  const upper = Math.min(max ?? Number.POSITIVE_INFINITY, exMax ?? Number.POSITIVE_INFINITY);
  if (step !== undefined && step > 0) {
    // The first multiple of the step above the lower bound; with none, the last one at or below min(1, upper).
    if (!Number.isFinite(lower)) {
      const top = Math.floor(Math.min(1, upper) / step) * step;
      return fits(top) ? top : top - step;
    }
    const first = Math.ceil(lower / step) * step;
    return fits(first) ? first : first + step;
  }
  if (Number.isFinite(lower) && Number.isFinite(upper)) return (lower + upper) / 2;
  return Number.isFinite(lower) ? lower + 1 : upper - 1;
}
