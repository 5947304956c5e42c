/**
 * Runs a short-lived command (a version probe, a slash command in print mode, a hook) with a bounded end: it
 * starts in a process group of its own; at its timeout (or an abort) the group gets SIGTERM and, after a
 * grace, SIGKILL; when its leader exits, whatever is left of the group is SIGKILLed at once. Output is capped.
 * The promise always resolves, with a typed result ({@link BoundedRun}); no timer or listener outlives the run.
 * `execFile`'s `timeout` sends one signal to the leader alone: an agy that ignores SIGTERM ran on forever, and
 * its children were never signalled (docs/reference/process.md#short-lived-commands).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { MAX_TIMER_MS } from '../internal/timing.js';
import type { Platform } from './types.js';

/** How long the group gets between SIGTERM and SIGKILL, by default. */
export const DEFAULT_TERM_GRACE_MS = 2_000;
/** The most of each stream kept, by default (the first bytes). */
export const DEFAULT_MAX_OUTPUT_BYTES = 1 << 20;
/**
 * How long the pipes may stay open after the leader exited and its group was killed: only a process that left
 * the group (`setsid`) can hold them then, and it must not hold the result.
 */
const PIPE_CLOSE_MS = 1_000;

/** How to run the command. */
export interface BoundedCommandOptions {
  /** Its whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv | undefined;
  /** Its working directory (default: this process's). */
  cwd?: string | undefined;
  /** Written to its stdin, which is then closed (default: stdin closed at once). */
  input?: string | undefined;
  /** From the spawn to SIGTERM of the group. */
  timeoutMs: number;
  /** From SIGTERM to SIGKILL of the group (default {@link DEFAULT_TERM_GRACE_MS}); 0: SIGKILL at once. */
  graceMs?: number | undefined;
  /** The most of stdout, and of stderr, kept (default {@link DEFAULT_MAX_OUTPUT_BYTES}); the rest is read and dropped. */
  maxOutputBytes?: number | undefined;
  /** Ends the run as a timeout does (SIGTERM, grace, SIGKILL); the result is `aborted`. */
  signal?: AbortSignal | undefined;
}

/** What the command wrote. */
export interface BoundedOutput {
  /** The first `maxOutputBytes` of stdout, as UTF-8. */
  stdout: string;
  /** The first `maxOutputBytes` of stderr, as UTF-8. */
  stderr: string;
  /** True when stdout or stderr wrote more than was kept. */
  truncated: boolean;
}

/** How the command was stopped when it did not end by itself. */
export interface BoundedStop {
  /** True when SIGTERM was not enough (or the grace was 0) and the group got SIGKILL before the leader exited. */
  killed: boolean;
  /** The leader's exit code, if it exited on SIGTERM with a code of its own. */
  code: number | null;
  /** The signal that ended the leader. */
  signal: NodeJS.Signals | null;
}

/** How a bounded run ended. */
export type BoundedRun =
  /** The command exited by itself (any code, or a signal not of ours). */
  | (BoundedOutput & { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null })
  /** It was still running at `timeoutMs` and was stopped. */
  | (BoundedOutput & BoundedStop & { kind: 'timed-out'; timeoutMs: number })
  /** The caller's signal aborted it and it was stopped. */
  | (BoundedOutput & BoundedStop & { kind: 'aborted'; reason: unknown })
  /** It could not be started (`ENOENT`, `EACCES`, a bad argument); nothing ran. */
  | (BoundedOutput & { kind: 'spawn-failed'; error: NodeJS.ErrnoException });

/** One line for a person: how the run ended. */
export function describeRun(run: BoundedRun): string {
  switch (run.kind) {
    case 'exited':
      return run.code !== null ? `exited with code ${run.code}` : `killed by ${run.signal}`;
    case 'timed-out':
      return `timed out after ${seconds(run.timeoutMs)}${run.killed ? ' (it ignored SIGTERM: killed with SIGKILL)' : ''}`;
    case 'aborted':
      return `stopped${run.killed ? ' (killed with SIGKILL)' : ''}`;
    case 'spawn-failed':
      return `could not start: ${run.error.message}`;
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

/** Groups of runs still going: a host that exits while one runs takes it along (see {@link trackGroup}). */
const liveGroups = new Map<number, Platform>();
const killLiveGroups = (): void => {
  for (const [pid, platform] of liveGroups) platform.signalGroup(pid, 'SIGKILL');
};

/**
 * Registers a running group until the returned function is called. While any group runs, this process's `exit`
 * SIGKILLs them: a detached group gets no terminal Ctrl-C, so it must not outlive a host that exits.
 */
function trackGroup(platform: Platform, pid: number): () => void {
  if (liveGroups.size === 0) process.on('exit', killLiveGroups);
  liveGroups.set(pid, platform);
  return () => {
    if (liveGroups.delete(pid) && liveGroups.size === 0) process.off('exit', killLiveGroups);
  };
}

/** The first `max` bytes of a stream, read to its end. */
class Capture {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  truncated = false;
  readonly closed: Promise<void>;

  constructor(
    readonly stream: Readable,
    readonly max: number,
  ) {
    stream.on('data', (chunk: Buffer) => {
      const room = this.max - this.#bytes;
      if (chunk.length > room) this.truncated = true;
      if (room <= 0) return;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.#chunks.push(kept);
      this.#bytes += kept.length;
    });
    this.closed = new Promise((resolve) => {
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

/**
 * After the leader's exit: kills what is left of its group (the leader is reaped, but its group id stays its
 * own while any member lives), waits for the pipes (bounded) and returns what was kept.
 */
async function collect(
  platform: Platform,
  pid: number | undefined,
  out: Capture,
  err: Capture,
): Promise<BoundedOutput> {
  if (pid !== undefined) platform.signalGroup(pid, 'SIGKILL');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all([out.closed, err.closed]),
    new Promise<void>((done) => {
      timer = setTimeout(done, PIPE_CLOSE_MS);
    }),
  ]);
  clearTimeout(timer);
  out.stream.destroy();
  err.stream.destroy();
  return { stdout: out.text(), stderr: err.text(), truncated: out.truncated || err.truncated };
}

/** The output of a run that never produced any. */
const NO_OUTPUT: BoundedOutput = { stdout: '', stderr: '', truncated: false };

/**
 * Runs `command` with `args` on `platform`; see the module's comment. Never rejects. (`index.ts` exports it as
 * `runBounded(command, args, options)` on the current platform.)
 */
export function runBoundedOn(
  platform: Platform,
  command: string,
  args: readonly string[],
  options: BoundedCommandOptions,
): Promise<BoundedRun> {
  const signal = options.signal;
  if (signal?.aborted)
    return Promise.resolve({
      ...NO_OUTPUT,
      kind: 'aborted',
      reason: signal.reason,
      killed: false,
      code: null,
      signal: null,
    });
  let child: ChildProcess;
  try {
    child = spawn(command, [...args], {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // A group of its own: the timeout reaches whatever the command starts.
      ...platform.newGroupSpawnOptions(),
    });
  } catch (error) {
    // A bad argument (a NUL byte in argv or env) throws at once instead of emitting 'error'.
    return Promise.resolve({ ...NO_OUTPUT, kind: 'spawn-failed', error: error as NodeJS.ErrnoException });
  }
  return new Promise<BoundedRun>((resolve) => superviseRun(platform, child, options, resolve));
}

/** What ended a run before it exited by itself, and whether the SIGKILL after the grace was needed. */
type Stop = { kind: 'timed-out' | 'aborted'; killed: boolean };

/**
 * Ends the run on its timeout or its signal's abort: SIGTERM to its group, SIGKILL after the grace (at once with
 * no grace). `disarm` drops the timers and the abort listener.
 */
function armStop(
  platform: Platform,
  child: ChildProcess,
  options: BoundedCommandOptions,
): { stopped: () => Stop | undefined; disarm: () => void } {
  const graceMs = Math.max(0, options.graceMs ?? DEFAULT_TERM_GRACE_MS);
  const signal = options.signal;
  let stop: Stop | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const kill = (): void => {
    if (stop) stop.killed = true;
    if (child.pid !== undefined) platform.signalGroup(child.pid, 'SIGKILL');
  };
  const end = (kind: Stop['kind']): void => {
    if (stop || child.pid === undefined) return;
    stop = { kind, killed: false };
    if (graceMs === 0) {
      kill();
      return;
    }
    platform.signalGroup(child.pid, 'SIGTERM');
    graceTimer = setTimeout(kill, Math.min(graceMs, MAX_TIMER_MS));
  };
  const timer = setTimeout(() => end('timed-out'), Math.min(Math.max(0, options.timeoutMs), MAX_TIMER_MS));
  const onAbort = (): void => end('aborted');
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    stopped: () => stop,
    disarm: () => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Captures a spawned run's output, bounds it in time, and resolves once with how it ended. */
function superviseRun(
  platform: Platform,
  child: ChildProcess,
  options: BoundedCommandOptions,
  resolve: (run: BoundedRun) => void,
): void {
  const max = Math.max(0, options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const out = new Capture(child.stdout as Readable, max);
  const err = new Capture(child.stderr as Readable, max);
  const untrack = child.pid === undefined ? () => {} : trackGroup(platform, child.pid);
  const stopper = armStop(platform, child, options);
  const cleanup = (): void => {
    stopper.disarm();
    untrack();
  };
  // EPIPE from a command that exits without reading its stdin is expected; the exit tells the story.
  child.stdin?.on('error', () => {});
  child.stdin?.end(options.input ?? '');
  child.on('error', (error: NodeJS.ErrnoException) => {
    // Only a failed spawn comes before a pid; later errors (a failed kill) change nothing: 'exit' still comes.
    if (child.pid !== undefined) return;
    cleanup();
    resolve({ ...NO_OUTPUT, kind: 'spawn-failed', error });
  });
  child.once('exit', async (code, exitSignal) => {
    cleanup();
    const output = await collect(platform, child.pid, out, err);
    const stop = stopper.stopped();
    if (stop === undefined) return resolve({ ...output, kind: 'exited', code, signal: exitSignal });
    const how = { killed: stop.killed, code, signal: exitSignal };
    resolve(
      stop.kind === 'timed-out'
        ? { ...output, ...how, kind: 'timed-out', timeoutMs: options.timeoutMs }
        : { ...output, ...how, kind: 'aborted', reason: options.signal?.reason },
    );
  });
}
