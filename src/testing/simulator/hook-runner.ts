/**
 * Running one hook command the way agy does: as a command line with arguments through `/bin/sh -c` (real
 * users' hooks are command lines such as `python ./plugins/x/hook.py PreToolUse`,
 * agy-real/configs-hooks-json/; a real plugin's hook was `python3 '<path>' hook`, agy-real/README.md), or, as
 * 1.3.3 does, cut at whitespace and exec'd without a shell (docs/reference/hooks.md#hook-commands-split-on-spaces:
 * quotes stay in the words, so a quoted path with a space fails to start), cwd
 * the first workspace's `.agents` directory when it exists (else the first workspace, else agy's cwd), the
 * environment plus `ANTIGRAVITY_CONVERSATION_ID`, the camelCase JSON input on stdin. Hooks run one at a time;
 * a hook past its timeout is killed (SIGKILL) and counts as failed. A turn abort (SIGINT, print timeout)
 * kills the running hook too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type AbortReason, TurnAborted } from './abort.js';
import type { HookCommand } from './hook-config.js';

/** The most stdout/stderr kept from one hook. */
const MAX_OUTPUT_BYTES = 1 << 20;

/** How one hook run ended. */
export interface HookRun {
  /** The exit code, or `null` when it was killed or never started. */
  code: number | null;
  /** Its stdout (at most 1 MiB). */
  stdout: string;
  /** Why it failed (spawn error, timeout, non-zero exit); `undefined` on exit 0. */
  failure?: string | undefined;
}

/** Hook children still running, so an exiting simulator can kill them. */
const running = new Set<ChildProcess>();

/** Kills every running hook (synchronous; for process exit). */
export function killRunningHooks(): void {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  running.clear();
}

/**
 * How a hook command becomes a process: `shell` runs it through `/bin/sh -c`; `split` cuts it at runs of
 * whitespace and execs the first word with the rest as arguments, no shell, no quote removal.
 */
export type HookExec = 'shell' | 'split';

/** The program and arguments for `command` under `exec`. */
export function hookArgv(command: string, exec: HookExec): [string, string[]] {
  if (exec === 'shell') return ['/bin/sh', ['-c', command]];
  const [program = '', ...args] = command.trim().split(/\s+/);
  return [program, args];
}

/** The directory hooks run in. */
export function hookCwd(workspaces: readonly string[], fallback: string): string {
  const first = workspaces[0];
  if (first === undefined) return fallback;
  const agents = join(first, '.agents');
  try {
    if (statSync(agents).isDirectory()) return agents;
  } catch {
    // No `.agents`: the workspace itself.
  }
  return first;
}

/**
 * Runs `hook` with `input` on stdin.
 *
 * @throws TurnAborted when `signal` aborts while it runs (the hook is killed first).
 */
export function runHook(
  hook: HookCommand,
  input: object,
  options: {
    cwd: string;
    conversationId: string;
    signal?: AbortSignal | undefined;
    /** How the command is run; default `shell`. */
    exec?: HookExec | undefined;
  },
): Promise<HookRun> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new TurnAborted(signal.reason as AbortReason));
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      const [program, args] = hookArgv(hook.command, options.exec ?? 'shell');
      child = spawn(program, args, {
        cwd: options.cwd,
        env: { ...process.env, ANTIGRAVITY_CONVERSATION_ID: options.conversationId },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      resolve({ code: null, stdout: '', failure: `cannot run ${hook.command}: ${(err as Error).message}` });
      return;
    }
    running.add(child);
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrTail = '';
    let settled = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      if (stdoutBytes >= MAX_OUTPUT_BYTES) return;
      stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-500);
    });
    // A hook that exits without reading its stdin must not crash the simulator with EPIPE.
    child.stdin?.on('error', () => {});
    child.stdin?.end(JSON.stringify(input));
    const output = (): string => Buffer.concat(stdout).toString('utf8');
    // A killed hook may leave a grandchild holding its pipes open, so 'close' might never come: stop reading.
    const stop = (): void => {
      child.kill('SIGKILL');
      child.stdout?.destroy();
      child.stderr?.destroy();
      running.delete(child);
    };
    const timer = setTimeout(() => {
      stop();
      finish(() =>
        resolve({ code: null, stdout: output(), failure: `timed out after ${hook.timeoutMs / 1000}s` }),
      );
    }, hook.timeoutMs);
    const onAbort = (): void => {
      stop();
      finish(() => reject(new TurnAborted(signal?.reason as AbortReason)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    child.on('error', (err) => {
      running.delete(child);
      finish(() =>
        resolve({ code: null, stdout: '', failure: `cannot run ${hook.command}: ${err.message}` }),
      );
    });
    child.on('close', (code, killedBy) => {
      running.delete(child);
      let failure: string | undefined;
      if (code !== 0) {
        failure = code === null ? `killed by ${killedBy}` : `exited with code ${code}`;
        const detail = stderrTail.trim();
        if (detail !== '') failure += `: ${detail.split('\n').at(-1)}`;
      }
      finish(() => resolve({ code, stdout: output(), failure }));
    });
  });
}
