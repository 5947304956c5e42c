/**
 * Reading a delta event without parsing it. A stream's delta events differ, one from the next, in one string
 * only: a provider's Chat chunk (`{"id":"…","model":"…","choices":[{"index":0,"delta":{"content":"<delta>"}}]}`),
 * agy's text delta (`{"event":"step_update","step_update":{…,"step_index":3,"state":"ACTIVE",…,"text_delta":
 * "<delta>"}}`). `JSON.parse` of the whole event was half of the gateway's Chat translation CPU on the xAI
 * recording, and most of agy's stdout reader's. A template is an event parsed in full, cut around that one
 * string token: a later event that starts with the same prefix and ends with the same suffix, byte for byte,
 * and has a valid JSON string body between them, is the same JSON text but for that string token, so its parse
 * is the template's with that one field changed. Where the token sits is proven once, when the template is
 * made: the prefix and suffix around a probe string must parse with the probe in the expected field (an escaped
 * key, a duplicate key or the pattern in another object fails the proof). Used by the gateway's Chat
 * translator and agy's stdout reader (`connection/agy/stream-json/event-reader.ts`).
 */

/** An event cut around one string value. */
export interface DeltaTemplate {
  /** The event's text up to and including the value's opening quote. */
  readonly prefix: string;
  /** The event's text from the value's closing quote on. */
  readonly suffix: string;
}

/** A JSON string body, as a JSON-escaped probe: a value no provider sends. */
const PROBE = '\\u0000agy-delta-probe';
const PROBE_VALUE = '\u0000agy-delta-probe';

/**
 * What a string body may not contain to be its own value: a quote or a backslash (an escape or the end of the
 * token) or a control character (invalid in JSON, where the full parse would reject the event).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what makes a body invalid JSON.
const NOT_PLAIN = /["\\\u0000-\u001f]/;

/** The index of the quote that closes the JSON string whose body starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) return i;
    if (c === 92) i++;
  }
  return -1;
}

/**
 * A template of `data` around the string value of `key`, when `data` has exactly one `"key":"` and `field`
 * (reading the parsed event) finds that value; otherwise undefined.
 */
export function deltaTemplate(
  data: string,
  key: string,
  field: (parsed: unknown) => unknown,
): DeltaTemplate | undefined {
  const pattern = `"${key}":"`;
  const at = data.indexOf(pattern);
  if (at < 0 || data.indexOf(pattern, at + 1) >= 0) return undefined;
  const start = at + pattern.length;
  const end = closingQuote(data, start);
  if (end < 0) return undefined;
  const prefix = data.slice(0, start);
  const suffix = data.slice(end);
  let probed: unknown;
  try {
    probed = field(JSON.parse(`${prefix}${PROBE}${suffix}`));
  } catch {
    return undefined;
  }
  return probed === PROBE_VALUE ? { prefix, suffix } : undefined;
}

/**
 * The value of the template's field in `data`, when `data` is the template's text with another valid string
 * token in its place; otherwise undefined (the caller parses `data` in full).
 */
export function matchDelta(template: DeltaTemplate, data: string): string | undefined {
  const { prefix, suffix } = template;
  const end = data.length - suffix.length;
  // Slices compared with `===`, not `startsWith`/`endsWith`: on Node 20 those cost about 1 µs on a 150-character
  // prefix of a sliced string, half the translation's CPU (measured on the xAI recording); these about 0.1 µs.
  if (end < prefix.length || data.slice(0, prefix.length) !== prefix || data.slice(end) !== suffix) {
    return undefined;
  }
  const body = data.slice(prefix.length, end);
  if (!NOT_PLAIN.test(body)) return body;
  // Escapes: the body is a string token's body only if it parses as one on its own (an unescaped quote, a
  // trailing backslash or a control character does not).
  try {
    const value: unknown = JSON.parse(`"${body}"`);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
