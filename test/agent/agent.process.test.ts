// End to end through real spawns of the simulator (docs/reference/stream-json.md#successful-turn, docs/reference/stream-json.md#launch-flags, docs/reference/stream-json.md#user-line).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AGY_CAPABILITIES } from '../../src/connection/agy/capabilities.js';
import { AgyNotFoundError, ConfigError, StartError } from '../../src/errors.js';
import { TurnError } from '../../src/model/turn-errors.js';
import { useSandboxAgents } from '../helpers/agents.js';
import { until } from '../helpers/fake-agy.js';
import { waitGone } from '../helpers/sandbox.js';

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

describe('launch (docs/reference/stream-json.md#launch-flags)', () => {
  it('passes the stream-json flags, never -p, one --add-dir per workspace plus the session dir; env merged', async () => {
    const agent = await agentWith(undefined, {
      model: 'gemini-test',
      effort: 'low',
      env: { MY_VAR: 'kept' },
    });
    await agent.start();
    const argv = readFileSync(`/proc/${agent.pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    const args = argv.slice(argv.indexOf('--input-format'));
    expect(args.slice(0, 6)).toEqual([
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--print-timeout',
      '0',
    ]);
    expect(args).not.toContain('-p');
    expect(args).not.toContain('--print');
    const addDirs = args.flatMap((a, i) => (a === '--add-dir' ? [args[i + 1]] : []));
    expect(addDirs).toEqual([sb.box.workspace, agent.sessionDir]);
    expect(args).toEqual(expect.arrayContaining(['--model', 'gemini-test', '--effort', 'low']));
    expect(args).not.toContain('--dangerously-skip-permissions');
    const env = readFileSync(`/proc/${agent.pid}/environ`, 'utf8').split('\0');
    expect(env).toContain('AGY_CLI_DISABLE_AUTO_UPDATE=1');
    expect(env).toContain('MY_VAR=kept');
    expect(env.some((e) => e.startsWith('PATH='))).toBe(true);
    // The simulator imitates the newest captured agy (1.3.1) by default. The version probe runs after `init`
    // (off the start's critical path), so on a binary's first start it answers shortly after start().
    // Bounded generously: on a loaded CI box the probe waits for a spawn slot behind other tests' starts.
    expect(await until(() => agent.agyVersion === '1.3.1', 45_000)).toBe(true);
    expect(agent.info?.permissionMode).toBe('request-review');
  });

  it("reports agy's fixed capabilities (docs/backends.md) with the probed version, and the live pid", async () => {
    const agent = await agentWith();
    await agent.start();
    // Bounded generously, as above: the version probe runs after `init`.
    expect(await until(() => agent.agyVersion === '1.3.1', 45_000)).toBe(true);
    expect(agent.capabilities).toEqual({ ...AGY_CAPABILITIES, agentVersion: '1.3.1' });
    expect(agent.pid).toBe(agent.info?.pid);
    expect(readFileSync(`/proc/${agent.pid}/cmdline`, 'utf8')).toContain('stream-json');
  });

  it('reports init facts and the conversation id', async () => {
    const agent = await agentWith(undefined, { dangerouslySkipPermissions: true });
    await agent.start();
    expect(agent.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(agent.info?.permissionMode).toBe('always-proceed');
    expect(agent.info?.tools.length).toBeGreaterThan(0);
  });
});

describe('chat', () => {
  it('runs several turns in one process: per-turn usage from steps, cumulative totals from result', async () => {
    const agent = await agentWith({
      turns: [
        { actions: [{ text: 'one', usage: { input_tokens: 100, output_tokens: 10, thinking_tokens: 4 } }] },
        {
          actions: [{ text: 'two', usage: { input_tokens: 200, output_tokens: 20, cache_read_tokens: 50 } }],
        },
      ],
    });
    const r1 = await agent.chat('first');
    expect(await r1.text()).toBe('one');
    expect(r1.usage).toEqual({
      inputTokens: 100,
      outputTokens: 10,
      thinkingTokens: 4,
      cacheReadTokens: 0,
      totalTokens: 110,
      cacheWriteTokens: 0,
      costUsd: null,
    });
    const pid = agent.pid;
    const r2 = await agent.chat('second');
    expect(await r2.text()).toBe('two');
    expect(r2.usage).toEqual({
      inputTokens: 200,
      outputTokens: 20,
      thinkingTokens: 0,
      cacheReadTokens: 50,
      totalTokens: 220,
      cacheWriteTokens: 0,
      costUsd: null,
    });
    expect(agent.pid).toBe(pid);
    expect(agent.conversation.turnCount).toBe(2);
    expect(agent.conversation.lastTurnUsage?.totalTokens).toBe(220);
    expect(agent.conversation.totalUsage).toEqual({
      inputTokens: 300,
      outputTokens: 30,
      thinkingTokens: 4,
      cacheReadTokens: 50,
      totalTokens: 330,
      cacheWriteTokens: 0,
      costUsd: null,
    });
    expect((await r2.result()).result?.num_turns).toBe(2);
  });

  it('counts a repeated DONE once', async () => {
    const agent = await agentWith({
      turns: [{ actions: [{ text: 'x', duplicateDone: 3, usage: { input_tokens: 10, output_tokens: 2 } }] }],
    });
    const r = await agent.chat('go');
    expect((await r.result()).usage?.totalTokens).toBe(12);
  });
});

describe('fail-closed outcomes through real processes', () => {
  it('denied: SUCCESS with denied_actions ends `denied`; text() rejects with TurnError carrying the result', async () => {
    const agent = await agentWith({
      turns: [{ actions: [{ deny: { action: 'write_file', display_name: 'Write file' } }] }],
    });
    const r = await agent.chat('write');
    const result = await r.result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      { action: 'write_file', displayName: 'Write file', source: 'agy', deniedBy: { kind: 'agy' } },
    ]);
    expect(result.result?.status).toBe('SUCCESS');
    const err = await r.text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TurnError);
    expect((err as TurnError).result).toBe(result);
  });

  it('quota: exit 3 with the markers → quota_exhausted; the next turn runs in a new process', async () => {
    const agent = await agentWith({
      turns: [{ actions: [{ text: 'partial' }], end: { quota: true } }, { actions: [{ text: 'back' }] }],
    });
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('quota_exhausted');
    expect(result.stderrTail).toMatch(/quota/i);
    expect(await (await agent.chat('again')).text()).toBe('back');
  });

  it('print timeout (1.2.17: exit 0, SUCCESS, zero usage) → timeout, usage unknown', async () => {
    const agent = await agentWith({ turns: [{ actions: [{ text: 'part' }], end: { printTimeout: true } }] });
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('timeout');
    expect(result.totalUsage).toBeNull();
  });

  it('agent_response step in ERROR → error', async () => {
    const agent = await agentWith({ turns: [{ actions: [{ text: 'oops', error: true }] }] });
    expect((await (await agent.chat('x')).result()).status).toBe('error');
  });

  it('an unknown status → error', async () => {
    const agent = await agentWith({ turns: [{ actions: [{ text: 'w' }], end: { status: 'WAITING' } }] });
    const result = await (await agent.chat('x')).result();
    expect(result).toMatchObject({ status: 'error', errorMessage: 'agy: status WAITING' });
  });

  it('exit 0 with no result → error', async () => {
    const agent = await agentWith({
      turns: [{ actions: [{ text: 'cut' }], end: { noResult: true } }, { actions: [{ text: 'ok' }] }],
    });
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('error');
    expect(result.exitCode).toBe(0);
    expect(result.text).toBe('cut');
    expect(await (await agent.chat('y')).text()).toBe('ok');
  });
});

describe('start failures', () => {
  it('a result before init (not signed in) rejects start() with the cause, exit code and stderr tail', async () => {
    const agent = await agentWith({ startup: { authFail: true } });
    const err = (await agent.start().catch((e: unknown) => e)) as StartError;
    expect(err).toBeInstanceOf(StartError);
    expect(err.reason).toBe('authentication failed or timed out');
    expect(err.exitCode).toBe(1);
    expect(err.status).toBe('auth_failed');
    expect(err.message).toMatch(/authentication failed or timed out \(exit 1\)/);
    expect(await sb.box.sessionDirs()).toEqual([]);
  });

  it('an exit before init rejects with the exit code and stderr', async () => {
    const agent = await agentWith({
      startup: { exitBeforeInit: { code: 7, stderr: 'boom: broken install' } },
    });
    const err = (await agent.start().catch((e: unknown) => e)) as StartError;
    expect(err.exitCode).toBe(7);
    expect(err.stderrTail).toContain('boom: broken install');
  });

  it('no init within startTimeoutMs rejects and kills agy', async () => {
    const agent = await agentWith({ startup: { noInit: true } }, { startTimeoutMs: 300 });
    const err = (await agent.start().catch((e: unknown) => e)) as StartError;
    expect(err).toBeInstanceOf(StartError);
    expect(err.message).toMatch(/did not send init within 300 ms/);
  });

  it("an invalid model fails start with agy's reason", async () => {
    const agent = await agentWith(undefined, { model: 'invalid-model' });
    const err = (await agent.start().catch((e: unknown) => e)) as StartError;
    // agy's own wording: agy-real/joiomi-playbook-plugin-agy-1.3.1/error-model-rejected.stdout
    expect(err.reason).toMatch(
      /^invalid model selection \(--model "invalid-model" --effort ""\): model invalid-model is not recognized/,
    );
  });

  it('a missing binary lists every path tried', async () => {
    const agent = new Agent({ ...(await sb.box.agentConfig()), agyPath: '/nonexistent/agy' });
    const err = (await agent.start().catch((e: unknown) => e)) as AgyNotFoundError;
    expect(err).toBeInstanceOf(AgyNotFoundError);
    expect(err.tried).toEqual(['/nonexistent/agy']);
    const viaPath = new Agent({
      ...(await sb.box.agentConfig()),
      agyPath: undefined,
      env: { PATH: `${sb.box.root}:/nonexistent-dir`, AGY_PATH: undefined },
    });
    const err2 = (await viaPath.start().catch((e: unknown) => e)) as AgyNotFoundError;
    expect(err2.tried).toEqual([`${sb.box.root}/agy`, '/nonexistent-dir/agy']);
  });
});

describe('config validation', () => {
  it('refuses relative, missing and hidden-segment workspaces, naming the field', () => {
    expect(() => new Agent({ workspaces: ['rel'] })).toThrow(ConfigError);
    expect(() => new Agent({ workspaces: ['/nonexistent-x'] })).toThrow(/workspaces\[0\].*does not exist/);
    try {
      new Agent({ workspaces: ['/tmp', '/home/.hidden/x'] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).field).toBe('workspaces[1]');
      expect((err as Error).message).toMatch(/agy would silently ignore/);
    }
  });

  it('refuses system instructions over 24,000 bytes and bad numbers', () => {
    expect(() => new Agent({ workspaces: ['/tmp'], systemInstructions: 'x'.repeat(24_001) })).toThrow(
      /24000 bytes/,
    );
    expect(() => new Agent({ workspaces: ['/tmp'], idleTimeoutMs: -1 })).toThrow(/idleTimeoutMs/);
    expect(() => new Agent({ workspaces: ['/tmp'], effort: 'ultra' as 'low' })).toThrow(/effort/);
  });
});

describe('lifecycle', () => {
  it('close() stops agy, removes the session dir, and is idempotent; chat after close rejects', async () => {
    const agent = await agentWith();
    await agent.start();
    const pid = agent.pid!;
    const dir = agent.sessionDir!;
    expect(await sb.box.sessionDirs()).toHaveLength(1);
    await agent.close();
    await agent.close();
    expect(await waitGone([pid])).toEqual([]);
    expect(await sb.box.sessionDirs()).toEqual([]);
    expect(dir).toBeTruthy();
    await expect(agent.chat('x')).rejects.toThrow(/closed/);
  });

  it('await using closes the agent', async () => {
    let pid = 0;
    {
      await using agent = new Agent(await sb.box.agentConfig());
      await agent.start();
      pid = agent.pid!;
    }
    expect(await waitGone([pid])).toEqual([]);
  });

  it('close() is bounded when agy ignores stdin EOF (stall) — SIGTERM/SIGKILL to the group', async () => {
    const agent = await agentWith({ turns: [{ actions: [{ stall: true }] }] }, { closeGraceMs: 200 });
    const r = await agent.chat('hang');
    for await (const s of r.steps()) if (s.type === 'user_input') break;
    const pid = agent.pid!;
    const t0 = Date.now();
    await agent.close();
    // Bounded, not instant: grace + SIGTERM + SIGKILL, with room for a loaded 2-core machine.
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(await waitGone([pid])).toEqual([]);
    expect((await r.result()).status).toBe('canceled');
  });
});
