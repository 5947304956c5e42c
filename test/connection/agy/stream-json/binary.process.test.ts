// "Every process the SDK starts is bounded in time and killed on timeout and on close": the `agy --version`
// probe, with a fake agy whose probe hangs (and ignores SIGTERM). The probe answer is cached per binary path for
// the life of the process, and test files share a worker process (vitest `isolate: false`), where other files
// probe the same fake agy successfully: so each test here runs its own copy of the fake, at a path no cache holds.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { AgentConfig } from '../../../../src/agent/config.js';
import { AgyConnection } from '../../../../src/connection/agy/agy-connection.js';
import { freshFakeAgy, killAll, pidsOf, recorded, until } from '../../../helpers/fake-agy.js';
import { alive, type Sandbox, sandbox, waitGone } from '../../../helpers/sandbox.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

const linux = process.platform === 'linux';
const HOST = join(import.meta.dirname, '../../../fixtures/host.mjs');

async function hangingProbeConfig(): Promise<{ config: AgentConfig; pids: string; agyPath: string }> {
  const pids = join(box.root, 'pids');
  const agyPath = freshFakeAgy(box.root);
  const config = await box.agentConfig(undefined, {
    agyPath,
    env: { FAKE_AGY_VERSION_HANG: '1', FAKE_AGY_PIDS: pids },
  });
  onTestFinished(() => killAll((recorded(pids).get('probe') ?? []).map(Number)));
  return { config, pids, agyPath };
}

describe.skipIf(!linux)('the version probe is bounded and never outlives its owner (needs /proc)', () => {
  it('close() kills a hanging `agy --version`', async () => {
    const { config, pids } = await hangingProbeConfig();
    const { Agent } = await import('../../../../src/agent/agent.js');
    const agent = new Agent(config);
    const started = agent.start().catch(() => {});
    expect(await until(() => pidsOf(pids, 'probe').length > 0)).toBe(true);
    const [probe] = pidsOf(pids, 'probe');
    expect(alive(probe!)).toBe(true);
    await agent.close();
    await started;
    // Well below the probe's own 10 s timeout: close() killed it, not the timeout.
    expect(await waitGone([probe!], 6000)).toEqual([]);
  });

  it('a SIGKILLed host takes a hanging `agy --version` with it', async () => {
    const { config, pids } = await hangingProbeConfig();
    const host = spawn(process.execPath, [HOST, JSON.stringify(config), 'start'], { stdio: 'ignore' });
    onTestFinished(() => {
      host.kill('SIGKILL');
    });
    expect(await until(() => pidsOf(pids, 'probe').length > 0)).toBe(true);
    const probes = pidsOf(pids, 'probe');
    expect(probes.every(alive)).toBe(true);
    host.kill('SIGKILL');
    expect(await waitGone(probes, 20_000)).toEqual([]);
  });

  it('a hanging probe is killed on its timeout; start() still succeeds with version null', async () => {
    const { config, pids, agyPath } = await hangingProbeConfig();
    const conn = new AgyConnection({
      agyPath,
      cwd: box.workspace,
      env: config.env,
      addDirs: [],
      // Long enough for the fake agy (a Node script) to start and record its pid on a loaded box.
      versionProbeTimeoutMs: 4000,
    });
    try {
      const info = await conn.start();
      expect(info.version).toBeNull();
      // The probe runs after `init` (off the start's critical path), so it may start after start() returned.
      expect(await until(() => pidsOf(pids, 'probe').length > 0)).toBe(true);
      const [probe] = pidsOf(pids, 'probe');
      expect(probe).toBeGreaterThan(0);
      expect(await waitGone([probe!], 15_000)).toEqual([]);
      // A killed probe's answer is null, and stays so.
      expect(conn.info.version).toBeNull();
    } finally {
      await conn.close();
    }
  });
});
