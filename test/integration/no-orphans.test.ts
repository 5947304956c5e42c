// "No agy process, nor any child of it, outlives the host process, even when the host is killed with SIGKILL."
// The host is a real Node process using the built package; it is SIGKILLed, and every pid must disappear.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { type Sandbox, sandbox, waitGone } from '../helpers/sandbox.js';

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
    const hostScript = join(import.meta.dirname, '../fixtures/host.mjs');
    const host = spawn(process.execPath, [hostScript, JSON.stringify(config)], {
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
    const supervisors = childrenOf(host.pid!);
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
    const { Agent } = await import('../../src/agent/agent.js');
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
