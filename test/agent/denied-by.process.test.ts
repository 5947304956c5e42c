// Every denial names who denied it (`DeniedAction.deniedBy`), in the result, its message and the logs, end to
// end through the simulator: a policy by name, the person an ask_user policy asked, a hook, the maxToolCalls
// agy's own permission check, a preTurn hook, and `capabilities.disabledTools` by the name written. (The
// maxToolCalls gate's denial: test/agent/control-plane.parts.test.ts.)
import { describe, expect, it } from 'vitest';
import { hooks } from '../../src/hooks/factories.js';
import type { Logger } from '../../src/logger.js';
import { BuiltinTools } from '../../src/model/builtin-tools.js';
import { policy } from '../../src/policy/index.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();

/** One `run_command` call, then text. */
const runCommand: Scenario = {
  turns: [
    {
      actions: [
        { tool: { name: 'run_command', parameters: { CommandLine: 'rm -rf /' }, output: 'gone' } },
        { text: 'ok' },
      ],
    },
  ],
};

/** A logger that keeps its info lines. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string) => {
    lines.push(message);
  };
  return { logger: { debug: () => {}, info: keep, warn: keep, error: keep }, lines };
}

describe('who denied a tool call', { concurrent: false }, () => {
  it("a policy's denial names the policy in deniedBy, the message and the log, never agy", async () => {
    const { logger, lines } = recordingLogger();
    const agent = await sb.agentWith(runCommand, {
      policies: [policy.deny('run_command', { name: 'no_shell' })],
      logger,
    });
    const result = await (await agent.chat('clean up')).result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      expect.objectContaining({ action: 'run_command', deniedBy: { kind: 'policy', name: 'no_shell' } }),
    ]);
    expect(result.errorMessage).toBe("run_command denied by policy 'no_shell'");
    expect(result.errorMessage).not.toMatch(/agy/);
    expect(lines).toContain("tool 'run_command' denied by policy 'no_shell': Denied by policy 'no_shell'");
  });

  it('an ask_user denial names the person who answered, and the policy that asked', async () => {
    const agent = await sb.agentWith(runCommand, {
      policies: [policy.askUser('run_command', { name: 'confirm', handler: () => false })],
    });
    const result = await (await agent.chat('clean up')).result();
    expect(result.deniedActions[0]?.deniedBy).toEqual({ kind: 'user', policy: 'confirm' });
    expect(result.deniedActions[0]?.reason).toBe("Denied by the user (asked by policy 'confirm')");
    expect(result.errorMessage).toBe("run_command denied by the user (asked by policy 'confirm')");
  });

  it('an ask_user policy nobody answered in time is the policy failing closed, not the person', async () => {
    const agent = await sb.agentWith(runCommand, {
      policies: [policy.askUser('run_command', { name: 'confirm', handler: () => new Promise(() => {}) })],
      askUserTimeoutMs: 50,
    });
    const result = await (await agent.chat('clean up')).result();
    expect(result.deniedActions[0]?.deniedBy).toEqual({ kind: 'policy', name: 'confirm' });
  });

  it("a preToolCall hook's denial names the hook", async () => {
    const agent = await sb.agentWith(runCommand, {
      policies: [],
      hooks: [hooks.preToolCall(() => ({ allow: false, message: 'not now' }), { name: 'guard' })],
    });
    const result = await (await agent.chat('clean up')).result();
    expect(result.deniedActions).toEqual([
      expect.objectContaining({ deniedBy: { kind: 'hook', name: 'guard' }, reason: 'not now' }),
    ]);
    expect(result.errorMessage).toBe("run_command denied by hook 'guard' (not now)");
  });

  it("agy's own soft denial says agy", async () => {
    const agent = await sb.agentWith(
      { turns: [{ actions: [{ deny: { action: 'run_command', parameters: { CommandLine: 'ls' } } }] }] },
      { policies: [policy.allowAll()] },
    );
    const result = await (await agent.chat('list')).result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      expect.objectContaining({ action: 'run_command', source: 'agy', deniedBy: { kind: 'agy' } }),
    ]);
    expect(result.errorMessage).toBe("RunCommand denied by agy's permission check");
  });

  it("capabilities.disabledTools names the tool as the user wrote it, not another backend's alias", async () => {
    const agent = await sb.agentWith(runCommand, {
      capabilities: { disabledTools: [BuiltinTools.RUN_COMMAND] },
      policies: [policy.allowAll()],
    });
    const result = await (await agent.chat('clean up')).result();
    const [denial] = result.deniedActions;
    expect(denial?.reason).toBe(
      "Denied by policy 'capabilities': 'run_command' is disabled by capabilities.disabledTools",
    );
    expect(denial?.deniedBy).toEqual({ kind: 'policy', name: 'capabilities' });
  });
});

describe('who denied a turn', () => {
  it("a preTurn hook's denial names the hook", async () => {
    const agent = await sb.agentWith(runCommand, {
      hooks: [hooks.preTurn(() => ({ allow: false, message: 'quiet hours' }), { name: 'office_hours' })],
    });
    const result = await (await agent.chat('clean up')).result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      expect.objectContaining({ action: 'turn', deniedBy: { kind: 'hook', name: 'office_hours' } }),
    ]);
    expect(result.errorMessage).toBe("turn denied by hook 'office_hours' (quiet hours)");
  });
});
