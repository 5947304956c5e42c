// The turn tracker against every real agy capture (../shared/fixtures/agy-real/, README.md there): usage is the
// sum of every DONE step (checkpoint steps included) and equals result.usage for whole turns; text equals agy's
// own `response`. Plus the cases the captures imply but do not contain (repeated DONE, subagents).

import { describe, expect, it } from 'vitest';
import { deniedFromWire, usageFromWire } from '../../../../src/connection/agy/stream-json/normalize.js';
import { parseLine } from '../../../../src/connection/agy/stream-json/parse-line.js';
import { TurnTracker } from '../../../../src/connection/agy/stream-json/turn-tracker.js';
import type { Step } from '../../../../src/model/step.js';
import type { WireResult } from '../../../../src/protocol/stream-json-wire.js';
import { CAPTURES, captureRawLines, HAVE_CAPTURES, NO_CAPTURES_REASON } from '../../../helpers/captures.js';

/** Feeds a capture's stdout through parseLine and a tracker, as the connection does. */
function track(file: string) {
  const counted = new Set<string>();
  let conversation: string | undefined;
  const t = new TurnTracker(counted, () => conversation);
  const delivered: Step[] = [];
  let result: WireResult | undefined;
  for (const line of captureRawLines(file)) {
    const p = parseLine(line);
    if (!p.ok) throw new Error(`${file}: ${p.bad.reason}`);
    const e = p.event;
    if (e.type === 'init') conversation = e.init.conversationId;
    else if (e.type === 'step') delivered.push(t.onStep(e.step));
    else if (e.type === 'result') result = e.result;
  }
  if (!result) throw new Error(`${file}: no result`);
  t.applyDeniedActions(deniedFromWire(result));
  return { t, delivered, result };
}

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'usage and text over every capture' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it.each(CAPTURES.filter((c) => !c.usageNotWhole).map((c) => [c.stdout]))(
      '%s: step usage == result.usage (whole turn)',
      (file) => {
        const { t, result } = track(file);
        const resultUsage = usageFromWire(result.usage);
        // Captures with no usage-bearing step (errors, print timeouts, commands, the partial quota tail) report
        // all zeros or only what earlier, uncaptured steps spent; the SDK then falls back to the result.
        if (t.sawStepUsage) expect(t.stepUsage).toEqual(resultUsage);
        else expect(t.stepUsage).toBeNull();
      },
    );

    it.each(CAPTURES.filter((c) => !c.textNotResponse).map((c) => [c.stdout]))(
      '%s: text == result.response',
      (file) => {
        const { t, result } = track(file);
        expect(t.text || result.response).toBe(result.response);
        if (t.sawModelStep) expect(t.text).toBe(result.response);
      },
    );

    it('checkpoint usage: 12,308/1,435 as agy reports, not 12,088/1,431', () => {
      // agy-real/jdiazromeral-agy-plugin-cc/stream_events-2026-08-02-run1.ndjson
      const { t } = track('jdiazromeral-agy-plugin-cc/stream_events-2026-08-02-run1.ndjson');
      expect(t.stepUsage).toMatchObject({ inputTokens: 12_308, outputTokens: 1_435 });
    });
  },
);

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ event: 'step_update', step_update: { conversation_id: 'c', ...o } });
function stepOf(o: Record<string, unknown>): Step {
  const p = parseLine(line(o));
  if (!p.ok || p.event.type !== 'step') throw new Error('bad fixture');
  return p.event.step;
}
const usage = {
  input_tokens: 10,
  output_tokens: 2,
  thinking_tokens: 0,
  cache_read_tokens: 0,
  total_tokens: 12,
};

describe('repeated DONE updates', () => {
  it('do not duplicate the final delta: "Hello world." not "Hello world.world."', () => {
    // agy-real/README.md: concatenated deltas reproduce `response`; a repeated DONE repeats its last delta.
    const t = new TurnTracker(new Set(), () => 'c');
    const out = [
      { step_index: 1, state: 'ACTIVE', step_type: 'agent_response', text_delta: 'Hello ' },
      { step_index: 1, state: 'DONE', step_type: 'agent_response', text_delta: 'world.', usage },
      { step_index: 1, state: 'DONE', step_type: 'agent_response', text_delta: 'world.', usage },
    ].map((o) => t.onStep(stepOf(o)));
    expect(t.text).toBe('Hello world.');
    expect(out.map((s) => s.textDelta ?? '').join('')).toBe('Hello world.');
    expect(out[2]).toMatchObject({ repeat: true });
    expect(out[2]!.textDelta).toBeUndefined();
    expect(t.stepUsage?.totalTokens).toBe(12);
  });
});

describe('subagent steps', () => {
  it("are attributed to the subagent and kept out of the parent's text and usage", () => {
    const t = new TurnTracker(new Set(), () => 'c');
    t.onStep(
      stepOf({
        step_index: 2,
        state: 'DONE',
        step_type: 'subagent',
        subagent_info: {
          subagents: [{ type_name: 'research', conversation_id: 'sub', initial_prompt: 'find it' }],
        },
      }),
    );
    const sub = t.onStep(
      stepOf({
        conversation_id: 'sub',
        step_index: 1,
        state: 'DONE',
        step_type: 'agent_response',
        text_delta: 'sub text',
        usage,
      }),
    );
    t.onStep(
      stepOf({ step_index: 3, state: 'DONE', step_type: 'agent_response', text_delta: 'main', usage }),
    );
    expect(t.text).toBe('main');
    expect(sub.subagent).toEqual({
      conversationId: 'sub',
      typeName: 'research',
      initialPrompt: 'find it',
      role: undefined,
      logUri: undefined,
      workspaceUris: undefined,
    });
    expect(t.stepUsage?.totalTokens).toBe(12);
    expect(t.subagentUsage?.sub?.totalTokens).toBe(12);
  });
});

describe('denial marking', () => {
  it('marks only the call the denied action names, on every view handed out', () => {
    const t = new TurnTracker(new Set(), () => 'c');
    const params = { name: 'run_command', parameters: { CommandLine: 'ls' } };
    const active = t.onStep(stepOf({ step_index: 2, state: 'ACTIVE', step_type: 'tool', tool_info: params }));
    const done = t.onStep(stepOf({ step_index: 2, state: 'DONE', step_type: 'tool', tool_info: params }));
    const web = t.onStep(
      stepOf({
        step_index: 3,
        state: 'DONE',
        step_type: 'tool',
        tool_info: { name: 'search_web', parameters: {} },
      }),
    );
    t.applyDeniedActions([{ action: 'command', displayName: 'RunCommand', source: 'agy' }]);
    expect(active.tool?.denied).toBe(true);
    expect(done.tool?.denied).toBe(true);
    expect(web.tool?.denied).toBeUndefined();
  });
});
