// "A spare supervisor booted ahead of time, never leaked" (issue 13): the second start takes the spare (agy's
// parent is the supervisor that was waiting), and the spare goes away when the last agent has been closed for
// the linger time, when the host exits by itself (the spare never keeps it alive), and when the host is
// SIGKILLed (its control pipe closes). Real processes through the real spawn path.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { AgentConfig } from '../../src/agent/config.js';
import { sparePool } from '../../src/connection/agy/process/spare.js';
import { until } from '../helpers/fake-agy.js';
import { alive, type Sandbox, sandbox, waitGone } from '../helpers/sandbox.js';

const linux = process.platform === 'linux';
const HOST = join(import.meta.dirname, '../fixtures/spare-host.mjs');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

function ppidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Runs spare-host.mjs; resolves with the spares it reported and the host process. */
async function hostWithSpare(config: AgentConfig, mode: 'idle' | 'exit', env: Record<string, string> = {}) {
  const host = spawn(process.execPath, [HOST, JSON.stringify(config), mode], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    host.kill('SIGKILL');
  });
  const exited = new Promise<number | null>((resolve) => host.on('exit', (code) => resolve(code)));
  const spares = await new Promise<number[]>((resolve, reject) => {
    let buf = '';
    host.stdout.on('data', (c) => {
      buf += c;
      if (buf.includes('\n')) resolve(JSON.parse(buf).spares);
    });
    host.on('exit', (code) => reject(new Error(`host exited before reporting (${code})`)));
  });
  return { host, spares, exited };
}

describe.skipIf(!linux)('the spare supervisor (needs /proc)', () => {
  it('the next start takes the spare: agy runs under the supervisor that was booted ahead', async () => {
    const config = await box.agentConfig();
    const first = new Agent(config);
    const second = new Agent(config);
    try {
      await first.start();
      // The version probe runs after the first `init` and may take a spare itself: let it finish first.
      expect(await until(() => typeof first.agyVersion === 'string')).toBe(true);
      expect(await until(() => sparePool.pid !== undefined)).toBe(true);
      const spare = sparePool.pid!;
      await second.start();
      expect(ppidOf(second.pid!)).toBe(spare);
      // A new spare is booted after the second start's `init`, never the same process twice.
      expect(await until(() => sparePool.pid !== undefined && sparePool.pid !== spare)).toBe(true);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('is closed once the last agent has been closed for the linger time', async () => {
    const config = await box.agentConfig();
    const { spares } = await hostWithSpare(config, 'idle', { AGY_SDK_SPARE_LINGER_MS: '300' });
    expect(spares.length).toBeGreaterThan(0);
    // The host still runs; only the linger closed it.
    expect(await waitGone(spares, 20_000)).toEqual([]);
  });

  it('never keeps the host alive, and goes when the host exits by itself', async () => {
    const config = await box.agentConfig();
    // Default linger (10 s): the host must not wait for it.
    const { spares, exited } = await hostWithSpare(config, 'exit');
    expect(spares.length).toBeGreaterThan(0);
    expect(await exited).toBe(0);
    expect(await waitGone(spares, 20_000)).toEqual([]);
  });

  it('goes when the host is SIGKILLed', async () => {
    const config = await box.agentConfig();
    const { host, spares } = await hostWithSpare(config, 'idle', { AGY_SDK_SPARE_LINGER_MS: '600000' });
    expect(spares.length).toBeGreaterThan(0);
    expect(spares.every(alive)).toBe(true);
    host.kill('SIGKILL');
    expect(await waitGone(spares, 20_000)).toEqual([]);
  });
});
