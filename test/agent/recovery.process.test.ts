// Interrupts, model switches, resume, crashes and stalls through real processes
// (docs/reference/process.md#interrupt-with-sigint, docs/reference/process.md#model-switch,
// docs/reference/process.md#resume-after-restart).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import { ProcessExitError, WatchdogTimeoutError } from '../../src/errors.js';
import { useSandboxAgents } from '../helpers/agents.js';
import { waitGone } from '../helpers/sandbox.js';

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

const argvOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

async function firstStep(r: Awaited<ReturnType<Agent['chat']>>, type: string): Promise<void> {
  for await (const s of r.steps()) if (s.type === type) return;
}

describe('interrupt()', () => {
  it.each(['INTERRUPTED', 'ERROR'] as const)(
    'ends the turn `interrupted` (agy reports %s) and the next chat works on the same conversation',
    async (status) => {
      const agent = await agentWith({
        interrupt: { status },
        turns: [
          {
            actions: [
              { text: 'working', chunks: 1 },
              { tool: { name: 'run_command', parameters: { CommandLine: 'sleep 100' }, hang: true } },
            ],
          },
          { actions: [{ text: 'after' }] },
        ],
      });
      const r = await agent.chat('long task');
      await firstStep(r, 'tool');
      const oldPid = agent.pid!;
      const conversation = agent.conversationId;
      await agent.interrupt();
      const result = await r.result();
      expect(result.status).toBe('interrupted');
      expect(result.text).toBe('working');
      const r2 = await agent.chat('continue');
      expect(await r2.text()).toBe('after');
      expect(agent.conversationId).toBe(conversation);
      expect(agent.pid).not.toBe(oldPid);
      expect(argvOf(agent.pid!)).toEqual(expect.arrayContaining(['--conversation', conversation!]));
      expect(await waitGone([oldPid])).toEqual([]);
    },
  );

  it('is a no-op when idle', async () => {
    const agent = await agentWith();
    await agent.start();
    const pid = agent.pid;
    await agent.interrupt();
    expect(agent.pid).toBe(pid);
    expect(await (await agent.chat('hi')).text()).toMatch(/hi/);
  });

  it('cancel() on a running response ends it `canceled`; on a queued one it never runs', async () => {
    const agent = await agentWith({
      turns: [{ actions: [{ stall: true }] }, { actions: [{ text: 'third' }] }],
    });
    const running = await agent.chat('one');
    const queued = await agent.chat('two');
    const third = await agent.chat('three');
    await firstStep(running, 'user_input');
    await queued.cancel();
    await running.cancel();
    expect((await running.result()).status).toBe('canceled');
    expect((await queued.result()).status).toBe('canceled');
    expect(await third.text()).toBe('third');
  });
});

describe('setModel()', () => {
  it('waits for idle, restarts agy with --model on the same conversation', async () => {
    const agent = await agentWith(undefined, { model: 'model-a' });
    const r = await agent.chat('before');
    const switching = agent.setModel('model-b');
    expect(await r.text()).toMatch(/before/);
    await switching;
    expect(agent.info?.model).toBe('model-b');
    const argv = argvOf(agent.pid!);
    expect(argv).toEqual(
      expect.arrayContaining(['--model', 'model-b', '--conversation', agent.conversationId!]),
    );
    expect(await (await agent.chat('after')).text()).toMatch(/after/);
    expect(agent.conversation.turnCount).toBe(2);
  });
});

describe('resume with conversationId', () => {
  it('continues cumulative totals; per-turn usage still comes from steps', async () => {
    const scenario = {
      turns: [
        { actions: [{ text: 'a', usage: { input_tokens: 100, output_tokens: 10 } }] },
        { actions: [{ text: 'b', usage: { input_tokens: 300, output_tokens: 30 } }] },
      ],
    };
    const first = await agentWith(scenario);
    await (await first.chat('one')).text();
    const id = first.conversationId!;
    await first.close();

    const second = await agentWith(scenario, { conversationId: id });
    const r = await second.chat('two');
    const result = await r.result();
    expect(second.conversationId).toBe(id);
    expect(result.usage?.totalTokens).toBe(330);
    expect(result.totalUsage?.totalTokens).toBe(440);
    expect(result.result?.num_turns).toBe(2);
    expect(argvOf(second.pid!)).toEqual(expect.arrayContaining(['--conversation', id]));
  });
});

describe('crash mid-turn', () => {
  it('fails the turn with a typed error (exit code, stderr tail) and the next turn works', async () => {
    const agent = await agentWith({
      turns: [
        { actions: [{ text: 'half' }, { stderr: 'panic: runtime error' }, { exit: 2 }] },
        { actions: [{ text: 'recovered' }] },
      ],
    });
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('error');
    expect(result.exitCode).toBe(2);
    expect(result.error).toBeInstanceOf(ProcessExitError);
    expect((result.error as ProcessExitError).stderrTail).toContain('panic: runtime error');
    expect(await (await agent.chat('y')).text()).toBe('recovered');
  });

  it('a hard kill (SIGKILL) mid-turn ends `error` naming the signal', async () => {
    const agent = await agentWith({ turns: [{ actions: [{ text: 'x' }, { killSelf: 'SIGKILL' }] }] });
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('error');
    expect(result.signal).toBe('SIGKILL');
  });
});

describe('watchdog', () => {
  it('idleTimeoutMs catches a stall: interrupt, turn `timeout` with last event and stderr; session usable', async () => {
    const agent = await agentWith(
      {
        turns: [
          { actions: [{ text: 'started' }, { stderr: 'thinking hard' }, { stall: true }] },
          { actions: [{ text: 'fine' }] },
        ],
      },
      // Generous: the watchdog also runs over the second turn's fresh start, which a loaded 2-core box can
      // keep silent for well over a second; only the stall (which never ends) should trip it.
      { idleTimeoutMs: 5_000, interruptGraceMs: 2_000 },
    );
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('timeout');
    const err = result.error as WatchdogTimeoutError;
    expect(err).toBeInstanceOf(WatchdogTimeoutError);
    expect(err.kind).toBe('idle');
    expect(err.lastEvent).toContain('agent_response');
    expect(err.stderrTail).toContain('thinking hard');
    expect(await (await agent.chat('y')).text()).toBe('fine');
  });

  it('idleTimeoutMs does not fire while agy keeps talking past it (activity re-arms the watchdog)', async () => {
    const agent = await agentWith(
      // 160 chunks 25 ms apart talk for about 4 s, more than twice the 1.5 s idle bound, never quiet for long.
      { turns: [{ actions: [{ text: 'y'.repeat(160), chunks: 160, delayMs: 25 }] }] },
      { idleTimeoutMs: 1_500 },
    );
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('success');
    expect(result.text).toBe('y'.repeat(160));
  });

  it('turnTimeoutMs bounds a turn that keeps talking', async () => {
    const agent = await agentWith(
      // 400 chunks 25 ms apart keep talking for 10 s, far past the 2 s bound even on a loaded machine.
      { turns: [{ actions: [{ text: 'x'.repeat(400), chunks: 400, delayMs: 25 }] }] },
      { turnTimeoutMs: 2_000 },
    );
    const result = await (await agent.chat('x')).result();
    expect(result.status).toBe('timeout');
    expect((result.error as WatchdogTimeoutError).kind).toBe('turn');
  });

  it('chat({ turnTimeoutMs }) bounds that turn only; the next turn runs unbounded in the same session', async () => {
    const agent = await agentWith({
      turns: [
        // As above: talks for ~10 s, far past the per-turn 2 s bound.
        { actions: [{ text: 'x'.repeat(400), chunks: 400, delayMs: 25 }] },
        { actions: [{ text: 'after' }] },
      ],
    });
    const bounded = await (await agent.chat('x', { turnTimeoutMs: 2_000 })).result();
    expect(bounded.status).toBe('timeout');
    expect((bounded.error as WatchdogTimeoutError).limitMs).toBe(2_000);
    const next = await (await agent.chat('y')).result();
    expect(next.status).toBe('success');
    expect(next.text).toBe('after');
  });

  it('kills agy when it ignores SIGINT past the grace period', async () => {
    const agent = await agentWith(
      { interrupt: { ignore: true }, turns: [{ actions: [{ stall: true }] }] },
      // The idle bound must not fire before the simulator echoes `user_input` (awaited below).
      { idleTimeoutMs: 3_000, interruptGraceMs: 1_000 },
    );
    const r = await agent.chat('x');
    await firstStep(r, 'user_input');
    const pid = agent.pid!;
    const result = await r.result();
    expect(result.status).toBe('timeout');
    expect(result.signal).toBe('SIGKILL');
    expect(await waitGone([pid])).toEqual([]);
  });
});
