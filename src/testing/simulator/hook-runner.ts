/**
 * Running one hook command the way agy does: as a command line with arguments through `/bin/sh -c` (real
 * users' hooks are command lines such as `python ./plugins/x/hook.py PreToolUse`,
 * agy-real/configs-hooks-json/; a real plugin's hook was `python3 '<path>' hook`, agy-real/README.md), or, as
 * 1.3.3 does, cut at whitespace and exec'd without a shell (docs/reference/hooks.md#hook-commands-split-on-spaces:
 * quotes stay in the words, so a quoted path with a space fails to start), cwd the first workspace's `.agents` directory when it exists (else the first workspace, else agy's cwd), the
 * environment plus `ANTIGRAVITY_CONVERSATION_ID`, the camelCase JSON input on stdin. Hooks run one at a time;
 * a hook past its timeout is killed (SIGKILL) and counts as failed. A turn abort (SIGINT, print timeout)
 * kills the running hook too. Killing takes the hook's process group, and what is left of the group when the
 * hook exits goes too (src/platform/bounded-command.ts): a simulator leaves no process behind.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { currentPlatform, runBounded } from '../../platform/index.js';
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

/** Hooks still running, each stopped by aborting its controller, so an exiting simulator can kill them. */
const running = new Set<AbortController>();

/** Kills every running hook's process group (synchronous: SIGKILL at once; for process exit). */
export function killRunningHooks(): void {
  for (const hook of running) hook.abort();
  running.clear();
}

/**
 * How a hook command becomes a process: `shell` runs it as agy does on this OS (`/bin/sh -c` on POSIX, see
 * `platform/`); `split` cuts it at runs of whitespace and execs the first word with the rest as arguments, no
 * shell, no quote removal.
 */
export type HookExec = 'shell' | 'split';

/** The program and arguments for `command` under `exec`. */
export function hookArgv(command: string, exec: HookExec): [string, string[]] {
  if (exec === 'shell') return currentPlatform().hookShellArgv(command);
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
export async function runHook(
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
  if (signal?.aborted) throw new TurnAborted(signal.reason as AbortReason);
  let argv: [string, string[]];
  try {
    argv = hookArgv(hook.command, options.exec ?? 'shell');
  } catch (error) {
    // No platform to run a command line on (an UnsupportedError naming the OS): the hook fails, as a spawn would.
    return { code: null, stdout: '', failure: `cannot run ${hook.command}: ${(error as Error).message}` };
  }
  const [program, args] = argv;
  const own = new AbortController();
  running.add(own);
  // The hook's whole process group goes at its timeout, SIGKILL at once (grace 0), so a hook's own children
  // (`sh -c 'slow | jq'`) cannot outlive it.
  const run = await runBounded(program, args, {
    cwd: options.cwd,
    env: { ...process.env, ANTIGRAVITY_CONVERSATION_ID: options.conversationId },
    input: JSON.stringify(input),
    timeoutMs: hook.timeoutMs,
    graceMs: 0,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    signal: signal ? AbortSignal.any([signal, own.signal]) : own.signal,
  }).finally(() => running.delete(own));
  switch (run.kind) {
    case 'spawn-failed':
      return { code: null, stdout: '', failure: `cannot run ${hook.command}: ${run.error.message}` };
    case 'timed-out':
      return { code: null, stdout: run.stdout, failure: `timed out after ${hook.timeoutMs / 1000}s` };
    case 'aborted':
      if (signal?.aborted) throw new TurnAborted(signal.reason as AbortReason);
      return { code: null, stdout: run.stdout, failure: 'killed by SIGKILL' };
    case 'exited': {
      if (run.code === 0) return { code: 0, stdout: run.stdout };
      let failure = run.code === null ? `killed by ${run.signal}` : `exited with code ${run.code}`;
      const detail = run.stderr.trim();
      if (detail !== '') failure += `: ${detail.split('\n').at(-1)}`;
      return { code: run.code, stdout: run.stdout, failure };
    }
  }
}
