// Wire shapes are the verbatim captures of agy-cli.md §D.3; drift tolerance per §F.1.
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../src/connection/stream-json/parse-line.js';
import { WireEnvelopeSchema } from '../../src/connection/stream-json/wire.js';

// agy-cli.md §D.3 "A successful one-turn run" (verbatim from the shipped binary).
const CAPTURE = [
  '{"event":"init","conversation_id":"4eeb7dfd-1","init":{"cwd":"/wd","tools":["run_command","view_file"],"permission_mode":"always-proceed"}}',
  '{"event":"step_update","step_update":{"conversation_id":"4eeb7dfd-1","step_index":0,"state":"DONE","step_type":"user_input"}}',
  '{"event":"step_update","step_update":{"conversation_id":"4eeb7dfd-1","step_index":1,"state":"ACTIVE","step_type":"agent_response","text_delta":"OK"}}',
  '{"event":"step_update","step_update":{"conversation_id":"4eeb7dfd-1","step_index":1,"state":"DONE","step_type":"agent_response","text_delta":"\\n","duration_seconds":4.365389906,"usage":{"input_tokens":13823,"output_tokens":91,"thinking_tokens":90,"cache_read_tokens":0,"total_tokens":13914}}}',
  '{"event":"result","result":{"conversation_id":"4eeb7dfd-1","status":"SUCCESS","response":"OK\\n","duration_seconds":4.413400738,"num_turns":1,"usage":{"input_tokens":13823,"output_tokens":91,"thinking_tokens":90,"cache_read_tokens":0,"total_tokens":13914}}}',
];
// agy-cli.md §D.3 "Tool steps".
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
