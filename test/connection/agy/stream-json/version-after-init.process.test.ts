// "The version probe is not on the start's critical path" (issue 13): `agy --version` runs after `init`, so the
// first start per binary returns without waiting for it, `agyVersion` becomes right once it answers, and every
// later start has the cached answer at once. The answer is cached per binary path for the life of the process,
// and test files share a worker: the hanging-probe test runs its own copy of the fake agy.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../../../../src/agent/agent.js';
import { CASSETTE_FORMAT, CASSETTE_VERSION } from '../../../../src/cassette/format.js';
import {
  cachedAgyVersion,
  probeAgyVersion,
  probesStopped,
} from '../../../../src/connection/agy/stream-json/binary.js';
import { hostSupervisor } from '../../../../src/connection/process/host-supervisor.js';
import { replayCassette, serializeCassette } from '../../../../src/testing/cassette/index.js';
import { simulatorPath } from '../../../../src/testing/simulator/path.js';
import { freshFakeAgy, killAll, pidsOf, recorded, until } from '../../../helpers/fake-agy.js';
import { alive, type Sandbox, sandbox, waitGone } from '../../../helpers/sandbox.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

describe('the version probe runs after init', () => {
  it('a first start returns while `agy --version` still hangs; close() then kills the probe', async () => {
    const pids = join(box.root, 'pids');
    onTestFinished(() => killAll((recorded(pids).get('probe') ?? []).map(Number)));
    let supervisor: number | undefined;
    const agent = new Agent(
      await box.agentConfig(undefined, {
        agyPath: freshFakeAgy(box.root),
        env: { FAKE_AGY_VERSION_HANG: '1', FAKE_AGY_PIDS: pids },
      }),
    );
    try {
      await agent.start();
      // The probe (which never answers) started only after init, and start() did not wait for it.
      expect(await until(() => pidsOf(pids, 'probe').length > 0)).toBe(true);
      expect(alive(pidsOf(pids, 'probe')[0]!)).toBe(true);
      expect(agent.isStarted).toBe(true);
      expect(agent.agyVersion).toBeNull();
      supervisor = hostSupervisor.pid;
    } finally {
      await agent.close();
    }
    // close() killed it, and returned only once it was gone and swept: the probe holds the host's supervisor as
    // agy does, and a CI run saw the supervisor still alive right after the last close().
    expect(pidsOf(pids, 'probe').filter(alive)).toEqual([]);
    expect(supervisor).toBeGreaterThan(0);
    expect(alive(supervisor!)).toBe(false);
    expect(await waitGone(pidsOf(pids, 'probe'), 6000)).toEqual([]);
  });

  it('agyVersion becomes the simulator’s version after the first start, and is known at once on the next', async () => {
    const config = await box.agentConfig();
    const first = new Agent(config);
    const second = new Agent(config);
    try {
      await first.start();
      // The simulator imitates agy 1.3.1 by default (see src/testing/simulator/README.md).
      expect(await until(() => first.agyVersion === '1.3.1')).toBe(true);
      await second.start();
      expect(second.agyVersion).toBe('1.3.1');
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('agents on simulator scenarios, versions or cassettes of other versions in one process each get their own', async () => {
    // The simulator's version comes from its environment, not its file: an answer cached per binary path alone
    // gave every later agent the first one's version (and a cassette recorded under the wrong one). Test files
    // share a worker, so this also kept the test above from seeing 1.3.1 after such a file.
    const older = new Agent(await box.agentConfig({ version: '1.2.7', turns: [] }));
    const byVariable = new Agent(await box.agentConfig(undefined, { env: { AGY_SIM_VERSION: '1.1.9' } }));
    const plain = new Agent(await box.agentConfig());
    try {
      await older.start();
      expect(await older.probedAgyVersion()).toBe('1.2.7');
      await byVariable.start();
      expect(await byVariable.probedAgyVersion()).toBe('1.1.9');
      await plain.start();
      expect(await plain.probedAgyVersion()).toBe('1.3.1');
    } finally {
      await Promise.all([older.close(), byVariable.close(), plain.close()]);
    }
    // A replayed cassette answers with its recording's version (the probe alone: this cassette has no session).
    const file = join(box.root, 'v.cassette.jsonl');
    writeFileSync(
      file,
      serializeCassette({
        header: {
          format: CASSETTE_FORMAT,
          version: CASSETTE_VERSION,
          backend: 'agy',
          agy: { version: '1.2.17', args: [] },
          recordedAt: new Date(0).toISOString(),
          sanitized: true,
        },
        records: [],
      }),
    );
    const cassette = { ...process.env, ...replayCassette(file).env };
    expect(await probeAgyVersion(simulatorPath(), cassette, { cwd: box.root })).toBe('1.2.17');
    expect(cachedAgyVersion(simulatorPath(), {})).toBe('1.3.1');
  });

  it('probedAgyVersion() waits for the first start’s probe: the version without polling', async () => {
    // A binary path no probe answered for yet, so the first start returns before `agy --version` does.
    const agent = new Agent(await box.agentConfig(undefined, { agyPath: freshFakeAgy(box.root) }));
    try {
      expect(await agent.probedAgyVersion()).toBeUndefined(); // before start()
      await agent.start();
      expect(await agent.probedAgyVersion()).toBe('1.3.1');
      expect(agent.agyVersion).toBe('1.3.1');
    } finally {
      await agent.close();
    }
  });

  it('a probe no start waits for any more is killed, and probesStopped() settles once it is gone', async () => {
    const pids = join(box.root, 'pids');
    onTestFinished(() => killAll((recorded(pids).get('probe') ?? []).map(Number)));
    const env = { ...process.env, FAKE_AGY_VERSION_HANG: '1', FAKE_AGY_PIDS: pids };
    const abort = new AbortController();
    const answer = probeAgyVersion(freshFakeAgy(box.root), env, { cwd: box.root, signal: abort.signal });
    expect(await until(() => pidsOf(pids, 'probe').length > 0)).toBe(true);
    const [probe] = pidsOf(pids, 'probe');
    abort.abort();
    expect(await answer).toBeNull();
    await probesStopped();
    // Gone and reaped, not only signalled: what a closing connection waits for.
    expect(alive(probe!)).toBe(false);
  });

  it('probedAgyVersion() answers null once close() abandons a probe that never answers', async () => {
    const pids = join(box.root, 'pids');
    onTestFinished(() => killAll((recorded(pids).get('probe') ?? []).map(Number)));
    const agent = new Agent(
      await box.agentConfig(undefined, {
        agyPath: freshFakeAgy(box.root),
        env: { FAKE_AGY_VERSION_HANG: '1', FAKE_AGY_PIDS: pids },
      }),
    );
    await agent.start();
    const version = agent.probedAgyVersion();
    expect(await until(() => pidsOf(pids, 'probe').length > 0)).toBe(true);
    await agent.close();
    expect(await version).toBeNull();
  });
});
