// The fleet tests' redis-server outlives no run, however the run ends (test/helpers/fleet/redis.ts). A one-file
// vitest project uses useTestRedis() and holds its test open; the vitest processes (the main one and its
// worker) are then SIGKILLed, so no afterAll runs, as when a run is aborted or a worker is killed. The server's
// watchdog sees its stdin close and stops it, and removes its directory. A `vitest list` of the same file starts
// no server at all.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envSurvivors, pidsWithEnv } from '../env-marker.js';
import { until } from '../fake-agy.js';
import { REDIS } from './redis.js';

const root = resolve(import.meta.dirname, '../../..');
const VITEST = join(root, 'node_modules/vitest/vitest.mjs');
const MARK = 'AGY_SDK_REDIS_ABORT_MARK';

const dirs: string[] = [];
const marks: string[] = [];
afterEach(() => {
  // A failing run must not leave what it reports: whatever still carries its marker goes.
  for (const mark of marks.splice(0)) for (const pid of pidsWithEnv(MARK, mark)) process.kill(pid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A one-file vitest project inside the repository (so `vitest` resolves) holding a test open on a Redis. */
function project(): { dir: string; tmp: string; urlFile: string } {
  mkdirSync(join(root, 'test/.artifacts'), { recursive: true });
  const dir = mkdtempSync(join(root, 'test/.artifacts/redis-abort-'));
  dirs.push(dir);
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const urlFile = join(dir, 'url');
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    "export default { test: { include: ['*.test.ts'], pool: 'forks', testTimeout: 300000 } };\n",
  );
  writeFileSync(
    join(dir, 'hold.test.ts'),
    `import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { useTestRedis } from ${JSON.stringify(join(root, 'test/helpers/fleet/redis.ts'))};
const redis = useTestRedis();
it('holds', async () => {
  writeFileSync(${JSON.stringify(urlFile)}, redis.url);
  await new Promise(() => {});
});
`,
  );
  return { dir, tmp, urlFile };
}

function runVitest(dir: string, tmp: string, mark: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, [MARK]: mark };
  delete env.AGY_SDK_TEST_REDIS_URL;
  return spawn(
    process.execPath,
    [VITEST, ...args, '--root', dir, '--config', join(dir, 'vitest.config.mjs')],
    {
      cwd: dir,
      env,
      stdio: 'ignore',
    },
  );
}

/** The command line of a pid, or '' once it is gone. */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

describe.skipIf(!REDIS.binary || !existsSync('/proc/self/environ'))('the fleet tests’ redis-server', () => {
  it('stops, and its directory goes, when the vitest processes are SIGKILLed mid-test', {
    timeout: 120_000,
  }, async () => {
    const { dir, tmp, urlFile } = project();
    const mark = `${process.pid}-${Date.now()}`;
    marks.push(mark);
    const child = runVitest(dir, tmp, mark, ['run']);
    const exited = new Promise((r) => child.once('exit', r));
    await until(() => existsSync(urlFile), 90_000);
    const pids = pidsWithEnv(MARK, mark);
    const servers = pids.filter((pid) => cmdline(pid).includes('redis-server'));
    expect(servers).toHaveLength(1);
    expect(readdirSync(tmp).filter((n) => n.startsWith('agy-sdk-redis-'))).toHaveLength(1);
    // Every Node process of the run (vitest and its worker), not the watchdog or the server: no hook runs.
    for (const pid of pids) if (cmdline(pid).startsWith(process.execPath)) process.kill(pid, 'SIGKILL');
    await exited;
    expect(await envSurvivors(MARK, mark, 15_000)).toEqual([]);
    // Vitest's own scratch files stay too when it is SIGKILLed; the server's directory does not.
    expect(readdirSync(tmp).filter((n) => n.startsWith('agy-sdk-'))).toEqual([]);
  });

  it('is not started by a `vitest list` of a file that uses it', { timeout: 120_000 }, async () => {
    const { dir, tmp } = project();
    const mark = `${process.pid}-${Date.now()}`;
    marks.push(mark);
    const child = runVitest(dir, tmp, mark, ['list']);
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
    expect(await envSurvivors(MARK, mark, 15_000)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
