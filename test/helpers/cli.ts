/**
 * Spawning the built `agy-sdk` command (`dist/cli/main.js`) through a real process, and finding what it left
 * running. Every spawned CLI carries a unique marker variable its children inherit, so leftovers are found in
 * /proc by marker, not by name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envSurvivors } from './env-marker.js';

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

/** Waits (bounded) until no process of the run marked `mark` is left; returns the survivors. */
export const survivors = (mark: string, timeoutMs = 15_000): Promise<number[]> =>
  envSurvivors(MARK_VAR, mark, timeoutMs);

/** Kills what a failed test left behind. */
export { killAll as killPids } from './fake-agy.js';
