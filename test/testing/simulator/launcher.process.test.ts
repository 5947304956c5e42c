// The simulator's first lines (scripts/postbuild.mjs): executed, it is a sh script that execs Node with
// `--no-memory-reducer` (an idle simulator then runs no full collections, 40-90 ms of CPU each, in every test
// suite and start storm); run by Node directly, those lines are a no-op. The exec keeps the process the SDK
// spawned, so its pid, its group and every no-orphan guarantee stay the same.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { silentLogger } from '../../../src/logger.js';

const bundle = join(import.meta.dirname, '../../../dist/testing/simulator/agy-sim.mjs');
const LAUNCHER = `#!/bin/sh\n':' //; exec node --no-memory-reducer "$0" "$@"\n`;

describe.skipIf(!existsSync(bundle) || process.platform !== 'linux')('the simulator’s launcher', () => {
  it('execs Node with --no-memory-reducer in the spawned process, every argument intact', async () => {
    expect(readFileSync(bundle, 'utf8').startsWith(LAUNCHER)).toBe(true);
    const root = await mkdtemp(join(tmpdir(), 'agy-sim-launcher-'));
    // Spaces, quotes and a `$` in a path: sh must pass "$@" through unexpanded.
    const workspace = join(root, `a "work" $HOME space`);
    await mkdir(workspace);
    const agent = new Agent({
      agyPath: bundle,
      workspaces: [workspace],
      dataDir: join(root, 'data'),
      env: { HOME: join(root, 'home'), AGY_SIM_STATE_DIR: join(root, 'sim-state') },
      logger: silentLogger,
    });
    try {
      await agent.start();
      const pid = agent.pid;
      expect(pid).toBeTypeOf('number');
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
      expect(argv.slice(1, 3)).toEqual(['--no-memory-reducer', bundle]);
      expect(argv).toContain(workspace);
      expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('node');
      const response = await agent.chat('say "hi" to $USER');
      expect(await response.text()).toContain('You said: "say "hi" to $USER"');
    } finally {
      await agent.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('runs under Node directly too: the launcher lines are a no-op there', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bundle, '--version'], {
      timeout: 30_000,
    });
    expect(stdout).toMatch(/^agy version \d+\.\d+\.\d+\n$/);
  }, 60_000);
});
