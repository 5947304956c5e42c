// The simulator's hook runner: a hook past its timeout is killed with its whole process group, so a hook's own
// children (a pipeline, a background job) do not outlive it, and a hook that exits leaves nothing of its group
// (docs/reference/process.md#short-lived-commands).
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnAborted } from '../../../src/testing/simulator/abort.js';
import { killRunningHooks, runHook } from '../../../src/testing/simulator/hook-runner.js';
import { envSurvivors, pidsWithEnv } from '../../helpers/env-marker.js';
import { killAll } from '../../helpers/fake-agy.js';

// runHook gives a hook this process's environment: the marker goes there, one per test.
const MARK = 'AGY_SDK_HOOK_RUNNER_TEST_MARK';
afterEach(() => {
  const mark = process.env[MARK];
  delete process.env[MARK];
  if (mark) killAll(pidsWithEnv(MARK, mark));
});
function mark(): string {
  const value = randomUUID();
  process.env[MARK] = value;
  return value;
}

const hook = (command: string, timeoutMs = 30_000) => ({ command, timeoutMs, source: 'test' });
const options = { cwd: tmpdir(), conversationId: 'c1' };

describe('runHook', () => {
  it('past its timeout the hook fails and its background children die with it', async () => {
    const value = mark();
    const run = await runHook(hook('sleep 300 & sleep 300', 300), {}, options);
    expect(run).toEqual({ code: null, stdout: '', failure: 'timed out after 0.3s' });
    expect(await envSurvivors(MARK, value)).toEqual([]);
  });

  it('a hook that answers and exits leaves no child behind', async () => {
    const value = mark();
    const run = await runHook(hook('cat; sleep 300 &'), { event: 'x' }, options);
    expect(run).toEqual({ code: 0, stdout: '{"event":"x"}' });
    expect(await envSurvivors(MARK, value)).toEqual([]);
  });

  it('a non-zero exit names the code and the last stderr line', async () => {
    const run = await runHook(hook('echo one >&2; echo two >&2; exit 4'), {}, options);
    expect(run).toEqual({ code: 4, stdout: '', failure: 'exited with code 4: two' });
  });

  it('a turn abort kills the hook group and rejects with TurnAborted; killRunningHooks kills too', async () => {
    const value = mark();
    const abort = new AbortController();
    const aborted = runHook(hook('sleep 300 & sleep 300'), {}, { ...options, signal: abort.signal });
    abort.abort('interrupt');
    await expect(aborted).rejects.toBeInstanceOf(TurnAborted);
    const killed = runHook(hook('sleep 300 & sleep 300'), {}, options);
    killRunningHooks();
    expect(await killed).toEqual({ code: null, stdout: '', failure: 'killed by SIGKILL' });
    expect(await envSurvivors(MARK, value)).toEqual([]);
  });
});
