/**
 * OTLP/JSON traces built by hand for `show`'s hostile-input tests: the shape the OpenTelemetry SDK's JSON
 * serializer writes (`{"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}`, 64-bit integers as decimal strings),
 * with the SDK's turn and step attributes (src/telemetry/attributes.ts).
 */

/** One span as written in the file (fields may be made wrong on purpose). */
export type RawSpan = Record<string, unknown>;

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

/** A turn span (`agy_sdk.turn.status`). */
export function turnSpan(spanId: string, parentSpanId?: string): RawSpan {
  return {
    traceId: 't1',
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name: 'invoke_agent',
    startTimeUnixNano: '1000000000',
    endTimeUnixNano: '9000000000',
    attributes: [str('agy_sdk.turn.status', 'success'), str('gen_ai.input.messages', 'hello')],
    status: { code: 1 },
  };
}

/** A `chat` step span under `parentSpanId`, starting `i` ms after the turn. */
export function chatSpan(spanId: string, parentSpanId: string, i = 0): RawSpan {
  return {
    traceId: 't1',
    spanId,
    parentSpanId,
    name: 'chat',
    startTimeUnixNano: String(1_000_000_000 + i * 1_000_000),
    endTimeUnixNano: String(1_000_000_000 + (i + 1) * 1_000_000),
    attributes: [
      str('gen_ai.operation.name', 'chat'),
      int('agy_sdk.step.index', i),
      int('gen_ai.usage.input_tokens', 1),
      int('gen_ai.usage.output_tokens', 1),
    ],
  };
}

/** The file text of a trace holding `spans`. */
export function traceText(spans: readonly RawSpan[]): string {
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
}

/** A chat step with only what makes it one (ids, times, the operation): the smallest well-formed step. */
function leanSpan(spanId: string, parentSpanId: string, i: number): RawSpan {
  const t = String(1_000_000_000 + i * 1_000_000);
  return {
    traceId: 't1',
    spanId,
    parentSpanId,
    name: 'chat',
    startTimeUnixNano: t,
    endTimeUnixNano: t,
    attributes: [str('gen_ai.operation.name', 'chat')],
  };
}

/** A turn and `n - 1` lean chat steps directly under it. */
export function wideTrace(n: number): string {
  const spans: RawSpan[] = [turnSpan('turn')];
  for (let i = 1; i < n; i++) spans.push(leanSpan(`s${i}`, 'turn', i));
  return traceText(spans);
}

/** A turn and `n - 1` chat spans each the parent of the next: a chain `n` deep. */
export function deepTrace(n: number): string {
  const spans: RawSpan[] = [turnSpan('s0')];
  for (let i = 1; i < n; i++) spans.push(leanSpan(`s${i}`, `s${i - 1}`, i));
  return traceText(spans);
}

/**
 * A turn over 30 levels of two spans sharing one id, each level's pair the children of the id above: walking
 * descendants by id visits 2^30 paths.
 */
export function sharedIdTrace(levels = 30): string {
  const spans: RawSpan[] = [turnSpan('L0')];
  for (let l = 1; l <= levels; l++)
    for (let k = 0; k < 2; k++) spans.push(chatSpan(`L${l}`, `L${l - 1}`, l * 2 + k));
  return traceText(spans);
}
