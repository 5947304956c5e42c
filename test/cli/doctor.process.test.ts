// `agy-sdk doctor` with a fake HOME, a fake PATH and fake agy scripts: each failing check has its own case.
// The command itself (exit codes, `--json`, the table) runs through the built command; the checks alone run
// in-process through `runChecks` (the same function the command calls, with the environment the command
// would get): a CLI process per case added nothing but start-up time. The fake agy is still a real process.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DoctorCheck, runChecks } from '../../src/cli/doctor.js';
import { BUILT, ROOT, runCli } from '../helpers/cli.js';

let root: string;
let home: string;
let bin: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agy-sdk-doctor-'));
  home = join(root, 'home');
  bin = join(root, 'bin');
  await mkdir(home, { recursive: true });
  await mkdir(bin, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/**
 * A fake agy: `--version` prints `version`; `-p /hooks` prints `hooks` (a JSON line) when given; `models` lists
 * models (`signed-in`), says "Please sign in" (`signed-out`, docs/reference/process.md#sign-in-probe), or, by
 * default, is an unknown command (an agy doctor cannot ask, so the sign-in state files decide).
 */
async function fakeAgy(script: {
  version?: string;
  versionExit?: number;
  hooks?: unknown;
  models?: 'signed-in' | 'signed-out';
}): Promise<void> {
  const hooks =
    script.hooks === undefined
      ? ''
      : `if [ "$2" = "/hooks" ]; then echo '${JSON.stringify(script.hooks)}'; exit 0; fi\n`;
  const models =
    script.models === 'signed-in'
      ? 'printf "Gemini 3.8 Flash (High)\\nGemini 3.1 Pro (Low)\\n"; exit 0'
      : script.models === 'signed-out'
        ? 'echo "error: Please sign in" >&2; exit 1'
        : 'echo "error: unknown command \\"models\\"" >&2; exit 2';
  const body =
    '#!/bin/sh\n' +
    `if [ "$1" = "--version" ]; then echo "${script.version ?? 'agy version 1.3.1'}"; echo "probe stderr" >&2; exit ${script.versionExit ?? 0}; fi\n` +
    `if [ "$1" = "models" ]; then ${models}; fi\n` +
    hooks +
    'echo "{}"\n';
  await writeFile(join(bin, 'agy'), body);
  await chmod(join(bin, 'agy'), 0o755);
}

/** Signed in, as far as doctor can tell: agy's state beside settings.json. */
async function signedIn(): Promise<void> {
  await mkdir(join(home, '.gemini', 'antigravity-cli', 'conversations'), { recursive: true });
}

/** The environment `doctor` sees in these tests (over the test's own, as `runCli` gives the command). */
function doctorEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { HOME: home, GEMINI_API_KEY: '', AGY_PATH: '', AGY_ADC_AUTH: '', ...env };
}

/** `agy-sdk doctor --json …args` through the built command. */
async function doctor(args: string[], env: NodeJS.ProcessEnv) {
  const run = await runCli(['doctor', '--json', ...args], doctorEnv(env));
  const report = JSON.parse(run.stdout) as { ok: boolean; checks: DoctorCheck[] };
  const check = (id: string): DoctorCheck | undefined => report.checks.find((c) => c.id === id);
  return { run, report, check };
}

/** The checks alone, in-process: what `doctor --json` reports, without the command around it. */
async function checks(args: string[], env: NodeJS.ProcessEnv) {
  const all = await runChecks(
    { offline: args.includes('--offline'), json: true },
    { ...process.env, NO_COLOR: '1', ...doctorEnv(env) },
  );
  const check = (id: string): DoctorCheck | undefined => all.find((c) => c.id === id);
  return { check };
}

const systemPath = `${'/usr/local/bin:/usr/bin:/bin'}`;

describe.skipIf(!BUILT)('agy-sdk doctor', () => {
  it('--offline: every check passes against the simulator, exit 0', async () => {
    const { run, report } = await doctor(['--offline'], { PATH: systemPath });
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
    expect(report.checks.map((c) => c.id)).toEqual([
      'binary',
      'version',
      'auth',
      'settings',
      'hooks',
      'datadir',
      'curl',
    ]);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
  });

  it('a real-looking agy, signed in: ok, and the table says ready', async () => {
    await fakeAgy({});
    await signedIn();
    const run = await runCli(['doctor'], { HOME: home, PATH: `${bin}:${systemPath}`, AGY_PATH: '' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/agy version\s+ok\s+1\.3\.1/);
    expect(run.stdout).toContain('ready');
  });

  it('agy missing: fails, lists every path tried, and says how to fix it', async () => {
    const { run, check } = await doctor([], { PATH: `${bin}:${root}/other` });
    expect(run.code).toBe(1);
    expect(check('binary')?.status).toBe('fail');
    expect(check('binary')?.detail).toContain(join(bin, 'agy'));
    expect(check('binary')?.detail).toContain(join(root, 'other', 'agy'));
    expect(check('binary')?.fix).toContain('AGY_PATH');
    expect(check('version')?.status).toBe('skip');
    const table = await runCli(['doctor'], { HOME: home, PATH: bin, AGY_PATH: '' });
    expect(table.stdout).toMatch(/agy binary\s+FAIL/);
    expect(table.stdout).toContain('fix: install agy');
  });

  it('agy older than 1.1.8 (no stream-json) fails the version check', async () => {
    await fakeAgy({ version: 'agy version 1.0.7' });
    const { check } = await checks([], { PATH: bin });
    expect(check('version')).toMatchObject({ status: 'fail' });
    expect(check('version')?.detail).toContain('1.0.7');
    expect(check('version')?.fix).toContain('1.1.8');
    expect(check('hooks')?.status).toBe('skip');
  });

  it('a build on a line newer than the newest tested one is "newer than tested", with what was checked, not a failure', async () => {
    // docs/reference/versions.md#what-a-newer-build-gets
    await fakeAgy({ version: 'agy version 1.6.0' });
    await signedIn();
    const { check } = await checks([], { PATH: bin });
    expect(check('version')).toMatchObject({ status: 'warn' });
    expect(check('version')?.detail).toMatch(
      /^1\.6\.0: newer than tested \(newest tested line 1\.5, as 1\.5\.0\); checked: /,
    );
    expect(check('version')?.detail).toContain('not checked:');
    // The probes that need a working agy still run.
    expect(check('hooks')?.status).not.toBe('skip');
    await fakeAgy({ version: 'agy version 1.5.8' });
    expect((await checks([], { PATH: bin })).check('version')?.status).toBe('ok');
  });

  it('agy --version failing fails the version check with what agy said', async () => {
    await fakeAgy({ version: 'nope', versionExit: 2 });
    const { check } = await checks([], { PATH: bin });
    expect(check('version')?.status).toBe('fail');
    expect(check('version')?.detail).toContain('probe stderr');
  });

  it('not signed in, and API-key mode without GEMINI_API_KEY, fail the sign-in check; with the key it passes', async () => {
    await fakeAgy({});
    expect((await checks([], { PATH: bin })).check('auth')).toMatchObject({ status: 'fail' });
    await mkdir(join(home, '.gemini', 'antigravity-cli'), { recursive: true });
    await writeFile(join(home, '.gemini', 'antigravity-cli', 'settings.json'), '{"modelProvider":"gemini"}');
    const noKey = (await checks([], { PATH: bin })).check('auth');
    expect(noKey?.status).toBe('fail');
    expect(noKey?.fix).toContain('GEMINI_API_KEY');
    const withKey = (await checks([], { PATH: bin, GEMINI_API_KEY: 'k' })).check('auth');
    expect(withKey?.status).toBe('ok');
    expect(withKey?.detail).toContain('API-key mode');
  });

  it('`agy models` decides sign-in when agy answers it: a listing passes without state files, "Please sign in" fails despite them', async () => {
    await fakeAgy({ models: 'signed-in' });
    expect((await checks([], { PATH: bin })).check('auth')).toMatchObject({
      status: 'ok',
      detail: '`agy models` lists 2 models',
    });
    await fakeAgy({ models: 'signed-out' });
    await signedIn();
    const out = (await checks([], { PATH: bin })).check('auth');
    expect(out).toMatchObject({ status: 'fail', detail: '`agy models`: error: Please sign in' });
    expect(out?.fix).toContain('sign in');
  });

  it('AGY_PATH at the built simulator: agy version and sign-in ok, as a signed-in agy answers (no --offline)', async () => {
    const sim = join(ROOT, 'dist/testing/simulator/main.js');
    const { run, check } = await doctor([], { PATH: systemPath, AGY_PATH: sim });
    expect(check('binary')).toMatchObject({ status: 'ok', detail: sim });
    // The simulator's default build (src/testing/simulator/README.md, "Which agy build").
    expect(check('version')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^1\.3\.1 /) });
    // The labels of agy's "Available models" list (agy-real/joiomi-playbook-plugin-agy-1.2.17/error-model-rejected.stderr).
    expect(check('auth')).toMatchObject({ status: 'ok', detail: '`agy models` lists 18 models' });
    expect(run.code).toBe(0);
    // A scenario that signs the simulator out: agy's signed-out words
    // (agy-real/littlebearapps-untether-agy-1.3.1/unauth.script) fail the check.
    const scenario = join(root, 'signed-out.json');
    await writeFile(scenario, JSON.stringify({ startup: { authFail: true } }));
    const out = await doctor([], { PATH: systemPath, AGY_PATH: sim, AGY_SIM_SCENARIO: scenario });
    expect(out.check('auth')).toMatchObject({
      status: 'fail',
      detail: "`agy models`: Error: authentication required. Run 'agy' to log in, then retry.",
    });
    expect(out.run.code).toBe(1);
  });

  it('a settings file that does not parse fails, naming the file', async () => {
    await mkdir(join(home, '.gemini', 'config'), { recursive: true });
    await writeFile(join(home, '.gemini', 'config', 'hooks.json'), '{ "broken": ');
    const { run, check } = await doctor(['--offline'], { PATH: systemPath });
    expect(run.code).toBe(1);
    expect(check('settings')?.status).toBe('fail');
    expect(check('settings')?.detail).toContain(join(home, '.gemini', 'config', 'hooks.json'));
  });

  it('a data dir that is not a writable directory fails', async () => {
    await mkdir(join(home, '.gemini'), { recursive: true });
    await writeFile(join(home, '.gemini', 'antigravity-cli'), 'a file, not a directory');
    const { check } = await checks(['--offline'], { PATH: systemPath });
    expect(check('datadir')?.status).toBe('fail');
    expect(check('datadir')?.fix).toContain('antigravity-cli');
  });

  it('curl missing is a warning with its fallback, not a failure', async () => {
    const { check } = await checks(['--offline'], { PATH: bin });
    expect(check('curl')?.status).toBe('warn');
    expect(check('curl')?.fix).toContain("hookRelay: 'node'");
    // The simulator runs on this Node even with no node on PATH.
    expect(check('version')?.status).toBe('ok');
  });

  it('reports where agy loads hooks from via `agy -p /hooks` when the build answers it', async () => {
    await fakeAgy({ hooks: { command: { name: 'hooks', data: { files: ['/etc/agy/hooks.json'] } } } });
    const { check } = await checks([], { PATH: bin });
    expect(check('hooks')?.status).toBe('ok');
    expect(check('hooks')?.detail).toContain('agy -p /hooks');
    expect(check('hooks')?.detail).toContain('/etc/agy/hooks.json');
    await fakeAgy({});
    const without = (await checks([], { PATH: bin })).check('hooks');
    expect(without?.detail).toContain('no /hooks command');
  });
});
