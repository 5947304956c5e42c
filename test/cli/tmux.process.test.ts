// The `agy-sdk` command on a real terminal: tmux runs it, `send-keys` types, `capture-pane` reads the screen.
// Skipped (with the reason) only where tmux is absent.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Scenario, writeScenario } from '../../src/testing/index.js';
import { BUILT, CLI, killPids, MARK_VAR, ROOT, survivors } from '../helpers/cli.js';
import { after, HAS_TMUX, Pane, quote, SPIN } from '../helpers/tmux.js';

const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;
if (!HAS_TMUX)
  console.warn('test/cli/tmux.process.test.ts skipped: tmux is not installed (apt-get install -y tmux)');

let dir: string;
let pane: Pane;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agy-sdk-cli-tmux-'));
  pane = new Pane();
});
afterEach(async () => {
  pane.kill();
  killPids(await survivors(pane.mark, 0));
  await rm(dir, { recursive: true, force: true });
});

async function scenarioEnv(s: Scenario): Promise<Record<string, string>> {
  return { AGY_SIM_SCENARIO: await writeScenario(s, dir) };
}

describe.skipIf(!BUILT || !HAS_TMUX)('agy-sdk on a terminal (tmux)', () => {
  it('chat: streams, Ctrl-C interrupts and the next prompt works, approvals, /model /usage /history, double Ctrl-C exits', async () => {
    const env = await scenarioEnv({
      turns: [
        { actions: [{ text: 'Working on it, slowly', chunks: 2 }, { stall: true }] },
        {
          actions: [
            {
              tool: { name: 'run_command', parameters: { CommandLine: 'echo approved' }, output: 'approved' },
            },
            { text: 'Ran it.' },
          ],
        },
      ],
    });
    pane.start(['chat', '--offline', '--confirm', 'run-command'], env);
    await pane.waitFor('you ›');

    // Turn 1 stalls after its first words: Ctrl-C interrupts it, and the prompt comes back.
    pane.type('first prompt');
    await pane.waitFor('Working on it, slowly');
    pane.keys('C-c');
    await pane.waitFor(/interrupted · .*\n+you ›/);

    // Turn 2 asks before run_command; "y" lets it run.
    pane.type('run it');
    await pane.waitFor('Allow? [y/N]');
    pane.type('y');
    let screen = await pane.waitFor(/success · .*tokens/);
    expect(after(screen, 'run it')).toMatch(/✓ run_command echo approved — approved/);
    expect(after(screen, 'run it')).toContain('Ran it.');

    pane.type('/model gemini-3.6-flash-low');
    await pane.waitFor('model: gemini-3.6-flash-low');
    pane.type('/usage');
    screen = await pane.waitFor(/conversation \(2 turns\): in \d+/);
    expect(screen).toMatch(/last turn: in \d+ · out \d+/);
    pane.type('/history');
    screen = await pane.waitFor(/2\. you: run it\n\s+agent \[success\]: Ran it\./);
    expect(screen).toMatch(/1\. you: first prompt\n\s+agent \[interrupted\]/);

    // The turn after /model still works (agy restarted on the same conversation): echo mode answers.
    pane.type('third');
    await pane.waitFor(/You said: "third"[\s\S]*success ·/);

    // Ctrl-C at an empty prompt arms, the second exits 0; nothing is left running.
    pane.keys('C-c');
    await pane.waitFor('Ctrl-C again to exit');
    pane.keys('C-c');
    await pane.waitFor('[exit 0]');
    expect(await survivors(pane.mark)).toEqual([]);
  });

  it('run on a TTY: live tool line ending in ✓/✗, the answer, then status · duration · usage; colour unless NO_COLOR', async () => {
    const s: Scenario = {
      turns: [
        {
          actions: [
            { tool: { name: 'view_file', parameters: { AbsolutePath: '/tmp/a.txt' }, output: 'alpha' } },
            {
              tool: {
                name: 'view_file',
                parameters: { AbsolutePath: '/tmp/missing' },
                error: { message: 'no such file' },
              },
            },
            { text: 'Read one file.' },
          ],
        },
      ],
    };
    pane.start(['run', '--offline', 'read'], { ...(await scenarioEnv(s)), TERM: 'xterm-256color' });
    const screen = await pane.waitFor('[exit 0]');
    expect(screen).toContain('✓ view_file /tmp/a.txt — alpha');
    expect(screen).toContain('✗ view_file /tmp/missing — no such file');
    expect(screen).toContain('Read one file.');
    expect(screen).toMatch(/success · \d+(ms|\.\ds) · in \d+ · out \d+ · total \d+ tokens/);
    // Green ✓ in colour.
    expect(pane.screen(true)).toMatch(new RegExp(`${ESC}\\[[0-9;]*32m✓`));
    pane.kill();

    const plain = new Pane();
    pane = plain;
    plain.start(['run', '--offline', 'read'], {
      ...(await scenarioEnv(s)),
      TERM: 'xterm-256color',
      NO_COLOR: '1',
    });
    await plain.waitFor('[exit 0]');
    const raw = plain.screen(true);
    expect(raw).toContain('✓ view_file /tmp/a.txt');
    expect(raw).not.toMatch(new RegExp(`${ESC}\\[[0-9;]*3[0-7]m`));
  });
  it('run: Ctrl-C typed on the terminal interrupts the turn, exit 130, nothing left running', async () => {
    const env = await scenarioEnv({
      turns: [{ actions: [{ text: 'Thinking slowly', chunks: 1 }, { stall: true }] }],
    });
    pane.start(['run', '--offline', 'think'], env);
    await pane.waitFor('Thinking slowly');
    // The terminal sends SIGINT to the whole foreground group, supervisor included, not just the CLI.
    pane.keys('C-c');
    const screen = await pane.waitFor('[exit 130]');
    expect(screen).toMatch(/interrupted · .* — the turn was interrupted/);
    expect(await survivors(pane.mark)).toEqual([]);
  });
});

describe.skipIf(!BUILT || !HAS_TMUX)(
  'agy-sdk on a terminal: what the model and tools print, and every ending',
  () => {
    it('chat: working spinner before the first words and after a tool, one echo at Allow?, the command line shown, control sequences neutralised, Ctrl-C at Allow? ends cleanly', async () => {
      // The run_command parameters carry what agy adds to the hook payload (docs/reference/hooks.md#pretooluse-payload).
      const env = await scenarioEnv({
        turns: [
          {
            actions: [
              { sleep: 3000 },
              {
                text: `Hello ${ESC}]52;c;ZXZpbA==${BEL}there ${ESC}]2;PWNED${BEL}you ${ESC}[8msee${ESC}[0m me\n`,
                chunks: 3,
              },
              {
                tool: {
                  name: 'run_command',
                  parameters: {
                    CommandLine: 'echo approved',
                    Cwd: '/tmp',
                    WaitMsBeforeAsync: 5000,
                    toolAction: 'Running echo approved',
                    toolSummary: 'Run echo approved',
                  },
                  output: `approved${ESC}]2;PWNED2${BEL}`,
                },
              },
              { sleep: 3000 },
              { text: 'Ran it.' },
            ],
          },
          {
            actions: [
              {
                tool: {
                  name: 'run_command',
                  parameters: { CommandLine: 'sleep 100', Cwd: '/tmp' },
                  hang: true,
                },
              },
            ],
          },
          { actions: [{ text: 'third answer' }] },
        ],
      });
      pane.start(['chat', '--offline'], { ...env, TERM: 'xterm-256color' });
      await pane.waitFor('you ›');
      const title = pane.title();

      pane.type('first');
      // The model is working (3 s before its first words): a spinner with the elapsed time.
      await pane.waitFor(new RegExp(`you › first\\n${SPIN} working… \\d+\\.\\ds`));
      await pane.waitFor('Allow? [y/N]');
      let screen = pane.screen();
      expect(screen).toContain('Hello there you see me');
      expect(screen).toMatch(/command: +echo approved\n +in: +\/tmp\n/);
      expect(screen).not.toMatch(/WaitMsBeforeAsync|toolAction|"Cwd"/);
      pane.type('y');
      // Between the tool's end and the next words the spinner is back.
      await pane.waitFor(new RegExp(`✓ run_command echo approved — approved\\n${SPIN} working… \\d+\\.\\ds`));
      screen = await pane.waitFor(/Ran it\.\nsuccess · /);
      // The answer is echoed once, on the question's line.
      expect(screen).toContain('Allow? [y/N] y\n✓ run_command');
      expect(pane.title()).toBe(title);
      expect(pane.screen(true)).not.toMatch(new RegExp(`${ESC}\\[(?:[0-9;]*;)?8m`));

      pane.type('/usage');
      await pane.waitFor(/conversation \(1 turn\): in \d+/);

      // Ctrl-C at the approval question: the turn ends with its status line, the prompt comes back, no warning.
      pane.type('second');
      await pane.waitFor(/sleep 100[\s\S]*Allow\? \[y\/N\]\s*$/);
      pane.keys('C-c');
      screen = await pane.waitFor(/interrupted · .*\n+you ›\s*$/);
      expect(after(screen, 'you › second')).not.toMatch(/hook failed|\[agy-sdk\]/);

      // The question that turn left open neither blocks nor swallows the next prompt.
      pane.type('third');
      screen = await pane.waitFor(/third answer\nsuccess · /);
      pane.type('/exit');
      await pane.waitFor('[exit 0]');
      expect(await survivors(pane.mark)).toEqual([]);
    });

    it('run: Ctrl-C while a tool runs still prints the closing status line, exit 130', async () => {
      const env = await scenarioEnv({
        turns: [
          { actions: [{ tool: { name: 'view_file', parameters: { AbsolutePath: '/tmp/x' }, hang: true } }] },
        ],
      });
      pane.start(['run', '--offline', 'read'], env);
      await pane.waitFor(new RegExp(`${SPIN} view_file /tmp/x \\d+\\.\\ds`));
      pane.keys('C-c');
      const screen = await pane.waitFor('[exit 130]');
      expect(screen).toMatch(
        /interrupting the turn[\s\S]*interrupted · .* — the turn was interrupted\n\[exit 130\]/,
      );
      expect(await survivors(pane.mark)).toEqual([]);
    });
  },
);

describe.skipIf(!BUILT || !HAS_SCRIPT)(
  'agy-sdk on a pty that reports 0 columns (script, stty cols 0)',
  () => {
    it('run draws no runaway spinner: a few hundred bytes, the ✓ line and the status line, exit 0', async () => {
      const mark = randomUUID();
      const scenario = await writeScenario(
        {
          turns: [
            {
              actions: [
                { sleep: 1500 },
                { tool: { name: 'view_file', parameters: { AbsolutePath: '/tmp/a' }, output: 'alpha' } },
                { sleep: 1000 },
                { text: 'done' },
              ],
            },
          ],
        },
        dir,
      );
      const inner = `stty cols 0 rows 0 && exec ${quote(process.execPath)} ${quote(CLI)} run --offline go`;
      const child = spawn('script', ['-qec', inner, '/dev/null'], {
        cwd: ROOT,
        env: { ...process.env, AGY_SIM_SCENARIO: scenario, [MARK_VAR]: mark, TERM: 'xterm-256color' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        // nanospinner wrote megabytes of escape codes here; stop early rather than fill memory.
        if (out.length > 1_000_000) child.kill('SIGKILL');
      });
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(out.length).toBeLessThan(4000);
      expect(out).toContain('✓');
      expect(out).toContain('view_file /tmp/a');
      expect(out).toMatch(/success · /);
      expect(code).toBe(0);
      expect(await survivors(mark)).toEqual([]);
    });
  },
);
