/**
 * The simulator accepts agy's turn-shaping flags per imitated build and refuses the rest as agy refuses a flag
 * error (`error: …`, exit 2): docs/reference/stream-json.md#flags-by-version.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureSimulatorBuilt, SimHarness } from '../../helpers/sim-process.js';

const harness = new SimHarness();

beforeAll(async () => {
  await ensureSimulatorBuilt();
}, 120_000);

afterEach(async () => {
  await harness.cleanup();
});

/** Starts the simulator imitating `version` with `args` and returns its exit code and stderr. */
async function run(version: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const sim = await harness.start({ args, env: { AGY_SIM_VERSION: version } });
  sim.endInput();
  const exit = await sim.exited;
  return { code: exit.code, stderr: sim.stderr };
}

describe('simulator flags per build', () => {
  it('1.3.1 takes --mode plan, --mode accept-edits and --sandbox, and writes init as without them', async () => {
    for (const args of [['--mode', 'plan', '--sandbox'], ['--mode=accept-edits']]) {
      const sim = await harness.start({ args, env: { AGY_SIM_VERSION: '1.3.1' } });
      const init = await sim.waitUntil('init', () => sim.events.find((e) => e.event === 'init'));
      // A real 1.2.13 `--mode plan --sandbox` run's init names neither (agy-real/unnamed-plenipo-agy-1.2.13).
      expect(init.init).toMatchObject({ permission_mode: 'request-review' });
      expect(JSON.stringify(init)).not.toMatch(/"(sandbox|mode)"/);
      sim.endInput();
      expect((await sim.exited).code).toBe(0);
    }
  });

  it('refuses what an older build does not know, naming the flag', async () => {
    expect(await run('1.1.8', ['--sandbox'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown flag: --sandbox'),
    });
    expect(await run('1.1.0', ['--mode', 'plan'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown flag: --mode'),
    });
    expect(await run('1.2.17', ['--mode', 'accept-edits'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'invalid argument "accept-edits" for "--mode" flag: must be one of plan',
      ),
    });
  });

  it('refuses --effort xhigh/max and an unknown --mode on the newest build', async () => {
    for (const effort of ['xhigh', 'max'])
      expect(await run('1.3.1', ['--effort', effort])).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(
          `invalid argument "${effort}" for "--effort" flag: must be one of low, medium, high`,
        ),
      });
    expect(await run('1.3.1', ['--mode', 'yolo'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('invalid argument "yolo" for "--mode" flag'),
    });
  });
});
