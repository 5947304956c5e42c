// The CLI shows it is working whenever it waits, on a real terminal (tmux): while agy starts, while the model
// pauses mid-sentence or after a whole line, while a turn stalls; the answer's words continue in place after a
// pause; nothing of a spinner is left after the closing line; `/model` alone shows the model.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Scenario, writeScenario } from '../../src/testing/index.js';
import { BUILT, killPids, survivors } from '../helpers/cli.js';
import { after, HAS_TMUX, Pane, SPIN } from '../helpers/tmux.js';

let dir: string;
let pane: Pane;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agy-sdk-cli-tmux-waits-'));
  pane = new Pane();
});
afterEach(async () => {
  pane.kill();
  killPids(await survivors(pane.mark, 0));
  await rm(dir, { recursive: true, force: true });
});

async function scenarioEnv(s: Scenario): Promise<Record<string, string>> {
  return { AGY_SIM_SCENARIO: await writeScenario(s, dir), TERM: 'xterm-256color' };
}

const frame = new RegExp(SPIN);

describe.skipIf(!BUILT || !HAS_TMUX)('agy-sdk waits visibly (tmux)', () => {
  it('run: a spinner while agy starts, under an open line while the model pauses, after a whole line; nothing after the closing line', async () => {
    const env = await scenarioEnv({
      // agy's start (init) takes seconds on a real machine; the simulator waits 3 s before its init.
      startup: { delayMs: 3000 },
      turns: [
        {
          actions: [
            { text: 'Hello, ' },
            { sleep: 3000 },
            { text: 'world.\n' },
            { sleep: 3000 },
            { text: 'Second line.' },
          ],
        },
      ],
    });
    pane.start(['run', '--offline', 'hi'], env);
    await pane.waitFor(new RegExp(`^${SPIN} starting agy… \\d+\\.\\ds`, 'm'));
    // Mid-sentence: the spinner sits on the row under the open line.
    await pane.waitFor(new RegExp(`^Hello,\\n${SPIN} working… \\d+\\.\\ds`, 'm'));
    // After a whole line too.
    await pane.waitFor(new RegExp(`^Hello, world\\.\\n${SPIN} working… \\d+\\.\\ds`, 'm'));
    const screen = await pane.waitFor('[exit 0]');
    // The words went on in place; the closing line is the last thing the command printed.
    expect(screen).toMatch(/^Hello, world\.\nSecond line\.\nsuccess · [^\n]*\n\[exit 0\]/m);
    expect(screen).not.toMatch(frame);
    expect(await survivors(pane.mark)).toEqual([]);
  });

  it('chat: a spinner while agy starts and while a turn stalls mid-sentence; /model alone shows the model', async () => {
    const env = await scenarioEnv({
      startup: { delayMs: 3000 },
      turns: [
        { actions: [{ text: 'Working on it, slowly' }, { stall: true }] },
        { actions: [{ text: 'Fine.' }] },
      ],
    });
    pane.start(['chat', '--offline'], env);
    await pane.waitFor(new RegExp(`^${SPIN} starting agy… \\d+\\.\\ds`, 'm'));
    await pane.waitFor('you ›');

    pane.type('first');
    await pane.waitFor(new RegExp(`^Working on it, slowly\\n${SPIN} working… \\d+\\.\\ds`, 'm'));
    pane.keys('C-c');
    let screen = await pane.waitFor(/interrupted · .*\n+you ›\s*$/);
    expect(after(screen, 'you › first')).not.toMatch(frame);

    // agy's own answer (`agy -p /model`): the simulator's default model, then the one chosen.
    pane.type('/model');
    await pane.waitFor('model: gemini-3.8-flash-medium (Gemini 3.8 Flash (Medium))');
    pane.type('/model gemini-3.6-flash-low');
    await pane.waitFor('model: gemini-3.6-flash-low (from the next turn)');
    pane.type('/model');
    screen = await pane.waitFor(/model: gemini-3\.6-flash-low \(Gemini 3\.6 Flash \(Low\)\)/);
    pane.type('second');
    screen = await pane.waitFor(/Fine\.\nsuccess · [^\n]*\n+you ›\s*$/);
    expect(after(screen, 'you › second')).not.toMatch(frame);
    pane.type('/exit');
    await pane.waitFor('[exit 0]');
    expect(await survivors(pane.mark)).toEqual([]);
  });
});
