/**
 * A recorded OpenTelemetry trace (OTLP/JSON, as an OTLP file exporter or collector writes it:
 * `{"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}`, one object or one per line) as a timeline: each span
 * with `agy_sdk.turn.status` is a turn, its `chat` and `execute_tool` descendants are its steps (names from
 * src/telemetry/attributes.ts).
 */
import { CassetteError } from '../../errors.js';
import type { Usage } from '../../model/step.js';
import type { TurnStatus } from '../../model/turn-result.js';
import type { Timeline, TimelineStep, TimelineTurn } from './timeline.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
}

type Attrs = Record<string, string | number | boolean | undefined>;

function attrs(span: OtlpSpan): Attrs {
  const out: Attrs = {};
  for (const a of span.attributes ?? []) {
    const v = a.value;
    out[a.key] =
      v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
  }
  return out;
}

const ms = (nanos: string | number): number => Number(BigInt(String(nanos)) / 1_000_000n);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

function usageOf(a: Attrs): Usage | undefined {
  if (a['gen_ai.usage.input_tokens'] === undefined && a['gen_ai.usage.output_tokens'] === undefined)
    return undefined;
  const input = num(a['gen_ai.usage.input_tokens']);
  const output = num(a['gen_ai.usage.output_tokens']);
  return {
    inputTokens: input,
    outputTokens: output,
    thinkingTokens: num(a['gen_ai.usage.reasoning.output_tokens']),
    cacheReadTokens: num(a['gen_ai.usage.cache_read.input_tokens']),
    totalTokens: num(a['agy_sdk.usage.total_tokens']) || input + output,
  } as Usage;
}

function parseJson(text: string, file: string): unknown[] {
  const trimmed = text.trim();
  try {
    return [JSON.parse(trimmed)];
  } catch {
    return trimmed
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l, i) => {
        try {
          return JSON.parse(l) as unknown;
        } catch {
          throw new CassetteError(file, i + 1, 'trace', 'is not OTLP/JSON');
        }
      });
  }
}

/** Whether a text looks like an OTLP/JSON trace (rather than a cassette). */
export function isOtlpTrace(text: string): boolean {
  return text.trimStart().startsWith('{"resourceSpans"') || /^\s*\{\s*"resourceSpans"/.test(text);
}

/** The timeline of an OTLP/JSON trace. */
export function otelTimeline(text: string, file = '<text>'): Timeline {
  const spans: OtlpSpan[] = [];
  for (const doc of parseJson(text, file)) {
    const rs = (doc as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] }).resourceSpans;
    if (!Array.isArray(rs))
      throw new CassetteError(file, 0, 'resourceSpans', 'is missing: not an OTLP/JSON trace');
    for (const r of rs) for (const s of r.scopeSpans ?? []) spans.push(...(s.spans ?? []));
  }
  const byParent = new Map<string, OtlpSpan[]>();
  for (const s of spans) {
    if (!s.parentSpanId) continue;
    const list = byParent.get(s.parentSpanId) ?? [];
    list.push(s);
    byParent.set(s.parentSpanId, list);
  }
  const descendants = (s: OtlpSpan): OtlpSpan[] =>
    (byParent.get(s.spanId) ?? []).flatMap((c) => [c, ...descendants(c)]);
  const t0 = spans.length ? Math.min(...spans.map((s) => ms(s.startTimeUnixNano))) : 0;
  const turns: TimelineTurn[] = [];
  let model: string | undefined;
  for (const span of spans.sort((a, b) => ms(a.startTimeUnixNano) - ms(b.startTimeUnixNano))) {
    const a = attrs(span);
    if (a['agy_sdk.turn.status'] === undefined) continue;
    model ??= (a['gen_ai.response.model'] ?? a['gen_ai.request.model']) as string | undefined;
    const steps: TimelineStep[] = [];
    for (const child of descendants(span).sort((x, y) => ms(x.startTimeUnixNano) - ms(y.startTimeUnixNano))) {
      const c = attrs(child);
      const op = c['gen_ai.operation.name'];
      if (op !== 'chat' && op !== 'execute_tool') continue;
      const step: TimelineStep = {
        index: num(c['agy_sdk.step.index']),
        type: op === 'chat' ? 'agent_response' : 'tool',
        state: child.status?.code === 2 ? 'ERROR' : 'DONE',
        t: ms(child.startTimeUnixNano) - t0,
        text: op === 'chat' ? String(c['gen_ai.output.messages'] ?? '') : '',
        thoughts: '',
        durationSeconds: (ms(child.endTimeUnixNano) - ms(child.startTimeUnixNano)) / 1000,
        usage: usageOf(c),
        costUsd: c['agy_sdk.usage.cost_usd'] as number | undefined,
      };
      if (op === 'execute_tool') {
        step.tool = {
          name: String(c['gen_ai.tool.name'] ?? 'tool'),
          args: c['gen_ai.tool.call.arguments'],
          output: c['gen_ai.tool.call.result'],
          error: child.status?.message,
          mcpServer: c['agy_sdk.tool.mcp_server'] as string | undefined,
        };
        if (c['agy_sdk.tool.denied_by'] !== undefined)
          step.denial = {
            by: String(c['agy_sdk.tool.denied_by']),
            reason: String(c['agy_sdk.tool.denial_reason'] ?? ''),
          };
      }
      steps.push(step);
    }
    turns.push({
      prompt: String(a['gen_ai.input.messages'] ?? span.name),
      status: a['agy_sdk.turn.status'] as TurnStatus,
      message: span.status?.message ?? '',
      startT: ms(span.startTimeUnixNano) - t0,
      endT: ms(span.endTimeUnixNano) - t0,
      steps,
      usage: usageOf(a) ?? null,
      costUsd: (a['agy_sdk.usage.cost_usd'] as number | undefined) ?? null,
      stderr: [],
    });
  }
  return { agyVersion: null, model, source: file, turns, processes: [] };
}
