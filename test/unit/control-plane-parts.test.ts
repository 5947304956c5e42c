/** The control plane's parts, one concept each: the tool-call budget gate, the steering queue, the agy hook adapter. */
import { describe, expect, it } from 'vitest';
import { SteeringQueue } from '../../src/agent/steering.js';
import { toHookCall } from '../../src/connection/agy/hook-adapter.js';
import { ToolCallGate } from '../../src/conversation/budget.js';

describe('ToolCallGate (maxToolCalls at the gate)', () => {
  it('denies the call past the limit, and a turn scope starts over each turn', () => {
    const gate = new ToolCallGate(2, 'turn');
    gate.beginTurn();
    expect([gate.spend(), gate.spend(), gate.spend()]).toEqual([
      undefined,
      undefined,
      'maxToolCalls budget (2) is spent',
    ]);
    gate.beginTurn();
    expect(gate.spend()).toBeUndefined();
  });

  it('a conversation scope keeps counting across turns', () => {
    const gate = new ToolCallGate(1, 'conversation');
    gate.beginTurn();
    expect(gate.spend()).toBeUndefined();
    gate.beginTurn();
    expect(gate.spend()).toBe('maxToolCalls budget (1) is spent');
  });
});

describe('SteeringQueue', () => {
  it('hands out waiting messages once, oldest first', () => {
    const q = new SteeringQueue();
    q.push('a');
    q.push('b');
    expect(q.take()).toEqual(['a', 'b']);
    expect(q.take()).toEqual([]);
  });
});

describe('agy hook adapter', () => {
  it('unwraps call_mcp_tool into server/tool/arguments, stripping the plugin prefix', () => {
    // Payload shape: agy-real/hooks-anti-samcheonpo-agy-1.3.0 (PreToolUse carries toolCall {name, args}).
    const { call, mcp } = toHookCall({
      conversationId: 'c1',
      stepIdx: 7,
      toolCall: {
        name: 'call_mcp_tool',
        args: { ServerName: 'agy-sdk_github', ToolName: 'create_issue', Arguments: { title: 't' } },
      },
    });
    expect(call).toMatchObject({ id: 'c1:7', name: 'create_issue', server: 'github', args: { title: 't' } });
    expect(mcp?.agyServer).toBe('agy-sdk_github');
  });

  it('keeps a built-in call as sent, with agy toolAction/toolSummary as action/summary', () => {
    const { call, mcp } = toHookCall({
      stepIdx: 3,
      toolCall: { name: 'run_command', args: { CommandLine: 'ls', toolAction: 'Run', toolSummary: 'list' } },
    });
    expect(mcp).toBeUndefined();
    expect(call).toMatchObject({ name: 'run_command', action: 'Run', summary: 'list' });
  });
});
