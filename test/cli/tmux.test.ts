// The `agy-sdk` command on a real terminal: tmux runs it, `send-keys` types, `capture-pane` reads the screen.
// Skipped (with the reason) only where tmux is absent.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Scenario, writeScenario } from '../../src/testing/index.js';
import { BUILT, CLI, killPids, MARK_VAR, ROOT, survivors } from './helpers.js';

const ESC = String.fromCharCode(27);
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAS_TMUX) console.warn('test/cli/tmux.test.ts skipped: tmux is not installed (apt-get install -y tmux)');

/** One private tmux server (its own socket) with one pane running a command. */
class Pane {
  readonly socket = `agy-sdk-cli-${randomUUID().slice(0, 8)}`;
  readonly mark = randomUUID();

  start(args: string[], env: Record<string, string>): void {
    const vars = Object.entries({ ...env, [MARK_VAR]: this.mark }).map(([k, v]) => `${k}=${quote(v)}`);
    // The exit status stays on screen after the command ends; the pane lives on for the test to read it.
    const command = `cd ${quote(ROOT)} && env ${vars.join(' ')} ${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(' ')}; echo "[exit $?]"; sleep 600`;
    this.#tmux('new-session', '-d', '-s', 'cli', '-x', '120', '-y', '50', command);
  }

  keys(...keys: string[]): void {
    this.#tmux('send-keys', '-t', 'cli', ...keys);
  }

  /** Types `text` literally, then Enter. */
  type(text: string): void {
    this.#tmux('send-keys', '-t', 'cli', '-l', text);
    this.keys('Enter');
  }

  screen(escapes = false): string {
    return this.#tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-S', '-200', '-t', 'cli');
  }

  /** Polls the screen (a terminal gives no event) until `test` holds; bounded and generous for a loaded box. */
  async waitFor(test: string | RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (typeof test === 'string' ? screen.includes(test) : test.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`screen never showed ${String(test)}:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
    // tmux leaves its socket file behind; it is ours (a unique name), so remove it.
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${uid}`, this.socket), { force: true });
  }

  #tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Text after the last occurrence of `marker` on the screen. */
function after(screen: string, marker: string): string {
  return screen.slice(screen.lastIndexOf(marker));
}

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
