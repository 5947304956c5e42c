// Wire shapes are the verbatim captures of docs/reference/stream-json.md#envelope, docs/reference/stream-json.md#drift-tolerance.
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../../../src/connection/agy/stream-json/parse-line.js';
import { LineSplitter } from '../../../../src/connection/process/line-splitter.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../../src/internal/json-depth.js';
import { WireEnvelopeSchema } from '../../../../src/protocol/stream-json-wire.js';

// docs/reference/stream-json.md#successful-turn (verbatim from the shipped binary).
const CAPTURE = [
  '{"event":"init","conversation_id":"4eeb7dfd-1","init":{"cwd":"/wd","tools":["run_command","view_file"],"permission_mode":"always-proceed"}}',
  '{"event":"step_update","step_update":{"conversation_id":"4eeb7dfd-1","step_index":0,"state":"DONE","step_type":"user_input"}}',
  '{"event":"step_update","step_update":{"conversation_id":"4eeb7dfd-1","step_index":1,"state":"ACTIVE","step_type":"agent_response","text_delta":"OK"}}',
  '{"event":"step_update","step_update":{"conversation_id":"4eeb7dfd-1","step_index":1,"state":"DONE","step_type":"agent_response","text_delta":"\\n","duration_seconds":4.365389906,"usage":{"input_tokens":13823,"output_tokens":91,"thinking_tokens":90,"cache_read_tokens":0,"total_tokens":13914}}}',
  '{"event":"result","result":{"conversation_id":"4eeb7dfd-1","status":"SUCCESS","response":"OK\\n","duration_seconds":4.413400738,"num_turns":1,"usage":{"input_tokens":13823,"output_tokens":91,"thinking_tokens":90,"cache_read_tokens":0,"total_tokens":13914}}}',
];
// docs/reference/stream-json.md#tool-steps.
const TOOL_LINES = [
  '{"event":"step_update","step_update":{"step_index":4,"state":"ACTIVE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{"CommandLine":"ls"}}}}',
  '{"event":"step_update","step_update":{"step_index":4,"state":"DONE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{"CommandLine":"ls"},"output":"a\\nb"}}}',
  '{"event":"step_update","step_update":{"step_index":6,"state":"ERROR","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{"CommandLine":"false"},"error":{"type":"TOOL_ERROR","message":"exit status 1"}}}}',
];

describe('wire schemas stay true to the captures', () => {
  it.each([...CAPTURE, ...TOOL_LINES])('validates %s', (line) => {
    expect(WireEnvelopeSchema.safeParse(JSON.parse(line)).success).toBe(true);
  });
});

describe('parseLine', () => {
  it('parses the nested envelope of a captured run, conversation id at top level or inside', () => {
    const events = CAPTURE.map(parseLine);
    expect(events.every((e) => e.ok)).toBe(true);
    const [init, , active, done, result] = events.map((e) => (e.ok ? e.event : undefined));
    expect(init).toMatchObject({
      type: 'init',
      init: {
        conversationId: '4eeb7dfd-1',
        tools: ['run_command', 'view_file'],
        permissionMode: 'always-proceed',
      },
    });
    expect(active).toMatchObject({
      type: 'step',
      step: { stepIndex: 1, state: 'ACTIVE', type: 'agent_response', textDelta: 'OK' },
    });
    expect(done).toMatchObject({
      type: 'step',
      step: {
        textDelta: '\n',
        usage: {
          inputTokens: 13823,
          outputTokens: 91,
          thinkingTokens: 90,
          cacheReadTokens: 0,
          totalTokens: 13914,
        },
      },
    });
    expect(result).toMatchObject({
      type: 'result',
      conversationId: '4eeb7dfd-1',
      result: { status: 'SUCCESS', response: 'OK\n' },
    });
  });

  it('normalizes tool steps: PascalCase parameters kept, output, error {type,message}, id = conversation:step', () => {
    const [active, done, failed] = TOOL_LINES.map(parseLine).map((e) =>
      e.ok && e.event.type === 'step' ? e.event.step : undefined,
    );
    expect(active?.tool).toEqual({
      id: ':4',
      name: 'run_command',
      args: { CommandLine: 'ls' },
      stepIndex: 4,
      state: 'ACTIVE',
    });
    expect(done?.tool?.output).toBe('a\nb');
    expect(failed?.tool?.error).toEqual({ type: 'TOOL_ERROR', message: 'exit status 1' });
    expect(failed?.state).toBe('ERROR');
  });

  it('takes conversation_id from the top level when the payload lacks it', () => {
    const e = parseLine(
      '{"event":"step_update","conversation_id":"c1","step_update":{"step_index":2,"state":"DONE","step_type":"checkpoint"}}',
    );
    expect(e.ok && e.event.type === 'step' && e.event.step.conversationId).toBe('c1');
  });

  it('keeps unknown step types, states and fields as sent', () => {
    const e = parseLine(
      '{"event":"step_update","step_update":{"step_index":9,"state":"WAITING_FOR_USER","step_type":"brand_new","novel":{"x":1}}}',
    );
    expect(e.ok).toBe(true);
    if (e.ok && e.event.type === 'step') {
      expect(e.event.step.type).toBe('brand_new');
      expect(e.event.step.state).toBe('WAITING_FOR_USER');
      expect(e.event.step.raw).toMatchObject({ novel: { x: 1 } });
    }
  });

  it('treats all-zero usage as unknown (null), never zero', () => {
    const e = parseLine(
      '{"event":"step_update","step_update":{"step_index":1,"state":"DONE","step_type":"agent_response","usage":{"input_tokens":0,"output_tokens":0,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":0}}}',
    );
    expect(e.ok && e.event.type === 'step' && e.event.step.usage).toBeNull();
  });

  it('reads subagent_info', () => {
    const e = parseLine(
      '{"event":"step_update","step_update":{"step_index":3,"state":"ACTIVE","step_type":"subagent","tool_name":"invoke_subagent","subagent_info":{"subagents":[{"type_name":"research","role":"helper","conversation_id":"c2"}]}}}',
    );
    expect(e.ok && e.event.type === 'step' && e.event.step.subagents).toEqual([
      {
        typeName: 'research',
        role: 'helper',
        conversationId: 'c2',
        logUri: undefined,
        workspaceUris: undefined,
      },
    ]);
  });

  it('recognizes command_result and the --output-format json result without envelope', () => {
    expect(parseLine('{"event":"command_result","command_result":{"text":"x"}}')).toMatchObject({
      ok: true,
      event: { type: 'command_result' },
    });
    expect(parseLine('{"status":"SUCCESS","response":"hi"}')).toMatchObject({
      ok: true,
      event: { type: 'result', result: { response: 'hi' } },
    });
  });

  it.each([
    ['not json', 'not_json'],
    ['{"event":"step_upd', 'not_json'],
    ['[1,2]', 'not_object'],
    ['"str"', 'not_object'],
    ['{"event":"telemetry","telemetry":{}}', 'unknown_event'],
    ['{"event":"step_update","step_update":"oops"}', 'malformed_event'],
    ['{"event":"result"}', 'malformed_event'],
  ])('reports %s as %s without throwing', (line, reason) => {
    const e = parseLine(line);
    expect(e.ok).toBe(false);
    if (!e.ok) expect(e.bad.reason).toBe(reason);
  });

  it('passes the parsed value of unknown events through', () => {
    const e = parseLine('{"event":"future","future":{"a":1}}');
    expect(!e.ok && e.bad.value).toEqual({ event: 'future', future: { a: 1 } });
  });
});

/** `{"a":{"a":…1…}}` nested `depth` levels (objects) or `[[…]]` (arrays). */
function nested(depth: number, kind: 'object' | 'array' = 'object'): string {
  return kind === 'object'
    ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

// Placement of each pathological value follows the captured shapes of a tool step (error, output,
// parameters) and of a DONE agent_response (usage): agy-real/joiomi-playbook-plugin-agy-1.3.1/success-tools.stdout
// and agy-real/jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson.
const PLACES: Record<string, (deep: string) => string> = {
  error: (d) =>
    `{"event":"step_update","step_update":{"step_index":6,"state":"ERROR","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{},"error":${d}}}}`,
  output: (d) =>
    `{"event":"step_update","step_update":{"step_index":4,"state":"DONE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{},"output":${d}}}}`,
  arguments: (d) =>
    `{"event":"step_update","step_update":{"step_index":4,"state":"ACTIVE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":${d}}}}`,
  usage: (d) =>
    `{"event":"step_update","step_update":{"step_index":1,"state":"DONE","step_type":"agent_response","usage":${d}}}`,
  resultError: (d) => `{"event":"result","result":{"status":"ERROR","error":${d}}}`,
  stepError: (d) =>
    `{"event":"step_update","step_update":{"step_index":1,"state":"ERROR","step_type":"agent_response","error":${d}}}`,
};

describe('nesting depth (a deep value must never reach a recursive walk)', () => {
  it.each(
    Object.keys(PLACES).flatMap((place) =>
      [1_000, 5_000, 20_000, 100_000].map((depth) => [place, depth] as const),
    ),
  )('%s nested %i levels is a too_deep bad line, never an exception', (place, depth) => {
    for (const kind of ['object', 'array'] as const) {
      const line = PLACES[place]!(nested(depth, kind));
      let parsed: ReturnType<typeof parseLine> | undefined;
      expect(() => {
        parsed = parseLine(line);
      }).not.toThrow();
      expect(parsed?.ok).toBe(false);
      if (parsed && !parsed.ok) {
        expect(parsed.bad.reason).toBe('too_deep');
        expect(parsed.bad.value).toBeUndefined();
        expect(parsed.bad.line.length).toBeLessThanOrEqual(1025);
      }
    }
  });

  it('accepts nesting up to the limit, and the parsed value can be stringified', () => {
    // Three levels sit above tool_info.output (envelope, step_update, tool_info).
    const line = PLACES.output!(nested(MAX_JSON_DEPTH - 3));
    const parsed = parseLine(line);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(() => JSON.stringify(parsed.event)).not.toThrow();
    const over = parseLine(PLACES.output!(nested(MAX_JSON_DEPTH - 2)));
    expect(!over.ok && over.bad.reason).toBe('too_deep');
  });

  it('keeps the lines before and after a deep line through the real framing path', () => {
    const got: string[] = [];
    const splitter = new LineSplitter({
      maxLineBytes: 64 * 1024 * 1024,
      onLine: (line) => {
        const p = parseLine(line);
        got.push(
          p.ok
            ? p.event.type === 'step'
              ? (p.event.step.textDelta ?? p.event.type)
              : p.event.type
            : p.bad.reason,
        );
      },
      onOverflow: () => got.push('overflow'),
    });
    const text = (t: string, i: number) =>
      `{"event":"step_update","step_update":{"step_index":${i},"state":"ACTIVE","step_type":"agent_response","text_delta":"${t}"}}`;
    const bytes = Buffer.from(
      `${text('before', 1)}\n${PLACES.error!(nested(50_000))}\n${text('after', 2)}\n`,
    );
    // Odd chunk sizes so the deep line straddles many pushes.
    for (let off = 0; off < bytes.length; off += 4093) splitter.push(bytes.subarray(off, off + 4093));
    expect(got).toEqual(['before', 'too_deep', 'after']);
  });

  it('exceedsJsonDepth walks iteratively: any depth, wide values, primitives', () => {
    expect(exceedsJsonDepth(JSON.parse(nested(200_000)), 10)).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(nested(10)), 10)).toBe(false);
    expect(exceedsJsonDepth(JSON.parse(nested(11)), 10)).toBe(true);
    expect(
      exceedsJsonDepth(
        Array.from({ length: 10_000 }, () => ({ a: [1] })),
        3,
      ),
    ).toBe(false);
    expect(exceedsJsonDepth('x', 0)).toBe(false);
    expect(exceedsJsonDepth(null, 0)).toBe(false);
  });
});
