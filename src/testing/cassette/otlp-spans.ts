/**
 * Reading the spans of an OTLP/JSON trace file (`{"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}`, one
 * object or one per line) for `agy-sdk show`, with every field the timeline reads checked: the file is
 * untrusted, so a wrong one is a {@link CassetteError} naming the line, the span (its path in the file and its
 * id) and the field, never a crash later. One pass over the spans, linear in their number.
 */

import { INPUT_LIMITS, type InputLimits } from '../../cassette/limits.js';
import { CassetteError } from '../../errors.js';

/** An attribute value as the timeline reads it. */
export type SpanValue = string | number | boolean | undefined;

/** One checked span. */
export interface CheckedSpan {
  /** Its position in the file, 0-based (the order spans were read in). */
  index: number;
  /** Where it is: `<line>: resourceSpans[r].scopeSpans[s].spans[k] (spanId "…")`, for error messages. */
  where: { line: number; path: string };
  /** The trace id. */
  traceId: string;
  /** The span id (unique within its trace). */
  spanId: string;
  /** The parent's span id, if any (an empty string counts as none, as OTLP/JSON writes it). */
  parentSpanId: string | undefined;
  /** The span's name. */
  name: string;
  /** Start and end, in milliseconds since the epoch. */
  startMs: number;
  /** End, in milliseconds since the epoch. */
  endMs: number;
  /** Its attributes (scalar values only; arrays, maps and bytes are left out). */
  attrs: Record<string, SpanValue>;
  /** `status.code` (0 unset, 1 ok, 2 error), if given. */
  statusCode: number | undefined;
  /** `status.message`, if given. */
  statusMessage: string | undefined;
}

/** The attributes the timeline reads as numbers, and those it reads as strings. */
const NUMBER_ATTRS = new Set([
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.reasoning.output_tokens',
  'gen_ai.usage.cache_read.input_tokens',
  'agy_sdk.usage.total_tokens',
  'agy_sdk.usage.cost_usd',
  'agy_sdk.step.index',
]);
const STRING_ATTRS = new Set([
  'agy_sdk.turn.status',
  'gen_ai.operation.name',
  'gen_ai.response.model',
  'gen_ai.request.model',
  'agy_sdk.tool.mcp_server',
]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a text looks like an OTLP/JSON trace (rather than a cassette). */
export function isOtlpTrace(text: string): boolean {
  return /^\s*\{\s*"resourceSpans"/.test(text);
}

/** The JSON documents of the file with their line numbers: one object, or one per non-empty line. */
function documents(text: string, file: string): { line: number; doc: unknown }[] {
  let docs: { line: number; doc: unknown }[];
  try {
    docs = [{ line: 1, doc: JSON.parse(text) as unknown }];
  } catch {
    docs = [];
    for (const [i, l] of text.split('\n').entries()) {
      if (l.trim() === '') continue;
      try {
        docs.push({ line: i + 1, doc: JSON.parse(l) as unknown });
      } catch (err) {
        throw new CassetteError(file, i + 1, 'trace', `is not OTLP/JSON (${(err as Error).message})`);
      }
    }
  }
  // No depth check: only the scalar fields read below are kept (an array or map attribute is dropped), so
  // nothing walks a nested value recursively.
  return docs;
}

/** Every span of an OTLP/JSON trace, checked; throws {@link CassetteError} on the first wrong field. */
export function readSpans(text: string, file = '<text>', limits: InputLimits = INPUT_LIMITS): CheckedSpan[] {
  const spans: CheckedSpan[] = [];
  for (const { line, doc } of documents(text, file)) {
    const list = (value: unknown, path: string): unknown[] => {
      if (value === undefined && path !== 'resourceSpans') return [];
      if (Array.isArray(value)) return value;
      throw new CassetteError(file, line, path, 'must be an array (is this an OTLP/JSON trace?)');
    };
    const resources = list(isObj(doc) ? doc.resourceSpans : undefined, 'resourceSpans');
    for (const [r, rs] of resources.entries()) {
      const rPath = `resourceSpans[${r}]`;
      if (!isObj(rs)) throw new CassetteError(file, line, rPath, 'must be an object');
      for (const [s, ss] of list(rs.scopeSpans, `${rPath}.scopeSpans`).entries()) {
        const sPath = `${rPath}.scopeSpans[${s}]`;
        if (!isObj(ss)) throw new CassetteError(file, line, sPath, 'must be an object');
        for (const [k, span] of list(ss.spans, `${sPath}.spans`).entries()) {
          if (spans.length >= limits.spans)
            throw new CassetteError(
              file,
              line,
              `${sPath}.spans[${k}]`,
              `is past the limit of ${limits.spans} spans per trace`,
            );
          spans.push(checkSpan(span, spans.length, { line, path: `${sPath}.spans[${k}]` }, file));
        }
      }
    }
  }
  return spans;
}

/** Checks one span's fields (those the timeline reads). */
function checkSpan(
  value: unknown,
  index: number,
  at: { line: number; path: string },
  file: string,
): CheckedSpan {
  const id =
    isObj(value) && typeof value.spanId === 'string' ? ` (spanId ${JSON.stringify(value.spanId)})` : '';
  const fail = (field: string, message: string): never => {
    throw new CassetteError(file, at.line, `${at.path}${id}.${field}`, message);
  };
  if (!isObj(value)) return fail('span', 'must be an object');
  const text = (field: string, optional = false): string | undefined => {
    const v = value[field];
    if (v === undefined && optional) return undefined;
    if (typeof v !== 'string') return fail(field, 'must be a string');
    return v;
  };
  const traceId = text('traceId')!;
  const spanId = text('spanId')!;
  if (spanId === '') fail('spanId', 'must not be empty');
  const parentSpanId = text('parentSpanId', true) || undefined;
  if (parentSpanId === spanId) fail('parentSpanId', "is the span's own id (a span cannot be its own parent)");
  const name = text('name')!;
  const status = value.status;
  if (status !== undefined && !isObj(status)) fail('status', 'must be an object { code, message }');
  const code = isObj(status) ? status.code : undefined;
  if (code !== undefined && !Number.isInteger(code)) fail('status.code', 'must be an integer');
  const message = isObj(status) ? status.message : undefined;
  if (message !== undefined && typeof message !== 'string') fail('status.message', 'must be a string');
  return {
    index,
    where: { line: at.line, path: `${at.path}${id}` },
    traceId,
    spanId,
    parentSpanId,
    name,
    startMs: nanosToMs(value.startTimeUnixNano, (m) => fail('startTimeUnixNano', m)),
    endMs: nanosToMs(value.endTimeUnixNano, (m) => fail('endTimeUnixNano', m)),
    attrs: checkAttrs(value.attributes, fail),
    statusCode: code as number | undefined,
    statusMessage: message as string | undefined,
  };
}

/** A time in nanoseconds (a decimal string, as OTLP/JSON writes 64-bit integers, or a number) → ms. */
function nanosToMs(v: unknown, fail: (message: string) => never): number {
  if (typeof v === 'string' && /^\d{1,25}$/.test(v)) return Number(BigInt(v) / 1_000_000n);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return Math.floor(v / 1_000_000);
  return fail('must be a non-negative integer number of nanoseconds (a decimal string or a number)');
}

/** The scalar attributes, the ones the timeline reads checked for their type. */
function checkAttrs(
  list: unknown,
  fail: (field: string, message: string) => never,
): Record<string, SpanValue> {
  const out: Record<string, SpanValue> = {};
  if (list === undefined) return out;
  if (!Array.isArray(list)) return fail('attributes', 'must be an array of { key, value }');
  for (const [i, a] of list.entries()) {
    if (!isObj(a) || typeof a.key !== 'string' || !isObj(a.value))
      return fail(`attributes[${i}]`, 'must be { key: string, value: object }');
    const key = a.key;
    const where = `attributes[${i}] (${JSON.stringify(key)})`;
    const v = scalar(a.value, (m) => fail(where, m));
    if (NUMBER_ATTRS.has(key) && v !== undefined && typeof v !== 'number')
      fail(where, `must be a number, got ${JSON.stringify(v)}`);
    if (STRING_ATTRS.has(key) && v !== undefined && typeof v !== 'string')
      fail(where, `must be a string, got ${JSON.stringify(v)}`);
    out[key] = v;
  }
  return out;
}

/** An OTLP `AnyValue` as a scalar (`undefined` for arrays, maps and bytes, which the timeline does not read). */
function scalar(v: Obj, fail: (message: string) => never): SpanValue {
  if (v.stringValue !== undefined)
    return typeof v.stringValue === 'string' ? v.stringValue : fail('stringValue must be a string');
  if (v.intValue !== undefined) {
    const n = v.intValue;
    if (Number.isInteger(n)) return n as number;
    if (typeof n === 'string' && /^-?\d{1,20}$/.test(n)) return Number(n);
    return fail('intValue must be an integer (a decimal string or a number)');
  }
  if (v.doubleValue !== undefined)
    return typeof v.doubleValue === 'number' ? v.doubleValue : fail('doubleValue must be a number');
  if (v.boolValue !== undefined)
    return typeof v.boolValue === 'boolean' ? v.boolValue : fail('boolValue must be a boolean');
  return undefined;
}
