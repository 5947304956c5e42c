/**
 * Spawning the built `agy-sdk` command (`dist/cli/main.js`) through a real process, and finding what it left
 * running. Every spawned CLI carries a unique marker variable its children inherit, so leftovers are found in
 * /proc by marker, not by name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/cli/main.js');
export const BUILT = existsSync(CLI);
export const MARK_VAR = 'AGY_SDK_CLI_TEST_MARK';

/** A finished CLI run. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running CLI. */
export interface CliProcess {
  child: ChildProcess;
  mark: string;
  stdout(): string;
  stderr(): string;
  /** Resolves when `text` shows up on stdout or stderr (rejects if the process exits first). */
  waitFor(text: string | RegExp): Promise<void>;
  done: Promise<CliRun>;
}

/** Starts `node dist/cli/main.js …args` with `env` over the current environment. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): CliProcess {
  const mark = randomUUID();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env, [MARK_VAR]: mark },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { match: (s: string) => boolean; resolve: () => void; reject: (e: Error) => void }[] = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      if (w.match(out + err)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    check();
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    check();
  });
  if (input !== undefined) child.stdin?.end(input);
  const done = new Promise<CliRun>((res) => {
    child.once('close', (code, signal) => {
      for (const w of waiters.splice(0))
        w.reject(
          new Error(`CLI exited (${code ?? signal}) before the text came\nstdout:\n${out}\nstderr:\n${err}`),
        );
      res({ code, signal, stdout: out, stderr: err });
    });
  });
  return {
    child,
    mark,
    stdout: () => out,
    stderr: () => err,
    waitFor(text) {
      const match = (s: string): boolean => (typeof text === 'string' ? s.includes(text) : text.test(s));
      return new Promise((res, rej) => {
        if (match(out + err)) return res();
        waiters.push({ match, resolve: res, reject: rej });
      });
    },
    done,
  };
}

/** Runs the CLI to the end. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input = ''): Promise<CliRun> {
  return startCli(args, env, input).done;
}

/** Pids of live processes whose environment holds `AGY_SDK_CLI_TEST_MARK=<mark>`. */
export function markedPids(mark: string): number[] {
  const needle = `${MARK_VAR}=${mark}`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // A zombie has exited; only its parent's wait is missing.
      if (env.includes(needle) && !/\) Z /.test(stat)) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** Polls (bounded) until no marked process is left; /proc gives no event to await. Returns the survivors. */
export async function survivors(mark: string, timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = markedPids(mark);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Kills what a failed test left behind. */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
