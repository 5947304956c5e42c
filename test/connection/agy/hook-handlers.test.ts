// The agy hook adapter's request side with a recording host: agy's wire payloads in, typed host calls out,
// and the host's verdicts back as agy answers. No process: the wire-to-host translation alone.
import { describe, expect, it } from 'vitest';
import { AgyHookHandlers } from '../../../src/connection/agy/hook-handlers.js';
import type { HostNeeds, ToolCallDecision, ToolCallHost } from '../../../src/connection/host.js';
import type { HookToolCall } from '../../../src/hooks/types.js';
import type { AgyHookRegistration } from '../../../src/protocol/hook-wire.js';

function recordingHost(verdict: ToolCallDecision, needs: Partial<HostNeeds> = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const host: ToolCallHost = {
    needs: () => ({ toolGate: true, toolResults: true, stop: true, steering: true, ...needs }),
    toolCallRequested: (key, call) => calls.push(['requested', key, call]),
    gateToolCall: async (call, opts) => {
      // Recorded as whether an own tool is only asked about (the gate's full run happens in-process).
      calls.push(['before', call, { gatedInProcess: opts?.ownTool === 'asked' }]);
      return verdict;
    },
    toolCallAnswered: (key, call, v) => calls.push(['answered', key, call, v]),
    toolCallEnded: async (call, outcome) => {
      calls.push(['ended', call, outcome]);
      return undefined;
    },
    beforeModelCall: () => ['steer me'],
    onStop: async (event) => {
      calls.push(['stop', event]);
      return { reason: 'keep going' };
    },
  };
  return { host, calls };
}

function handler(regs: AgyHookRegistration[], event: string) {
  const reg = regs.find((r) => r.event === event);
  if (!reg) throw new Error(`no ${event} registration`);
  return reg.handler as (input: unknown) => Promise<unknown> | unknown;
}

const mcpInput = {
  conversationId: 'c1',
  stepIdx: 4,
  toolCall: {
    name: 'call_mcp_tool',
    args: { ServerName: 'agy-sdk_docs', ToolName: 'search', Arguments: { q: 'x' } },
  },
};

describe('AgyHookHandlers', () => {
  it('gates PreInvocation on the steering queue only when no raw agyHooks handler needs every model call', () => {
    const { host } = recordingHost({ allow: true });
    const watching: ToolCallHost = { ...host, watchSteering: () => () => {} };
    expect(new AgyHookHandlers(watching, { hasOwnTools: false }).preInvocationIsSteeringOnly).toBe(true);
    // A user's own PreInvocation hook runs before every model call: the command must always ask.
    const raw: AgyHookRegistration[] = [{ event: 'PreInvocation', handler: () => undefined }];
    expect(
      new AgyHookHandlers(watching, { hasOwnTools: false, agyHooks: raw }).preInvocationIsSteeringOnly,
    ).toBe(false);
    // A host that cannot say when messages wait, or steering off: no gate.
    expect(new AgyHookHandlers(host, { hasOwnTools: false }).preInvocationIsSteeringOnly).toBe(false);
    const { host: noSteering } = recordingHost({ allow: true }, { steering: false });
    const off: ToolCallHost = { ...noSteering, watchSteering: () => () => {} };
    expect(new AgyHookHandlers(off, { hasOwnTools: false }).preInvocationIsSteeringOnly).toBe(false);
  });

  it('installs only the hook events the host needs', () => {
    const { host } = recordingHost({ allow: true }, { toolResults: false, stop: false });
    const events = new AgyHookHandlers(host, { hasOwnTools: false }).registrations().map((r) => r.event);
    expect(events).toEqual(['PreToolUse', 'PreInvocation']);
  });

  it('unwraps call_mcp_tool into a typed call and wraps modified args back into Arguments', async () => {
    const { host, calls } = recordingHost({ allow: true, args: { q: 'y' } });
    const regs = new AgyHookHandlers(host, { hasOwnTools: false }).registrations();
    const answer = await handler(regs, 'PreToolUse')(mcpInput);
    expect(answer).toEqual({ decision: 'allow', overwrite: { Arguments: { q: 'y' } } });
    const call = calls[0]?.[1] as HookToolCall;
    expect(call).toMatchObject({ name: 'search', server: 'docs', args: { q: 'x' }, stepIndex: 4 });
    expect(calls[0]?.[2]).toEqual({ gatedInProcess: false });
  });

  it("marks the agent's own tools as gated in-process, and a deny verdict becomes agy's deny", async () => {
    const { host, calls } = recordingHost({ allow: false, reason: 'no' });
    const regs = new AgyHookHandlers(host, { hasOwnTools: true }).registrations();
    const own = {
      ...mcpInput,
      toolCall: { name: 'call_mcp_tool', args: { ServerName: 'agy-sdk_tools', ToolName: 't' } },
    };
    expect(await handler(regs, 'PreToolUse')(own)).toEqual({ decision: 'deny', reason: 'no' });
    expect(calls[0]?.[2]).toEqual({ gatedInProcess: true });
  });

  it('turns the answer agy received into a verdict, keyed by the request object', async () => {
    // No gate of the host's own here: the request is noted, and the answer (a raw hook's) becomes the verdict.
    const { host, calls } = recordingHost({ allow: true }, { toolGate: false });
    const h = new AgyHookHandlers(host, { hasOwnTools: false });
    await h.answer('PreToolUse', mcpInput, { signal: new AbortController().signal });
    h.answered?.('PreToolUse', mcpInput, { decision: 'deny' });
    h.answered?.('Stop', mcpInput, { decision: 'deny' });
    expect(calls.map((c) => c[0])).toEqual(['requested', 'answered']);
    expect(calls[0]?.[1]).toBe(mcpInput);
    expect(calls[1]?.[1]).toBe(mcpInput);
    expect(calls[1]?.[3]).toMatchObject({
      allow: false,
      reason: 'agy hook answered deny',
      deniedBy: { kind: 'sdk' },
    });
  });

  // agy-real/hooks-anti-samcheonpo-agy-1.3.0: PostToolUse carries only `error` ("" for none), Stop no stepIdx.
  it('maps PostToolUse errors and output, Stop and PreInvocation', async () => {
    const { host, calls } = recordingHost({ allow: true });
    const regs = new AgyHookHandlers(host, { hasOwnTools: false }).registrations();
    const cmd = { stepIdx: 2, toolCall: { name: 'run_command', args: { CommandLine: 'ls' } } };
    await handler(regs, 'PostToolUse')({ ...cmd, error: '' });
    await handler(regs, 'PostToolUse')({ ...cmd, error: { message: 'boom' } });
    await handler(regs, 'PostToolUse')({ ...cmd, error: '', toolResult: { output: 'a\nb' } });
    expect(calls.map((c) => c[2])).toEqual([{}, { error: 'boom' }, { output: 'a\nb' }]);
    expect(await handler(regs, 'Stop')({ responseText: 'done', error: '' })).toEqual({
      decision: 'continue',
      reason: 'keep going',
    });
    expect(calls[3]).toEqual(['stop', { responseText: 'done' }]);
    expect(await handler(regs, 'PreInvocation')({})).toEqual({ injectSteps: [{ userMessage: 'steer me' }] });
  });
});
