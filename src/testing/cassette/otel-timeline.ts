/**
 * A recorded OpenTelemetry trace (OTLP/JSON, as an OTLP file exporter or collector writes it:
 * `{"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}`, one object or one per line) as a timeline: each span
 * with `agy_sdk.turn.status` is a turn, the `chat` and `execute_tool` spans below it (down to the next turn)
 * are its steps (names from src/telemetry/attributes.ts). The spans are checked by `otlp-spans.ts`; the tree is
 * walked without recursion, each span once, so a deep chain, a repeated id or a cycle in the parent links
 * cannot blow the stack or the time.
 */

import type { InputLimits } from '../../cassette/limits.js';
import { CassetteError } from '../../errors.js';
import type { Usage } from '../../model/step.js';
import type { TurnStatus } from '../../model/turn-result.js';
import { type CheckedSpan, readSpans, type SpanValue } from './otlp-spans.js';
import type { Timeline, TimelineStep, TimelineTurn } from './timeline.js';

export { isOtlpTrace } from './otlp-spans.js';

type Attrs = Record<string, SpanValue>;
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const byStart = (a: CheckedSpan, b: CheckedSpan): number => a.startMs - b.startMs || a.index - b.index;

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

const isTurn = (s: CheckedSpan): boolean => s.attrs['agy_sdk.turn.status'] !== undefined;

/**
 * Each span's parent (its index, -1 for none or for a parent not in the file). A repeated span id within a
 * trace, or a cycle in the parent links (a span its own ancestor), is a {@link CassetteError} naming the span.
 * Each span is walked over once: linear in the number of spans, whatever the shape of the tree.
 */
function parentsOf(spans: readonly CheckedSpan[], file: string): Int32Array {
  const byId = new Map<string, number>();
  const key = (trace: string, span: string) => `${trace.length}:${trace}${span}`;
  for (const s of spans) {
    const k = key(s.traceId, s.spanId);
    const first = byId.get(k);
    if (first !== undefined)
      throw new CassetteError(
        file,
        s.where.line,
        `${s.where.path}.spanId`,
        `repeats the id of ${spans[first]!.where.path} in trace ${JSON.stringify(s.traceId)}`,
      );
    byId.set(k, s.index);
  }
  const parent = new Int32Array(spans.length).fill(-1);
  for (const s of spans) if (s.parentSpanId) parent[s.index] = byId.get(key(s.traceId, s.parentSpanId)) ?? -1;
  // 0: not seen, 1: on the chain being walked, 2: known to lead to a root.
  const state = new Uint8Array(spans.length);
  const chain: number[] = [];
  for (let i = 0; i < spans.length; i++) {
    let j = i;
    while (j >= 0 && state[j] === 0) {
      state[j] = 1;
      chain.push(j);
      j = parent[j]!;
    }
    if (j >= 0 && state[j] === 1) {
      const s = spans[chain.at(-1)!]!;
      throw new CassetteError(
        file,
        s.where.line,
        `${s.where.path}.parentSpanId`,
        'closes a cycle of parent links (a span would be its own ancestor)',
      );
    }
    for (const k of chain) state[k] = 2;
    chain.length = 0;
  }
  return parent;
}

/**
 * The nearest turn above each span (-1 for none): each span's answer is its parent if that is a turn, else
 * its parent's answer, worked out root-first along each unresolved chain (no recursion), each span once.
 */
function turnsAbove(spans: readonly CheckedSpan[], parent: Int32Array): Int32Array {
  const answer = new Int32Array(spans.length).fill(-2); // -2: not worked out yet
  const chain: number[] = [];
  for (let i = 0; i < spans.length; i++) {
    for (let j = i; j >= 0 && answer[j] === -2; j = parent[j]!) chain.push(j);
    while (chain.length > 0) {
      const j = chain.pop()!;
      const p = parent[j]!;
      answer[j] = p < 0 ? -1 : isTurn(spans[p]!) ? p : answer[p]!;
    }
  }
  return answer;
}

/** One `chat` or `execute_tool` span as a step. */
function stepOf(child: CheckedSpan, t0: number): TimelineStep | undefined {
  const c = child.attrs;
  const op = c['gen_ai.operation.name'];
  if (op !== 'chat' && op !== 'execute_tool') return undefined;
  const step: TimelineStep = {
    index: num(c['agy_sdk.step.index']),
    type: op === 'chat' ? 'agent_response' : 'tool',
    state: child.statusCode === 2 ? 'ERROR' : 'DONE',
    t: child.startMs - t0,
    text: op === 'chat' ? String(c['gen_ai.output.messages'] ?? '') : '',
    thoughts: '',
    durationSeconds: (child.endMs - child.startMs) / 1000,
    usage: usageOf(c),
    costUsd: c['agy_sdk.usage.cost_usd'] as number | undefined,
  };
  if (op === 'execute_tool') {
    step.tool = {
      name: String(c['gen_ai.tool.name'] ?? 'tool'),
      args: c['gen_ai.tool.call.arguments'],
      output: c['gen_ai.tool.call.result'],
      error: child.statusMessage,
      mcpServer: c['agy_sdk.tool.mcp_server'] as string | undefined,
    };
    if (c['agy_sdk.tool.denied_by'] !== undefined)
      step.denial = {
        by: String(c['agy_sdk.tool.denied_by']),
        reason: String(c['agy_sdk.tool.denial_reason'] ?? ''),
      };
  }
  return step;
}

/** The timeline of an OTLP/JSON trace; a malformed one is a {@link CassetteError} naming line, span and field. */
export function otelTimeline(text: string, file = '<text>', limits?: InputLimits): Timeline {
  const spans = readSpans(text, file, limits);
  const turnAbove = turnsAbove(spans, parentsOf(spans, file));
  let t0 = Number.POSITIVE_INFINITY;
  for (const s of spans) if (s.startMs < t0) t0 = s.startMs;
  if (spans.length === 0) t0 = 0;
  const children = new Map<CheckedSpan, CheckedSpan[]>();
  for (const s of spans) {
    const above = turnAbove[s.index]!;
    if (above < 0) continue;
    const turn = spans[above]!;
    const list = children.get(turn);
    if (list) list.push(s);
    else children.set(turn, [s]);
  }
  const turns: TimelineTurn[] = [];
  let model: string | undefined;
  for (const span of spans.filter(isTurn).sort(byStart)) {
    const a = span.attrs;
    model ??= (a['gen_ai.response.model'] ?? a['gen_ai.request.model']) as string | undefined;
    const steps: TimelineStep[] = [];
    for (const child of (children.get(span) ?? []).sort(byStart)) {
      const step = stepOf(child, t0);
      if (step) steps.push(step);
    }
    turns.push({
      prompt: String(a['gen_ai.input.messages'] ?? span.name),
      status: a['agy_sdk.turn.status'] as TurnStatus,
      message: span.statusMessage ?? '',
      startT: span.startMs - t0,
      endT: span.endMs - t0,
      steps,
      usage: usageOf(a) ?? null,
      costUsd: (a['agy_sdk.usage.cost_usd'] as number | undefined) ?? null,
      stderr: [],
    });
  }
  return { agyVersion: null, model, source: file, turns, processes: [] };
}
