import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { profileFor } from '../../../src/testing/simulator/profile.js';
import type { Scenario } from '../../../src/testing/simulator/scenario.js';
import { ensureSimulatorBuilt, SimHarness } from '../../helpers/sim-process.js';
import { script, signature } from '../../helpers/wire-shapes.js';

const UNTETHER = 'littlebearapps-untether-agy-1.3.1';
const harness = new SimHarness();

beforeAll(async () => {
  await ensureSimulatorBuilt();
}, 120_000);

afterEach(async () => {
  await harness.cleanup();
});

/**
 * The lines compared with a 1.3.1 capture: 1.3.2 and later name the account's default model in `init` without
 * `--model` (src/testing/simulator/main.ts), which 1.3.1 did not; that one key is checked and set aside.
 */
function asCompared(lines: Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.map((line) => {
    if (line.event !== 'init') return line;
    const { model, ...init } = line.init as Record<string, unknown>;
    expect(model).toBe('gemini-3.8-flash');
    return { ...line, init };
  });
}

const TOOL_ACTIVE = (e: Record<string, unknown>) =>
  (e.step_update as { step_type?: string } | undefined)?.step_type === 'tool';

describe.each(['1.3.3', '1.5.0'])('agy %s (a described profile)', (version) => {
  it('says it rests on a description, not on captures', () => {
    expect(profileFor(version).evidence).toBe('description');
    expect(profileFor('1.3.1').evidence).toBe('captures');
  });

  it('ok: the shapes of the 1.3.1 capture', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/ok.script
    const real = script(ctx, `${UNTETHER}/ok.script`);
    const sim = await harness.start({
      scenario: { version, turns: [{ actions: [{ text: 'OK\n', chunks: 2 }] }] },
    });
    sim.prompt('go');
    sim.endInput();
    expect((await sim.exited).code).toBe(real.rc);
    expect(asCompared(sim.events).map(signature)).toEqual(real.out.map(signature));
  });

  it('SIGINT during a tool: ERROR "interrupted", `error: interrupted`, exit 1, as 1.3.1', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script
    const real = script(ctx, `${UNTETHER}/interrupted_sigint.script`);
    const scenario: Scenario = {
      version,
      turns: [
        { actions: [{ tool: { name: 'run_command', parameters: { CommandLine: 'sleep 30' }, hang: true } }] },
      ],
    };
    const sim = await harness.start({ scenario, args: ['--dangerously-skip-permissions'] });
    sim.prompt('go');
    await sim.waitForEvent('tool ACTIVE', TOOL_ACTIVE);
    sim.child.kill('SIGINT');
    expect((await sim.exited).code).toBe(real.rc);
    expect(asCompared(sim.events).map(signature)).toEqual(real.out.map(signature));
    expect(sim.stderr.trim().split('\n')).toEqual(real.err);
  });
});

describe.skipIf(process.platform === 'win32')('SIGTERM by profile', () => {
  it('1.5 ignores it, idle or in a turn: no result, no exit, until SIGKILL', async () => {
    const scenario: Scenario = { version: '1.5.0', turns: [{ actions: [{ stall: true }] }] };
    const sim = await harness.start({ scenario });
    await sim.waitForEvent('init', (e) => e.event === 'init');
    sim.child.kill('SIGTERM');
    sim.prompt('go');
    await sim.waitForEvent(
      'user_input',
      (e) => (e.step_update as { step_type?: string } | undefined)?.step_type === 'user_input',
    );
    sim.child.kill('SIGTERM');
    // Nothing to await when a signal is ignored: a window in which 1.3.x would have ended (it answers at once).
    const ended = await Promise.race([sim.exited, new Promise((r) => setTimeout(() => r('running'), 1000))]);
    expect(ended).toBe('running');
    sim.child.kill('SIGKILL');
    expect(await sim.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(sim.events.filter((e) => e.event === 'result')).toEqual([]);
  });

  it('1.3.3 does not: idle, it exits 143', async () => {
    const sim = await harness.start({ scenario: { version: '1.3.3', turns: [] } });
    await sim.waitForEvent('init', (e) => e.event === 'init');
    sim.child.kill('SIGTERM');
    expect(await sim.exited).toEqual({ code: 143, signal: null });
  });
});
