// `doctor` and `doctor --conformance` against an agy that ignores SIGTERM and has a grandchild that ignores it
// too (docs/reference/process.md#short-lived-commands): each probe ends at its bound with a "timed out" report,
// and nothing of the fake is left running. The bounds come from AGY_SDK_PROBE_TIMEOUT_MS / _GRACE_MS, so the
// tests do not wait the production ones; the test timeouts make a probe that never ends fail instead of hang.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../src/cli/doctor.js';
import { EXIT_DOCTOR_FAILED } from '../../src/cli/exit-codes.js';
import { BUILT, type CliProcess, MARK_VAR, startCli, survivors } from '../helpers/cli.js';
import { until } from '../helpers/fake-agy.js';
import { killMarked, stillRunning, stubbornAgy, stubbornPids } from '../helpers/stubborn-agy.js';

let root: string;
let home: string;
let cli: CliProcess | undefined;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agy-sdk-doctor-bounded-'));
  home = join(root, 'home');
  await mkdir(home, { recursive: true });
});
afterEach(async () => {
  // A probe that never ended (the unbounded code) must not outlive the test.
  if (cli) {
    cli.child.kill('SIGKILL');
    killMarked(MARK_VAR, cli.mark);
    cli = undefined;
  }
  await rm(root, { recursive: true, force: true });
});

/** The environment of the command: the fake as agy, a fake HOME, short probe bounds. */
function env(agy: string, bounds = true): NodeJS.ProcessEnv {
  return {
    HOME: home,
    AGY_PATH: agy,
    GEMINI_API_KEY: '',
    AGY_ADC_AUTH: '',
    // Long enough for the fake to set its trap on a loaded machine, so the SIGKILL is always needed.
    ...(bounds && { AGY_SDK_PROBE_TIMEOUT_MS: '2000', AGY_SDK_PROBE_GRACE_MS: '300' }),
  };
}

describe.skipIf(!BUILT)('doctor with an agy that ignores SIGTERM', () => {
  it('reports the --version probe timed out and leaves neither the fake nor its grandchild running', async () => {
    const fake = await stubbornAgy(root, 'all');
    cli = startCli(['doctor', '--json'], env(fake.path));
    const run = await cli.done;
    const report = JSON.parse(run.stdout) as { ok: boolean; checks: DoctorCheck[] };
    const version = report.checks.find((c) => c.id === 'version');
    expect(run.code, run.stderr).toBe(EXIT_DOCTOR_FAILED);
    expect(version).toMatchObject({
      status: 'fail',
      detail: '`agy --version` timed out after 2s (it ignored SIGTERM: killed with SIGKILL)',
    });
    expect(version?.fix).toContain('AGY_SDK_PROBE_TIMEOUT_MS');
    // A hung agy is not asked `models` (it would hang the same way): the sign-in state files decide.
    expect(report.checks.find((c) => c.id === 'auth')?.detail).toContain('no sign-in state');
    expect(report.checks.find((c) => c.id === 'hooks')?.status).toBe('skip');
    const pids = stubbornPids(fake);
    expect(pids).toHaveLength(2);
    expect(await stillRunning(pids)).toEqual([]);
    expect(await survivors(cli.mark)).toEqual([]);
  }, 30_000);

  it('Ctrl-C while a probe runs: the command exits 130 and takes the probe group with it', async () => {
    const fake = await stubbornAgy(root, 'all');
    // The production bounds: only the signal can end the probe within the test.
    cli = startCli(['doctor'], env(fake.path, false));
    expect(await until(() => stubbornPids(fake).length === 2)).toBe(true);
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(await stillRunning(stubbornPids(fake))).toEqual([]);
    expect(await survivors(cli.mark)).toEqual([]);
  }, 30_000);

  it('a bound that is not a number is a usage error naming the variable', async () => {
    const fake = await stubbornAgy(root, 'all');
    cli = startCli(['doctor'], { ...env(fake.path), AGY_SDK_PROBE_TIMEOUT_MS: '15s' });
    const run = await cli.done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('AGY_SDK_PROBE_TIMEOUT_MS: must be a whole number of milliseconds');
    expect(stubbornPids(fake)).toEqual([]);
  }, 30_000);
});

describe.skipIf(!BUILT)('doctor --conformance with an agy whose print mode ignores SIGTERM', () => {
  it('reports the slash probe timed out and leaves neither the fake nor its grandchild running', async () => {
    const fake = await stubbornAgy(root, 'slash');
    const cassettes = join(root, 'cassettes');
    cli = startCli(['doctor', '--conformance', '--cassettes', cassettes], env(fake.path));
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(
      /ERROR {2}probe slash: `agy -p \/model --output-format stream-json` timed out after 2s \(it ignored SIGTERM: killed with SIGKILL\) \(its cassette: /,
    );
    const pids = stubbornPids(fake);
    expect(pids).toHaveLength(2);
    expect(await stillRunning(pids)).toEqual([]);
    expect(await survivors(cli.mark)).toEqual([]);
  }, 60_000);
});
