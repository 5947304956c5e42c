// "No agy process, nor any child of it, outlives the host process, even when the host is killed with SIGKILL."
// The host is a real Node process using the built package; it is SIGKILLed, and every pid must disappear.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { AgentConfig } from '../../../src/agent/config.js';
import { marked } from '../../../src/platform/linux-proc.js';
import { FAKE_AGY, killAll, markedSurvivors, pidsOf, recorded } from '../../helpers/fake-agy.js';
import { alive, type Sandbox, sandbox, waitGone } from '../../helpers/sandbox.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * The host's supervisor (one for all its sessions). Not its short-lived `agy --version` probe: it runs after
 * init and may exit at any moment, which is not what these tests are about.
 */
function supervisorsOf(pid: number): number[] {
  return childrenOf(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('supervisor');
    } catch {
      return false; // gone
    }
  });
}

describe('no orphans', () => {
  it('kills agy and its children (in-group and setsid ones) when the host is SIGKILLed mid-turn', async () => {
    const config = await box.agentConfig({
      turns: [
        {
          actions: [
            { spawnChild: {} },
            { spawnChild: { detached: true } },
            { text: 'children started', chunks: 1 },
            { stall: true },
          ],
        },
      ],
    });
    const hostScript = join(import.meta.dirname, '../../fixtures/host.mjs');
    const host = spawn(process.execPath, [hostScript, JSON.stringify(config), 'chat', '2'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Never leave the host behind, even when an assertion fails.
    onTestFinished(() => {
      host.kill('SIGKILL');
    });
    const report = await new Promise<{ agy: number; children: number[] }>((resolve, reject) => {
      let buf = '';
      host.stdout.on('data', (c) => {
        buf += c;
        if (buf.includes('\n')) resolve(JSON.parse(buf));
      });
      host.on('exit', (code) => reject(new Error(`host exited early (${code})`)));
    });
    const supervisors = supervisorsOf(host.pid!);
    const pids = [report.agy, ...report.children, ...supervisors];
    expect(report.children).toHaveLength(2);
    expect(supervisors.length).toBeGreaterThan(0);
    expect(await waitGone(pids, 100)).toEqual(pids); // all alive before the kill
    host.kill('SIGKILL');
    expect(await waitGone(pids, 10_000)).toEqual([]);
  });
});

describe('no orphans on a normal close', () => {
  it('close() also kills children that left agy’s process group (setsid), once agy has exited', async () => {
    const children: number[] = [];
    const config = await box.agentConfig(
      {
        turns: [
          {
            actions: [{ spawnChild: { detached: true } }, { spawnChild: {} }, { text: 'spawned', chunks: 1 }],
          },
        ],
      },
      {
        onStderr: (line) => {
          const m = /child pid (\d+)/.exec(line);
          if (m) children.push(Number(m[1]));
        },
      },
    );
    const { Agent } = await import('../../../src/agent/agent.js');
    const agent = new Agent(config);
    try {
      expect(await (await agent.chat('spawn')).text()).toBe('spawned');
      expect(children).toHaveLength(2);
      expect(await waitGone(children, 50)).toEqual(children);
    } finally {
      await agent.close();
    }
    expect(await waitGone(children)).toEqual([]);
  });
});

// The marker scan reads /proc; elsewhere only the process group protects (see docs/architecture.md "No orphans").
const linux = process.platform === 'linux';
const HOST = join(import.meta.dirname, '../../fixtures/host.mjs');

/** An Agent config running the fake agy in `mode`, recording into a pid file. */
async function fakeConfig(
  mode: string,
  env: Record<string, string> = {},
): Promise<{ config: AgentConfig; pids: string }> {
  const pids = join(box.root, 'pids');
  const config = await box.agentConfig(undefined, {
    agyPath: FAKE_AGY,
    env: { FAKE_AGY_MODE: mode, FAKE_AGY_PIDS: pids, ...env },
  });
  // Whatever a failing test leaves behind dies with it.
  onTestFinished(() => {
    const all = [...recorded(pids).entries()].filter(([k]) => k !== 'mark').flatMap(([, v]) => v.map(Number));
    killAll(all);
  });
  return { config, pids };
}

/** The markers every fake agy process of the test inherited (a retried turn starts a second one). */
function marksOf(pids: string): string[] {
  const marks = (recorded(pids).get('mark') ?? []).filter((m) => m !== '');
  if (marks.length === 0) throw new Error('the fake agy did not inherit a session marker');
  return marks;
}

/** Live processes holding any of the markers, once none is left or after a generous timeout. */
async function survivorsOf(pids: string): Promise<number[]> {
  const out: number[] = [];
  for (const mark of marksOf(pids)) out.push(...(await markedSurvivors(mark)));
  return out;
}

/** Starts host.mjs with `config` and kills it when the test ends. */
function startHost(config: AgentConfig, mode: 'chat' | 'start') {
  const host = spawn(process.execPath, [HOST, JSON.stringify(config), mode], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    host.kill('SIGKILL');
  });
  return host;
}

describe.skipIf(!linux)('no orphans on every exit path (fake agy, session marker)', () => {
  it('agy exits 0 right after starting a setsid child: the child dies with it, before any close()', async () => {
    const { config, pids } = await fakeConfig('setsid-exit');
    const { Agent } = await import('../../../src/agent/agent.js');
    const agent = new Agent(config);
    try {
      const result = await (await agent.chat('go')).result();
      // An exit before the result is never a success.
      expect(result.status).toBe('error');
      // agy wrote nothing for the turn, so the SDK retried it once in a fresh agy, which did the same.
      const children = pidsOf(pids, 'child');
      expect(children.length).toBeGreaterThan(0);
      expect(await waitGone(children, 15_000)).toEqual([]);
      expect(await survivorsOf(pids)).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('agy SIGKILLed mid-turn after starting a setsid child: the child dies too, before any close()', async () => {
    const { config, pids } = await fakeConfig('setsid-stall');
    const { Agent } = await import('../../../src/agent/agent.js');
    const agent = new Agent(config);
    try {
      const response = await agent.chat('go');
      for await (const delta of response) if (delta.includes('children started')) break;
      const [child] = pidsOf(pids, 'child');
      const [mark] = marksOf(pids);
      // The child carries the marker although it left agy's session.
      expect(marked(mark!).map((f) => f.pid)).toContain(child);
      process.kill(agent.pid!, 'SIGKILL');
      expect(await waitGone([child!], 15_000)).toEqual([]);
      expect(await survivorsOf(pids)).toEqual([]);
      expect((await response.result()).status).toBe('error');
    } finally {
      await agent.close();
    }
  });

  it('close() kills a double-forked setsid daemon and an in-group grandchild, both ignoring SIGTERM', async () => {
    const { config, pids } = await fakeConfig('daemon');
    const { Agent } = await import('../../../src/agent/agent.js');
    const agent = new Agent(config);
    let left: number[];
    try {
      expect(await (await agent.chat('go')).text()).toBe('children started');
      left = [...pidsOf(pids, 'daemon'), ...pidsOf(pids, 'child')];
      expect(left).toHaveLength(2);
      expect(left.every(alive)).toBe(true);
    } finally {
      await agent.close();
    }
    expect(await waitGone(left, 15_000)).toEqual([]);
    expect(await survivorsOf(pids)).toEqual([]);
  });

  it('a SIGKILLed host takes the double-forked daemon and the SIGTERM-ignoring grandchild with it', async () => {
    const { config, pids } = await fakeConfig('daemon');
    const host = startHost(config, 'chat');
    const report = await new Promise<{ agy: number }>((resolve, reject) => {
      let buf = '';
      host.stdout.on('data', (c) => {
        buf += c;
        if (buf.includes('\n')) resolve(JSON.parse(buf));
      });
      host.on('exit', (code) => reject(new Error(`host exited early (${code})`)));
    });
    const supervisors = supervisorsOf(host.pid!);
    const left = [report.agy, ...pidsOf(pids, 'daemon'), ...pidsOf(pids, 'child'), ...supervisors];
    expect(left.length).toBeGreaterThanOrEqual(4);
    expect(left.every(alive)).toBe(true);
    host.kill('SIGKILL');
    expect(await waitGone(left, 20_000)).toEqual([]);
    expect(await survivorsOf(pids)).toEqual([]);
  });

  it('a child that cleared its environment and left the tree is still killed if it was agy’s descendant during a turn', async () => {
    const { config, pids } = await fakeConfig('env-clear-slow');
    const { Agent } = await import('../../../src/agent/agent.js');
    const agent = new Agent(config);
    let escaped: number | undefined;
    try {
      expect(await (await agent.chat('go')).text()).toBe('escaped');
      escaped = pidsOf(pids, 'escaped')[0];
      expect(escaped).toBeGreaterThan(0);
      // No marker and no tie to agy any more: its parent exited, it was re-parented away from agy's tree.
      expect(alive(escaped!)).toBe(true);
      expect(marked(marksOf(pids)[0]!).map((f) => f.pid)).not.toContain(escaped);
      expect(childrenOf(agent.pid!)).not.toContain(escaped);
    } finally {
      await agent.close();
    }
    // The host's scan saw it under agy while the turn ran (sampled each second), and told the supervisor.
    const left = await waitGone([escaped!], 15_000);
    killAll(left);
    expect(left).toEqual([]);
  });

  it('shows the boundary: a child that clears its environment (env -i) and leaves the session escapes', async () => {
    const { config, pids } = await fakeConfig('env-clear');
    const { Agent } = await import('../../../src/agent/agent.js');
    const agent = new Agent(config);
    let escaped: number | undefined;
    try {
      expect(await (await agent.chat('go')).text()).toBe('escaped');
      escaped = pidsOf(pids, 'escaped')[0];
    } finally {
      await agent.close();
    }
    expect(escaped).toBeGreaterThan(0);
    // Nothing marked is left, yet the escaped process lives: no marker, no group, no session ties it to agy.
    expect(await survivorsOf(pids)).toEqual([]);
    expect(alive(escaped!)).toBe(true);
    killAll([escaped!]);
  });
});
