// Regression tests for failure interleavings found in review: policy bypass by name, denials that only agy
// saw, a failed restart, close() during start(). Cancel during prepare and a budget against a SUCCESS result
// need no process: test/conversation/conversation.in-memory.test.ts.
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { ClosedError, ConfigError } from '../../src/errors.js';
import { policy } from '../../src/policy/index.js';
import { toolResults, useSandboxAgents } from '../helpers/agents.js';
import { alive, waitGone } from '../helpers/sandbox.js';

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

describe('fail closed', () => {
  it('a user MCP server may not take the name of the agent’s own tool server', async () => {
    const config = await sb.box.agentConfig(undefined, {
      mcpServers: { tools: { command: process.execPath } },
      policies: [policy.denyAll()],
    });
    // Refused by the constructor already, before anything is created.
    let err: unknown;
    try {
      new Agent(config);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('mcpServers.tools');
    expect(await sb.box.sessionDirs()).toEqual([]);
  });

  it('a raw agyHooks PreToolUse deny ends the turn `denied` with the denial recorded', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/x' }, output: 'x' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      { agyHooks: [{ event: 'PreToolUse', handler: () => ({ decision: 'deny', reason: 'raw says no' }) }] },
    );
    const r = await agent.chat('read');
    const [call] = await toolResults(r);
    expect(call?.state).toBe('ERROR');
    const result = await r.result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      expect.objectContaining({ action: 'view_file', reason: 'raw says no', source: 'sdk' }),
    ]);
  });

  it('a hook that times out answers the fail-closed deny, and the turn ends `denied`', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/x' }, output: 'x' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        hookTimeoutMs: 200,
        logger: { debug() {}, info() {}, warn() {}, error() {} },
        agyHooks: [{ event: 'PreToolUse', handler: () => new Promise<never>(() => {}) }],
      },
    );
    const r = await agent.chat('read');
    const result = await r.result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions[0]?.reason).toMatch(/timed out/);
  });

  it('maxToolCalls stops the turn before the call past the budget runs (denied at PreToolUse, interrupted)', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/1' }, output: '1' } },
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/2' }, output: '2' } },
              { text: 'done' },
            ],
          },
        ],
      },
      { budget: { maxToolCalls: 1 } },
    );
    const r = await agent.chat('x');
    const finished = await toolResults(r);
    // The first call ran; the second was denied at PreToolUse and never produced output.
    expect(finished[0]?.state).toBe('DONE');
    expect(finished.filter((c) => c.state === 'DONE')).toHaveLength(1);
    const result = await r.result();
    expect(result).toMatchObject({ status: 'budget_exceeded', budget: 'maxToolCalls' });
  });
});

describe('recovery', () => {
  it('a failed restart is not final: the next attempt starts a fresh process', async () => {
    const agent = await agentWith(undefined, { model: 'good-model' });
    expect(await (await agent.chat('one')).text()).toMatch(/one/);
    await expect(agent.setModel('invalid-model')).rejects.toThrow(/invalid model selection/);
    await agent.setModel('good-model');
    expect(await (await agent.chat('two')).text()).toMatch(/two/);
    expect(agent.info?.model).toBe('good-model');
  });

  it('close() during start() leaves no process, listener or session directory behind', async () => {
    const agent = await agentWith(
      { startup: { delayMs: 400 } },
      { tools: [], agyHooks: [{ event: 'Stop', handler: () => undefined }] },
    );
    const starting = agent.start();
    const pids: number[] = [];
    // Wait until agy's process exists (it is delaying its init), then close.
    while (agent.pid === undefined) await new Promise((r) => setImmediate(r));
    pids.push(agent.pid);
    await agent.close();
    expect(await starting.catch((e: unknown) => e)).toBeInstanceOf(Error);
    expect(await waitGone(pids)).toEqual([]);
    expect(await sb.box.sessionDirs()).toEqual([]);
    expect(pids.every((p) => !alive(p))).toBe(true);
    await expect(agent.chat('x')).rejects.toBeInstanceOf(ClosedError);
  });
});
