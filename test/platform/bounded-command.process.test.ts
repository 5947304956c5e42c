// runBounded: a short-lived command with a bounded end (docs/reference/process.md#short-lived-commands). Real
// processes; each one carries a marker variable its descendants inherit, so what a run leaves is found in /proc.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeRun, runBounded } from '../../src/platform/index.js';
import { BUILT, ROOT } from '../helpers/cli.js';
import { envSurvivors, pidsWithEnv } from '../helpers/env-marker.js';
import { killAll } from '../helpers/fake-agy.js';

const MARK = 'AGY_SDK_BOUNDED_TEST_MARK';
const marks: string[] = [];
afterEach(() => {
  for (const mark of marks.splice(0)) killAll(pidsWithEnv(MARK, mark));
});

/** An environment whose processes can be found afterwards. */
function marked(): { env: NodeJS.ProcessEnv; mark: string } {
  const mark = randomUUID();
  marks.push(mark);
  return { env: { ...process.env, [MARK]: mark }, mark };
}

/** A shell loop that ignores SIGTERM, with a grandchild that ignores it too. */
const STUBBORN = `trap '' TERM; sh -c "trap '' TERM; while :; do sleep 1; done" & while :; do sleep 1; done`;

describe('runBounded', () => {
  it('a command that exits by itself: its code and both streams; stdin gets the input', async () => {
    const run = await runBounded('sh', ['-c', 'cat; echo err >&2; exit 3'], {
      timeoutMs: 30_000,
      input: 'in',
    });
    expect(run).toEqual({
      kind: 'exited',
      code: 3,
      signal: null,
      stdout: 'in',
      stderr: 'err\n',
      truncated: false,
    });
    expect(describeRun(run)).toBe('exited with code 3');
  });

  it('leaves nothing of its group once the leader exited, even a grandchild holding its pipes', async () => {
    const { env, mark } = marked();
    const run = await runBounded('sh', ['-c', 'sleep 300 & echo started'], { env, timeoutMs: 30_000 });
    expect(run).toMatchObject({ kind: 'exited', code: 0, stdout: 'started\n' });
    expect(await envSurvivors(MARK, mark)).toEqual([]);
  });

  it('past its timeout, a command that honours SIGTERM ends on it: no SIGKILL needed', async () => {
    const { env, mark } = marked();
    // A long grace: the run must end on the SIGTERM, not on the grace's SIGKILL.
    const run = await runBounded('sleep', ['300'], { env, timeoutMs: 100, graceMs: 600_000 });
    expect(run).toMatchObject({ kind: 'timed-out', timeoutMs: 100, killed: false, signal: 'SIGTERM' });
    expect(describeRun(run)).toBe('timed out after 0.1s');
    expect(await envSurvivors(MARK, mark)).toEqual([]);
  });

  it('past its timeout, a group that ignores SIGTERM is SIGKILLed after the grace, grandchild included', async () => {
    const { env, mark } = marked();
    // The timeout leaves the shell time to set its trap even on a loaded machine.
    const run = await runBounded('sh', ['-c', STUBBORN], { env, timeoutMs: 2_000, graceMs: 200 });
    expect(run).toMatchObject({ kind: 'timed-out', killed: true, signal: 'SIGKILL', code: null });
    expect(describeRun(run)).toBe('timed out after 2s (it ignored SIGTERM: killed with SIGKILL)');
    expect(await envSurvivors(MARK, mark)).toEqual([]);
  });

  it('grace 0: SIGKILL at once', async () => {
    const { env, mark } = marked();
    const run = await runBounded('sh', ['-c', STUBBORN], { env, timeoutMs: 100, graceMs: 0 });
    expect(run).toMatchObject({ kind: 'timed-out', killed: true, signal: 'SIGKILL' });
    expect(await envSurvivors(MARK, mark)).toEqual([]);
  });

  it('an abort ends it as a timeout does', async () => {
    const { env, mark } = marked();
    const abort = new AbortController();
    const running = runBounded('sh', ['-c', `${STUBBORN}`], {
      env,
      timeoutMs: 600_000,
      graceMs: 100,
      signal: abort.signal,
    });
    // Abort only once the shell ignores SIGTERM: it starts a child only after its `trap`, so a second marked
    // process means the trap is set (an ignored signal stays ignored in the children). /proc gives no event.
    await vi.waitFor(() => expect(pidsWithEnv(MARK, mark).length).toBeGreaterThanOrEqual(2), {
      timeout: 30_000,
      interval: 20,
    });
    abort.abort('enough');
    expect(await running).toMatchObject({ kind: 'aborted', reason: 'enough', killed: true });
    expect(await envSurvivors(MARK, mark)).toEqual([]);
    const already = await runBounded('sh', ['-c', 'exit 0'], { timeoutMs: 1000, signal: abort.signal });
    expect(already).toMatchObject({ kind: 'aborted', killed: false });
  });

  it('keeps the first maxOutputBytes of each stream, reads the rest and says it truncated', async () => {
    const run = await runBounded('sh', ['-c', 'head -c 100000 /dev/zero | tr "\\0" a; echo e >&2'], {
      timeoutMs: 30_000,
      maxOutputBytes: 1000,
    });
    expect(run).toMatchObject({ kind: 'exited', code: 0, truncated: true, stderr: 'e\n' });
    expect(run.stdout).toBe('a'.repeat(1000));
  });

  it('a command that cannot be started is a typed result, not a throw', async () => {
    const run = await runBounded('/nonexistent/agy', ['--version'], { timeoutMs: 30_000 });
    expect(run.kind).toBe('spawn-failed');
    if (run.kind !== 'spawn-failed') return;
    expect(run.error.code).toBe('ENOENT');
    expect(describeRun(run)).toMatch(/^could not start: spawn \/nonexistent\/agy ENOENT/);
    // A bad argument throws inside spawn(): the same typed result.
    const bad = await runBounded('sh', ['-c', 'a\0b'], { timeoutMs: 30_000 });
    expect(bad.kind).toBe('spawn-failed');
  });

  it('keeps no exit listener once its runs are over', async () => {
    const before = process.listenerCount('exit');
    const runs = [
      runBounded('sh', ['-c', 'sleep 300'], { timeoutMs: 100, graceMs: 100 }),
      runBounded('sh', ['-c', 'exit 0'], { timeoutMs: 30_000 }),
    ];
    expect(process.listenerCount('exit')).toBe(before + 1);
    await Promise.all(runs);
    expect(process.listenerCount('exit')).toBe(before);
  });

  it.skipIf(!BUILT)('a host that exits while a run goes takes the run group with it', async () => {
    const { env, mark } = marked();
    // The host starts a stubborn run (spawned within the call) and exits without waiting for it.
    const script = `
      import { runBounded } from ${JSON.stringify(join(ROOT, 'dist/platform/index.js'))};
      void runBounded('sh', ['-c', ${JSON.stringify(STUBBORN)}], { timeoutMs: 600000 });
      setImmediate(() => process.exit(0));
    `;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { env, stdio: 'ignore' });
    const code = await new Promise((resolve) => host.once('exit', resolve));
    expect(code).toBe(0);
    expect(await envSurvivors(MARK, mark)).toEqual([]);
  });
});
