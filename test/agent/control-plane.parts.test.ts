/** The control plane's parts, one concept each: the tool-call budget gate, the steering queue, the agy hook adapter. */
import { describe, expect, it } from 'vitest';
import { ControlPlane } from '../../src/agent/control-plane.js';
import { SteeringQueue } from '../../src/agent/steering.js';
import { foldDenials, recordDenial, TurnLedger } from '../../src/agent/turn-ledger.js';
import { toHookCall } from '../../src/connection/agy/hook-adapter.js';
import { ToolCallGate } from '../../src/conversation/budget.js';
import { createHookToolCall } from '../../src/hooks/args.js';
import { hooks } from '../../src/hooks/factories.js';
import type { TurnResult } from '../../src/model/turn-result.js';

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

describe('ControlPlane: a call past maxToolCalls', () => {
  it('is denied by the budget, named in the verdict, the result and the log', async () => {
    const lines: string[] = [];
    const keep = (m: string) => void lines.push(m);
    const control = new ControlPlane({
      hooks: [],
      policies: [],
      mcpServers: {},
      steering: false,
      maxToolCalls: { limit: 0, scope: 'turn' },
      logger: { debug: () => {}, info: keep, warn: keep, error: keep },
    });
    await control.beginTurn('go');
    const call = createHookToolCall({ id: 'c:1', name: 'view_file', args: { AbsolutePath: '/a' } });
    const key = {};
    control.toolCallRequested(key, call);
    const verdict = await control.gateToolCall(call);
    expect(verdict).toEqual({
      allow: false,
      reason: 'maxToolCalls budget (0) is spent',
      deniedBy: { kind: 'budget', name: 'maxToolCalls' },
    });
    control.toolCallAnswered(key, call, verdict);
    const result = await control.endTurn({
      status: 'success',
      text: '',
      deniedActions: [],
    } as unknown as TurnResult);
    expect(result.deniedActions[0]?.deniedBy).toEqual({ kind: 'budget', name: 'maxToolCalls' });
    expect(result.errorMessage).toBe(
      'view_file denied by budget maxToolCalls (maxToolCalls budget (0) is spent)',
    );
    expect(lines).toContain(
      "tool 'view_file' denied by budget maxToolCalls: maxToolCalls budget (0) is spent",
    );
  });
});

describe('ControlPlane: one gate and one end for every tool', () => {
  const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const noResult = { status: 'success', text: '', deniedActions: [] } as unknown as TurnResult;

  it('gates an own tool the SDK runs in full and records its deny at once; one a backend asks about passes', async () => {
    const control = new ControlPlane({
      hooks: [hooks.preToolCall((call) => ({ allow: false, message: `no ${call.name}` }))],
      policies: [],
      mcpServers: {},
      steering: false,
      logger: quiet,
    });
    await control.beginTurn('go');
    const own = createHookToolCall({ id: 'tools:7', name: 'lookup', args: { q: 'x' } });
    expect(await control.gateToolCall(own, { ownTool: 'asked' })).toEqual({ allow: true });
    // The former name still answers, for one release: `gatedInProcess` is `ownTool: 'asked'`.
    expect(await control.gateBackendToolCall(own, { gatedInProcess: true })).toEqual({ allow: true });
    expect(await control.gateToolCall(own, { ownTool: 'running' })).toEqual({
      allow: false,
      reason: 'no lookup',
      deniedBy: { kind: 'hook', name: 'preToolCall' },
    });
    // No toolCallAnswered follows an own tool's gate: the deny is in the turn already.
    const result = await control.endTurn(noResult);
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toMatchObject([{ action: 'lookup', reason: 'no lookup', source: 'sdk' }]);
  });

  it("ends an own tool through toolCallEnded: onToolError's replacement is returned and postToolCall sees it", async () => {
    const seen: unknown[] = [];
    const control = new ControlPlane({
      hooks: [
        hooks.onToolError((event) => `friendly: ${event.error.message}`),
        hooks.postToolCall((result) => void seen.push([result.call.name, result.error?.message])),
      ],
      policies: [],
      mcpServers: {},
      steering: false,
      logger: quiet,
    });
    await control.beginTurn('go');
    const own = createHookToolCall({ id: 'tools:8', name: 'lookup', args: {} });
    expect(await control.toolCallEnded(own, { error: 'boom', inProcess: true })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'friendly: boom' }],
    });
    // A backend's tool: the model saw the tool's own error, so nothing is returned and postToolCall sees that.
    const builtin = createHookToolCall({ id: 'c:2', name: 'run_command', args: {}, stepIndex: 2 });
    expect(await control.toolCallEnded(builtin, { error: 'exit 1' })).toBeUndefined();
    expect(seen).toEqual([
      ['lookup', 'friendly: boom'],
      ['run_command', 'exit 1'],
    ]);
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

describe('TurnLedger', () => {
  const ctx = {} as never;
  const call = { id: 'c:1', name: 'run_command', args: { CommandLine: 'rm -rf /' }, normalizedArgs: {} };

  it('charges a call to the running turn, a late one (stepIdx seen before the turn) to none', () => {
    const ledger = new TurnLedger();
    ledger.begin(ctx);
    ledger.noteStep(5);
    ledger.end();
    const turn = ledger.begin(ctx);
    expect(ledger.turnOf(6)).toBe(turn);
    expect(ledger.turnOf(5)).toBeUndefined();
    expect(ledger.turnOf(undefined)).toBe(turn);
  });

  it('an answer finds the turn its request arrived in, even after that turn ended', () => {
    const ledger = new TurnLedger();
    const first = ledger.begin(ctx);
    const request = { stepIdx: 1 };
    ledger.noteRequest(request, request.stepIdx);
    ledger.end();
    ledger.begin(ctx);
    expect(ledger.takeRequest(request, request.stepIdx)).toBe(first);
  });

  it('folds SDK denials into the result: success becomes denied, deniedActions grow', () => {
    const ledger = new TurnLedger();
    const turn = ledger.begin(ctx);
    recordDenial(turn, call, 'no', { kind: 'policy', name: 'no_shell' });
    const result = foldDenials(
      { status: 'success', deniedActions: [] } as unknown as TurnResult,
      turn.denials,
    );
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      {
        action: 'run_command',
        source: 'sdk',
        deniedBy: { kind: 'policy', name: 'no_shell' },
        reason: 'no',
        args: { CommandLine: 'rm -rf /' },
      },
    ]);
    expect(result.errorMessage).toBe("run_command denied by policy 'no_shell' (no)");
    expect(
      foldDenials({ status: 'error', deniedActions: [] } as unknown as TurnResult, turn.denials).status,
    ).toBe('error');
  });
});
