// Wire → public step normalization against real agy output (../shared/fixtures/agy-real/).
import { describe, expect, it } from 'vitest';
import { usageFromWire } from '../../../../src/connection/agy/stream-json/normalize.js';
import { parseLine } from '../../../../src/connection/agy/stream-json/parse-line.js';
import { WireEnvelopeSchema, type WireStepUpdate } from '../../../../src/protocol/stream-json-wire.js';

const stepLine = (o: Record<string, unknown>) =>
  JSON.stringify({ event: 'step_update', step_update: { conversation_id: 'c', state: 'DONE', ...o } });
function step(o: Record<string, unknown>) {
  const p = parseLine(stepLine(o));
  if (!p.ok || p.event.type !== 'step') throw new Error(`not a step: ${JSON.stringify(p)}`);
  return p.event.step;
}

describe('command_result', () => {
  // agy-real/jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson, verbatim first line.
  const real =
    '{"event":"command_result","command":{"name":"model","data":{"id":"gemini-3.8-flash-medium","label":"Gemini 3.8 Flash (Medium)","effort":"medium","is_default":false}}}';
  it('the wire schema accepts the real line (payload under `command`)', () => {
    expect(WireEnvelopeSchema.safeParse(JSON.parse(real)).success).toBe(true);
  });
  it('parses to a typed command', () => {
    const p = parseLine(real);
    expect(p.ok && p.event.type === 'command_result' && p.event.command).toEqual({
      name: 'model',
      data: {
        id: 'gemini-3.8-flash-medium',
        label: 'Gemini 3.8 Flash (Medium)',
        effort: 'medium',
        is_default: false,
      },
    });
  });
  it('a payload without a name is no command (but still an event, never a throw)', () => {
    const p = parseLine('{"event":"command_result","command":{"data":1}}');
    expect(p.ok && p.event.type === 'command_result' && p.event.command).toBeUndefined();
  });
});

describe('error_message and unknown steps', () => {
  it('keep their type and text', () => {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout has an error_message step without text;
    // the text key is not in any capture, so each plausible key is read.
    expect(step({ step_index: 57, step_type: 'error_message' })).toMatchObject({ type: 'error_message' });
    expect(step({ step_index: 57, step_type: 'error_message' }).message).toBeUndefined();
    expect(
      step({ step_index: 5, step_type: 'error_message', error_message: '429 Resource has been exhausted' })
        .message,
    ).toBe('429 Resource has been exhausted');
    expect(step({ step_index: 5, step_type: 'error_message', error: { message: 'model 500' } }).message).toBe(
      'model 500',
    );
    // agy-real/jdiazromeral-agy-plugin-cc/resume_fallback-2026-08-02-run1.ndjson
    const unknown = step({ step_index: 1, step_type: 'unknown', text_delta: 'resumed a new conversation' });
    expect(unknown).toMatchObject({ type: 'unknown', message: 'resumed a new conversation' });
    // Never counted as answer text.
    expect(unknown.textDelta).toBeUndefined();
  });
});

describe('tool steps', () => {
  it('an MCP call shows under its own name and server; the wrapper is kept', () => {
    const s = step({
      step_index: 4,
      step_type: 'tool',
      duration_seconds: 0.25,
      tool_info: {
        name: 'call_mcp_tool',
        parameters: { ServerName: 'agy-sdk_tools', ToolName: 'lookup_order', Arguments: { id: 7 } },
        output: 'found',
      },
    });
    expect(s.tool).toEqual({
      id: 'c:4',
      name: 'lookup_order',
      mcpServer: 'agy-sdk_tools',
      args: { id: 7 },
      wire: {
        name: 'call_mcp_tool',
        args: { ServerName: 'agy-sdk_tools', ToolName: 'lookup_order', Arguments: { id: 7 } },
      },
      stepIndex: 4,
      state: 'DONE',
      output: 'found',
      durationSeconds: 0.25,
    });
    expect((s.raw as WireStepUpdate).tool_info?.name).toBe('call_mcp_tool');
  });
  it("a user's MCP server is reported by the name it was configured under (agy's agy-sdk_calc is calc)", () => {
    // agy namespaces the SDK plugin's servers `agy-sdk_<name>` (docs/reference/mcp.md#plugin-server-names).
    const wire = { ServerName: 'agy-sdk_calc', ToolName: 'add', Arguments: { a: 1 } };
    const s = step({
      step_index: 5,
      step_type: 'tool',
      tool_info: { name: 'call_mcp_tool', parameters: wire, output: '2' },
    });
    expect(s.tool).toMatchObject({ name: 'add', mcpServer: 'calc', args: { a: 1 } });
    // The call as agy made it keeps agy's name.
    expect(s.tool?.wire).toEqual({ name: 'call_mcp_tool', args: wire });
    // A server that is not the SDK plugin's keeps agy's name.
    const other = step({
      step_index: 6,
      step_type: 'tool',
      tool_info: { name: 'call_mcp_tool', parameters: { ServerName: 'github', ToolName: 'x' } },
    });
    expect(other.tool?.mcpServer).toBe('github');
  });
  it('a malformed call_mcp_tool (no ToolName) stays as agy sent it', () => {
    const s = step({
      step_index: 4,
      step_type: 'tool',
      tool_info: { name: 'call_mcp_tool', parameters: {} },
    });
    expect(s.tool).toMatchObject({ name: 'call_mcp_tool', args: {} });
    expect(s.tool?.mcpServer).toBeUndefined();
  });
  it('a built-in tool keeps its name and carries duration_seconds', () => {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/success-tools.stdout
    const s = step({
      step_index: 4,
      step_type: 'tool',
      tool_name: 'run_command',
      duration_seconds: 0.03355835,
      tool_info: {
        name: 'run_command',
        parameters: { CommandLine: "python3 -c 'print(6*7)'" },
        output: '42\r\n',
      },
    });
    expect(s.tool).toMatchObject({ name: 'run_command', durationSeconds: 0.03355835, output: '42\r\n' });
  });
});

describe('init and subagent fields', () => {
  it('init.agent is surfaced', () => {
    // agy-real/jdiazromeral-agy-plugin-cc/agent_fallback-2026-08-02-run1.ndjson (tools trimmed)
    const p = parseLine(
      '{"event":"init","conversation_id":"d0","init":{"cwd":"/w","agent":"definitely-nonexistent-agent-xyz","tools":[],"permission_mode":"request-review"}}',
    );
    expect(p.ok && p.event.type === 'init' && p.event.init.agent).toBe('definitely-nonexistent-agent-xyz');
  });
  it("subagent_info's initial_prompt is surfaced", () => {
    const s = step({
      step_index: 3,
      step_type: 'subagent',
      subagent_info: { subagents: [{ conversation_id: 's1', initial_prompt: 'look around' }] },
    });
    expect(s.subagents?.[0]).toMatchObject({ conversationId: 's1', initialPrompt: 'look around' });
  });
});

describe('out-of-range numbers are bad values, never coerced (issue 8)', () => {
  it.each([
    ['step_index 1e400', '{"step_index":1e400,"state":"DONE","step_type":"agent_response"}'],
    ['step_index -1', '{"step_index":-1,"state":"DONE","step_type":"agent_response"}'],
    ['step_index 1.5', '{"step_index":1.5,"state":"DONE","step_type":"agent_response"}'],
    [
      'usage 1e400',
      '{"step_index":1,"state":"DONE","step_type":"agent_response","usage":{"input_tokens":1e400,"output_tokens":1}}',
    ],
    ['duration -1e400', '{"step_index":1,"state":"DONE","step_type":"tool","duration_seconds":-1e400}'],
  ])('a step with %s is a malformed line (reported, not delivered)', (_name, payload) => {
    const p = parseLine(`{"event":"step_update","step_update":${payload}}`);
    expect(p).toMatchObject({ ok: false, bad: { reason: 'malformed_event' } });
  });
  it('a step index of 0 and large but finite counts are fine', () => {
    expect(step({ step_index: 0, step_type: 'user_input' }).stepIndex).toBe(0);
    expect(
      step({ step_index: 1, step_type: 'agent_response', usage: { input_tokens: 1e15 } }).usage?.inputTokens,
    ).toBe(1e15);
  });
  it('result usage with a non-finite count is unknown (null), not zero', () => {
    const p = parseLine(
      '{"event":"result","result":{"status":"SUCCESS","usage":{"input_tokens":1e400,"output_tokens":5}}}',
    );
    expect(p.ok && p.event.type === 'result' && usageFromWire(p.event.result.usage)).toBeNull();
  });
});
