/**
 * The simulator's agy 1.3.3 profile, built from a hook author's probe rather than captured bytes
 * (docs/reference/hooks.md#pretooluse-answers-on-133, docs/reference/hooks.md#hook-commands-split-on-spaces):
 * `{}` runs the tool without agy's prompt, `deny` blocks, and `allow`, `ask`, `permissionOverrides` and empty
 * stdout hand the call to agy's own permission check, which headless mode denies unless
 * `--dangerously-skip-permissions`; a hook command is split on whitespace and exec'd without a shell. Older
 * profiles keep the 1.2.3 table and the shell (test/testing/simulator/runtime-config.process.test.ts).
 */
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../../src/testing/simulator/scenario.js';
import { ensureSimulatorBuilt, SimHarness, type SimProcess } from '../../helpers/sim-process.js';

const harness = new SimHarness();
beforeAll(async () => {
  await ensureSimulatorBuilt();
}, 120_000);
afterEach(async () => {
  await harness.cleanup();
});

/** Writes an executable hook under `dir` that prints `stdout`; returns its path. */
function hookScript(dir: string, name: string, stdout: string): string {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.out`, stdout);
  writeFileSync(file, `#!/bin/sh\ncat >/dev/null\ncat '${file}.out'\n`);
  chmodSync(file, 0o755);
  return file;
}

/** One run of `run_command` under a PreToolUse hook whose command is `command`; the tool's final step. */
async function runUnder(
  command: string,
  options: { version: string; skipPermissions?: boolean },
): Promise<{ sim: SimProcess; step: Record<string, unknown> | undefined }> {
  const root = realpathSync(await harness.tempDir());
  const work = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(join(work, '.agents'), { recursive: true });
  mkdirSync(home);
  writeFileSync(
    join(work, '.agents', 'hooks.json'),
    JSON.stringify({ probe: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command }] }] } }),
  );
  const scenario: Scenario = {
    version: options.version,
    turns: [
      {
        actions: [
          { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'ran' } },
          { text: 'done' },
        ],
      },
    ],
  };
  const sim = await harness.start({
    args: ['--add-dir', work, ...(options.skipPermissions ? ['--dangerously-skip-permissions'] : [])],
    env: { HOME: home },
    scenario,
  });
  sim.prompt('go');
  sim.endInput();
  expect(await sim.exited).toEqual({ code: 0, signal: null });
  const steps = sim.steps.filter((s) => s.tool_name === 'run_command');
  return { sim, step: steps.at(-1) };
}

const info = (step: Record<string, unknown> | undefined) =>
  (step?.tool_info ?? {}) as Record<string, unknown>;

describe('agy 1.3.3 profile: PreToolUse answers', () => {
  it('{} runs the tool without a permission prompt', async () => {
    const dir = realpathSync(await harness.tempDir());
    const { sim, step } = await runUnder(hookScript(dir, 'empty-object', '{}'), { version: '1.3.3' });
    expect(step?.state).toBe('DONE');
    expect(info(step).output).toBe('ran');
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', response: 'done' });
    expect(sim.results[0]).not.toHaveProperty('denied_actions');
  });

  it('deny blocks with the hook reason', async () => {
    const dir = realpathSync(await harness.tempDir());
    const deny = hookScript(dir, 'deny', '{"decision":"deny","reason":"nope"}');
    const { step } = await runUnder(deny, { version: '1.3.3' });
    expect(step?.state).toBe('ERROR');
    expect(info(step)).not.toHaveProperty('output');
    expect(info(step).error).toEqual({
      type: 'TOOL_ERROR',
      message: 'tool call denied by pre-tool hook: nope',
    });
  });

  const fallBack: Array<[string, string]> = [
    ['allow', '{"decision":"allow"}'],
    ['ask', '{"decision":"ask"}'],
    ['permissionOverrides', '{"permissionOverrides":{"command":"allow"}}'],
    ['empty stdout', ''],
  ];
  for (const [what, stdout] of fallBack) {
    it(`${what} approves nothing: agy's own check denies it headless, and runs it when permissions are skipped`, async () => {
      const dir = realpathSync(await harness.tempDir());
      const command = hookScript(dir, what.replace(/\s/g, '-'), stdout);
      const denied = await runUnder(command, { version: '1.3.3' });
      expect(denied.step?.state).toBe('DONE');
      expect(info(denied.step)).not.toHaveProperty('output');
      expect(denied.sim.results[0]).toMatchObject({
        denied_actions: [{ action: 'run_command', display_name: 'RunCommand' }],
      });
      const skipped = await runUnder(command, { version: '1.3.3', skipPermissions: true });
      expect(skipped.step?.state).toBe('DONE');
      expect(info(skipped.step).output).toBe('ran');
    });
  }

  it('the 1.3.1 profile keeps the 1.2.3 table: {"decision":"allow"} runs, {} denies', async () => {
    const dir = realpathSync(await harness.tempDir());
    const allow = await runUnder(hookScript(dir, 'allow', '{"decision":"allow"}'), { version: '1.3.1' });
    expect(info(allow.step).output).toBe('ran');
    const empty = await runUnder(hookScript(dir, 'empty-object', '{}'), { version: '1.3.1' });
    expect(empty.step?.state).toBe('ERROR');
    expect(info(empty.step).error).toMatchObject({ message: expect.stringMatching(/no decision/) });
  });
});

describe('agy 1.3.3 profile: hook commands split on spaces, no shell', () => {
  it('a quoted path with a space fails to start on 1.3.3 (a deny) and runs through the shell on 1.3.1', async () => {
    const dir = join(realpathSync(await harness.tempDir()), 'Application Support');
    const quoted = `'${hookScript(dir, 'allow', '{"decision":"allow"}')}'`;
    const split = await runUnder(quoted, { version: '1.3.3', skipPermissions: true });
    expect(split.step?.state).toBe('ERROR');
    expect(info(split.step).error).toMatchObject({ message: expect.stringMatching(/pre-tool hook/) });
    expect(split.sim.stderr).toContain('warning: PreToolUse hook');
    const shell = await runUnder(quoted, { version: '1.3.1' });
    expect(info(shell.step).output).toBe('ran');
  });

  it('arguments are plain words: no quote removal', async () => {
    // Split without a shell, the quotes reach echo and the answer is JSON; a shell would strip them.
    const command = '/bin/echo {"decision":"deny","reason":"kept"}';
    const split = await runUnder(command, { version: '1.3.3' });
    expect(info(split.step).error).toEqual({
      type: 'TOOL_ERROR',
      message: 'tool call denied by pre-tool hook: kept',
    });
    const shell = await runUnder(command, { version: '1.3.1' });
    expect(info(shell.step).error).toMatchObject({ message: expect.stringMatching(/not valid JSON/) });
  });
});
