/**
 * The `agy-sdk` command in a real terminal: one private tmux server with one pane running the built CLI;
 * `send-keys` types, `capture-pane` reads the screen. Used by the tmux tests of test/cli/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, MARK_VAR, ROOT } from './cli.js';

/** True where tmux runs. */
export const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
/** A spinner frame, as a regular expression character class. */
export const SPIN = '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]';

/**
 * One private tmux server with one pane running a command. Its socket is in a directory of its own (`-S`): with
 * `-L`, tmux makes `<tmpdir>/tmux-<uid>/` and leaves that directory behind after the last server.
 */
export class Pane {
  readonly #dir = mkdtempSync(join(tmpdir(), 'agy-sdk-tmux-'));
  readonly socket = join(this.#dir, 'socket');
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

  /** The pane's title (a program sets it with OSC 0/2). */
  title(): string {
    return this.#tmux('display-message', '-p', '-t', 'cli', '#{pane_title}').trim();
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
    spawnSync('tmux', ['-S', this.socket, 'kill-server']);
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8' });
  }
}

/** `s` quoted for a shell. */
export function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Text after the last occurrence of `marker` on the screen. */
export function after(screen: string, marker: string): string {
  return screen.slice(screen.lastIndexOf(marker));
}
