// "One supervisor per host process" (issue 26) and "close() of the last agent leaves no child process when it
// returns" (issue 22): every agent process of the host (agy, the version probe) runs under the host's one
// supervisor, started lazily; the last close() stops it before it returns, in-process and in a host of its own
// (which then also exits by itself); a supervisor that dies fails its sessions closed (agy and its children are
// killed, the turn ends with a typed ProcessExitError saying why) and the next start gets a new one. Real
// processes through the real spawn path (the simulator). Protocol and design: docs/architecture.md "No orphans".
import { spawn } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import type { AgentConfig } from '../../../src/agent/config.js';
import { hostSupervisor } from '../../../src/connection/process/host-supervisor.js';
import { ProcessExitError, StartError } from '../../../src/errors.js';
import { killAll } from '../../helpers/fake-agy.js';
import { statFields, supervisors } from '../../helpers/proc.js';
import { alive, type Sandbox, sandbox, waitGone } from '../../helpers/sandbox.js';

const linux = process.platform === 'linux';
const HOST = join(import.meta.dirname, '../../fixtures/supervisor-host.mjs');
const WAITER_HOST = join(import.meta.dirname, '../../fixtures/waiter-host.mjs');

/** Resident memory of a process in KiB. */
const rssKiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

/** Runs supervisor-host.mjs; resolves with what it reported and the host process. */
async function host(config: AgentConfig, mode: 'idle' | 'exit') {
  const child = spawn(process.execPath, [HOST, JSON.stringify(config), mode], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const report = await new Promise<{ during: number[]; after: number[] }>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (c) => {
      buf += c;
      if (buf.includes('\n')) resolve(JSON.parse(buf));
    });
    child.on('exit', (code) => reject(new Error(`host exited before reporting (${code})`)));
  });
  return { child, report, exited };
}

describe.skipIf(!linux)('the host supervisor (needs /proc)', () => {
  it('one supervisor serves every agent of the host; agy is the host’s own child; the last close() stops it', async () => {
    const config = await box.agentConfig();
    const agents = [new Agent(config), new Agent(config), new Agent(config)];
    const started = hostSupervisor.started;
    let sup: number | undefined;
    try {
      await Promise.all(agents.map((a) => a.start()));
      sup = hostSupervisor.pid;
      expect(sup).toBeGreaterThan(0);
      expect(supervisors()).toEqual([sup]);
      expect(hostSupervisor.started - started).toBe(1);
      for (const a of agents) expect(Number(statFields(a.pid!)?.[1])).toBe(process.pid);
      // One agent closing while others run leaves the supervisor up.
      await agents[0]!.close();
      expect(alive(sup!)).toBe(true);
      expect(hostSupervisor.pid).toBe(sup);
    } finally {
      await Promise.all(agents.map((a) => a.close()));
    }
    // Gone when close() returned: not exiting, not a zombie, gone.
    expect(supervisors()).toEqual([]);
    expect(alive(sup!)).toBe(false);
    expect(hostSupervisor.pid).toBeUndefined();
    // The next start gets a new one, lazily.
    const again = new Agent(config);
    try {
      await again.start();
      expect(hostSupervisor.pid).toBeGreaterThan(0);
      expect(hostSupervisor.pid).not.toBe(sup);
    } finally {
      await again.close();
    }
    expect(supervisors()).toEqual([]);
  });

  it('an agent’s supervisor is up from its start to its close: a restart of agy inside it boots no other', async () => {
    const config = await box.agentConfig({
      turns: [{ actions: [{ text: 'one', chunks: 1 }] }, { actions: [{ text: 'two', chunks: 1 }] }],
    });
    const agent = new Agent(config);
    const started = hostSupervisor.started;
    try {
      expect(await (await agent.chat('first')).text()).toBe('one');
      const sup = hostSupervisor.pid;
      const first = agent.pid!;
      process.kill(first, 'SIGKILL');
      expect(await waitGone([first], 15_000)).toEqual([]);
      // The next turn starts a new agy under the same supervisor.
      expect(await (await agent.chat('second')).text()).toBe('two');
      expect(agent.pid).not.toBe(first);
      expect(hostSupervisor.pid).toBe(sup);
      expect(hostSupervisor.started - started).toBe(1);
    } finally {
      await agent.close();
    }
    expect(supervisors()).toEqual([]);
  });

  it('in a host of its own: one supervisor for two agents, none left when close() returns', async () => {
    const config = await box.agentConfig();
    const { report, child } = await host(config, 'idle');
    expect(report.during).toHaveLength(1);
    expect(report.after).toEqual([]);
    expect(alive(child.pid!)).toBe(true);
  });

  it('never keeps the host alive: after the last close() the host exits by itself', async () => {
    const config = await box.agentConfig();
    const { report, exited } = await host(config, 'exit');
    expect(report.after).toEqual([]);
    expect(await exited).toBe(0);
    expect(await waitGone(report.during, 10_000)).toEqual([]);
  });

  it('a supervisor that dies fails its sessions closed (typed error, agy and children killed); the next start gets a new one', async () => {
    const children: number[] = [];
    const config = await box.agentConfig(
      {
        turns: [
          {
            actions: [
              { spawnChild: { detached: true } },
              { spawnChild: {} },
              { text: 'children started', chunks: 1 },
              { stall: true },
            ],
          },
          { actions: [{ text: 'fine again', chunks: 1 }] },
        ],
      },
      {
        onStderr: (line) => {
          const m = /child pid (\d+)/.exec(line);
          if (m) children.push(Number(m[1]));
        },
      },
    );
    const agent = new Agent(config);
    onTestFinished(() => killAll(children));
    try {
      const response = await agent.chat('spawn');
      for await (const delta of response) if (delta.includes('children started')) break;
      const agy = agent.pid!;
      const sup = hostSupervisor.pid!;
      expect(children).toHaveLength(2);
      expect([agy, ...children].every(alive)).toBe(true);
      process.kill(sup, 'SIGKILL');
      const result = await response.result();
      expect(result.status).toBe('error');
      expect(result.error).toBeInstanceOf(ProcessExitError);
      expect(result.error?.message).toMatch(
        /process supervisor \(pid \d+\) exited unexpectedly \(signal SIGKILL\)/,
      );
      // Without a supervisor nothing may outlive the host, so agy and both children were killed.
      expect(await waitGone([agy, ...children], 15_000)).toEqual([]);
      // The next turn starts a new agy under a new supervisor.
      expect(await (await agent.chat('again')).text()).toBe('fine again');
      expect(hostSupervisor.pid).toBeGreaterThan(0);
      expect(hostSupervisor.pid).not.toBe(sup);
    } finally {
      await agent.close();
    }
    expect(supervisors()).toEqual([]);
  });

  it('a supervisor that cannot be spawned fails the start (typed, agy never started); the next start works', async () => {
    const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
    const original = cp.spawn;
    const spawned: string[] = [];
    const mutable = cp as unknown as Record<string, unknown>;
    mutable.spawn = (...args: Parameters<typeof cp.spawn>) => {
      const argv = [String(args[0]), ...((args[1] as string[] | undefined) ?? [])].join(' ');
      spawned.push(argv);
      if (argv.includes('supervisor.js')) throw Object.assign(new Error('spawn EAGAIN'), { code: 'EAGAIN' });
      return (original as (...a: unknown[]) => unknown)(...args);
    };
    syncBuiltinESMExports();
    const config = await box.agentConfig();
    expect(hostSupervisor.pid).toBeUndefined();
    const agent = new Agent(config);
    try {
      const err = await agent.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StartError);
      expect((err as Error).message).toMatch(/EAGAIN/);
      expect(spawned.some((a) => a.includes('supervisor.js'))).toBe(true);
      // Without a supervisor no agy was started.
      expect(spawned.filter((a) => !a.includes('supervisor.js'))).toEqual([]);
    } finally {
      mutable.spawn = original;
      syncBuiltinESMExports();
      await agent.close();
    }
    const again = new Agent(config);
    try {
      await again.start();
      expect(hostSupervisor.pid).toBeGreaterThan(0);
    } finally {
      await again.close();
    }
    expect(supervisors()).toEqual([]);
  });
});

// The supervisor starts as a shell that waits on a wake pipe and execs the Node supervisor (same pid, the control
// lines still unread) when the host wants it to act or dies: host-supervisor.ts, docs/architecture.md "No orphans".
describe.skipIf(!linux)('the supervisor waits as a shell until it is needed (needs /proc)', () => {
  it('an agent’s supervisor is a shell of a few MB while it only waits, and goes with the last close()', async () => {
    const agent = new Agent(await box.agentConfig());
    let sup: number | undefined;
    try {
      await agent.start();
      expect(await (await agent.chat('hi')).text()).toContain('simulator');
      sup = hostSupervisor.pid!;
      expect(hostSupervisor.waiting).toBe(true);
      expect(readlinkSync(`/proc/${sup}/exe`)).not.toBe(process.execPath);
      // A Node supervisor is ~40 MB resident; the waiting shell a few.
      expect(rssKiB(sup)).toBeLessThan(8 * 1024);
    } finally {
      await agent.close();
    }
    expect(alive(sup!)).toBe(false);
    expect(supervisors()).toEqual([]);
  });

  it.each([
    ['still waiting', 'waiting', true],
    ['woken by its unread control lines', 'backlog', false],
    ['woken by a kill-tree', 'kill-tree', false],
  ] as const)(
    'a host SIGKILLed with its supervisor %s takes every session with it',
    async (_, mode, waiting) => {
      const host = spawn(process.execPath, [WAITER_HOST, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
      onTestFinished(() => {
        host.kill('SIGKILL');
      });
      const report = await new Promise<{ supervisor: number; waiting: boolean; pids: number[] }>(
        (resolve, reject) => {
          let buf = '';
          host.stdout.on('data', (c) => {
            buf += c;
            if (buf.includes('\n')) resolve(JSON.parse(buf));
          });
          host.on('exit', (code) => reject(new Error(`host exited before reporting (${code})`)));
        },
      );
      onTestFinished(() => killAll(report.pids.filter(alive)));
      expect(report.waiting).toBe(waiting);
      // Woken, it is the Node supervisor under the same pid; waiting, the shell.
      expect(readlinkSync(`/proc/${report.supervisor}/exe`) === process.execPath).toBe(!waiting);
      expect(report.pids).toHaveLength(mode === 'backlog' ? 30 : 6);
      expect(report.pids.every(alive)).toBe(true);
      host.kill('SIGKILL');
      // Every session's sh, setsid sleeper and SIGTERM-ignoring sleeper, then the supervisor itself.
      expect(await waitGone(report.pids, 20_000)).toEqual([]);
      expect(await waitGone([report.supervisor], 10_000)).toEqual([]);
    },
  );
});
