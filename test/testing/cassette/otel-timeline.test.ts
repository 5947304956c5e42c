// `agy-sdk show` of hostile OTLP/JSON traces, in memory: a very wide and a very deep well-formed trace render
// (no spread into arguments, no recursion), and every malformed span is a CassetteError naming the line, the
// span (its path and id) and the field. The walk over the tree is linear: repeated ids and parent cycles are
// refused, never followed. The 2^30-path trace runs through the built CLI with a kill timer
// (test/cli/cassette-commands.hostile.process.test.ts).
import { describe, expect, it } from 'vitest';
import { INPUT_LIMITS } from '../../../src/cassette/limits.js';
import { CassetteError } from '../../../src/errors.js';
import { otelTimeline } from '../../../src/testing/cassette/otel-timeline.js';
import {
  chatSpan,
  deepTrace,
  type RawSpan,
  sharedIdTrace,
  traceText,
  turnSpan,
  wideTrace,
} from '../../helpers/otlp-traces.js';

/** The CassetteError `fn` throws. */
function caught(fn: () => unknown): CassetteError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CassetteError);
    return err as CassetteError;
  }
  throw new Error('expected a CassetteError, nothing was thrown');
}

/** A turn and one chat step, the step changed by `edit`. */
function withStep(edit: (span: RawSpan) => void): string {
  const step = chatSpan('c1', 'turn', 1);
  edit(step);
  return traceText([turnSpan('turn'), step]);
}

describe('otelTimeline: large well-formed traces', () => {
  it('renders a 200,000-span trace (one turn, every other span a step under it)', () => {
    const timeline = otelTimeline(wideTrace(200_000), 'wide.json');
    expect(timeline.turns).toHaveLength(1);
    expect(timeline.turns[0]!.steps).toHaveLength(199_999);
    expect(timeline.turns[0]!.steps.at(-1)!.t).toBe(199_999);
  });

  it('walks a chain 200,000 spans deep without recursion: every span is a step of the turn at its root', () => {
    const timeline = otelTimeline(deepTrace(200_000), 'deep.json');
    expect(timeline.turns[0]!.steps).toHaveLength(199_999);
  });
});

describe('otelTimeline: malformed spans are CassetteErrors naming line, span and field', () => {
  it('a span that is its own parent', () => {
    const e = caught(() => otelTimeline(traceText([turnSpan('turn'), chatSpan('c1', 'c1')]), 'self.json'));
    expect(e.file).toBe('self.json');
    expect(e.line).toBe(1);
    expect(e.field).toBe('resourceSpans[0].scopeSpans[0].spans[1] (spanId "c1").parentSpanId');
    expect(e.message).toMatch(/own parent/);
  });

  it('a longer cycle of parent links, through a turn or not', () => {
    const throughTurn = [turnSpan('a', 'b'), chatSpan('b', 'a')];
    expect(caught(() => otelTimeline(traceText(throughTurn))).message).toMatch(/cycle of parent links/);
    const below = [turnSpan('turn'), chatSpan('x', 'z'), chatSpan('y', 'x'), chatSpan('z', 'y')];
    const e = caught(() => otelTimeline(traceText(below)));
    expect(e.field).toMatch(/spans\[\d\] \(spanId "[xyz]"\)\.parentSpanId$/);
  });

  it('two spans of one trace sharing an id (the same id in two traces is fine)', () => {
    const e = caught(() => otelTimeline(sharedIdTrace(2), 'dup.json'));
    expect(e.field).toBe('resourceSpans[0].scopeSpans[0].spans[2] (spanId "L1").spanId');
    expect(e.message).toMatch(/repeats the id of resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]/);
    const other = { ...chatSpan('c1', 'turn'), traceId: 't2' };
    expect(() => otelTimeline(traceText([turnSpan('turn'), chatSpan('c1', 'turn'), other]))).not.toThrow();
  });

  it('a numeric status, a string cost, a non-numeric timestamp, a missing id', () => {
    const status = caught(() => otelTimeline(withStep((s) => (s.status = 2))));
    expect(status.field).toBe('resourceSpans[0].scopeSpans[0].spans[1] (spanId "c1").status');
    const cost = caught(() =>
      otelTimeline(
        withStep((s) =>
          (s.attributes as unknown[]).push({
            key: 'agy_sdk.usage.cost_usd',
            value: { stringValue: 'lots' },
          }),
        ),
      ),
    );
    expect(cost.field).toBe(
      'resourceSpans[0].scopeSpans[0].spans[1] (spanId "c1").attributes[4] ("agy_sdk.usage.cost_usd")',
    );
    expect(cost.message).toMatch(/must be a number, got "lots"/);
    const time = caught(() => otelTimeline(withStep((s) => (s.startTimeUnixNano = 'soon'))));
    expect(time.field).toMatch(/\(spanId "c1"\)\.startTimeUnixNano$/);
    const id = caught(() => otelTimeline(withStep((s) => delete s.spanId)));
    expect(id.field).toBe('resourceSpans[0].scopeSpans[0].spans[1].spanId');
    const code = caught(() => otelTimeline(withStep((s) => (s.status = { code: 'ERR' }))));
    expect(code.field).toMatch(/\.status\.code$/);
  });

  it('names the line of a JSON Lines trace, and refuses a trace past the span limit', () => {
    const two = `${wideTrace(2)}\n\n${withStep((s) => (s.name = 7))}\n`;
    const e = caught(() => otelTimeline(two, 'lines.json'));
    expect([e.line, e.field]).toEqual([3, 'resourceSpans[0].scopeSpans[0].spans[1] (spanId "c1").name']);
    const limited = caught(() => otelTimeline(wideTrace(4), 'big.json', { ...INPUT_LIMITS, spans: 3 }));
    expect(limited.field).toBe('resourceSpans[0].scopeSpans[0].spans[3]');
    expect(limited.message).toMatch(/past the limit of 3 spans/);
  });
});
