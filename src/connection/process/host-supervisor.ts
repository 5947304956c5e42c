/**
 * The host's one supervisor (`supervisor.ts`): started lazily when the first agent process of the host is
 * created, shared by every agent process (agy and ACP) after it, and stopped when the last one has ended and been
 * swept, so `close()` of the last agent leaves no child process behind when it returns.
 *
 * Its boot is never on a start's path: it is spawned just before the first agy (its own macrotask in the spawn
 * queue), the control pipe exists as soon as that spawn returns, and what the host writes into it (`watch`,
 * `pid`) waits there until the supervisor reads it, even if the host is SIGKILLed first.
 * The supervisor and its pipes are unref'd (it never keeps the host alive) except while it is being stopped.
 *
 * It starts as the platform's waiter (`/bin/sh` on Linux and macOS) blocked on a wake pipe (fd 4) and becomes
 * the Node supervisor (`exec`: the same pid and pipes, the control lines still unread in fd 3) only when that pipe
 * closes: the host closes it when it wants the supervisor to act (`kill-tree`) or before its unread lines could
 * fill the control pipe, and a host that dies closes it too. A Node boot beside agy's slowed agy's own boot by
 * ~15% on 2 cores, and an idle Node process holds ~40 MB; the shell costs ~1 ms and ~1 MB, and most hosts never
 * need more than that.
 *
 * If it dies while it holds sessions (a crash, a SIGKILL), the guarantee is gone for them, so they fail closed:
 * each one's agent process is killed (`onLost`), its turn fails with the usual typed exit error whose stderr
 * tail says why, and the next start gets a new supervisor.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { scriptPath } from '../../internal/script-path.js';
import { currentPlatform } from '../../platform/index.js';
import { controlLine, type FoundPair, type HostCommand } from './control-protocol.js';
import { spawnQueue } from './spawn-queue.js';

/** The supervisor script. */
export const SUPERVISOR = scriptPath('connection/process/supervisor.js');

/**
 * V8's memory reducer runs a garbage collection some seconds after a process went quiet: for a supervisor that
 * is the only CPU it would ever use while its sessions idle. Its heap is a few MB; there is nothing to reduce.
 */
const SUPERVISOR_FLAGS = ['--no-memory-reducer'];

/**
 * Control lines a waiter may hold unread before the host wakes it. A small write takes about a kilobyte of an
 * AF_UNIX socket's ~200 KB buffer on Linux (8 KB in all on macOS); 16 lines of ~100 bytes stay far below both, so
 * no line ever waits in the host's memory, where a SIGKILL would lose it.
 */
const WAKE_AFTER_LINES = 16;

/** How long a stopped supervisor (holding nothing) gets to exit before it is SIGKILLed. */
const STOP_TIMEOUT_MS = 5000;

/** The variables passed on to the supervisor: only what a Node binary may need to load (no NODE_OPTIONS). */
const SUPERVISOR_ENV = [
  'PATH',
  'LD_LIBRARY_PATH',
  'DYLD_LIBRARY_PATH',
  'SYSTEMROOT',
  'TMPDIR',
  'TEMP',
  'TMP',
];

/** How a supervisor ended while it still held sessions. */
export interface SupervisorLoss {
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what it wrote to stderr, if anything. */
  stderr: string;
}

/** One running supervisor. */
interface Running {
  child: ChildProcess;
  control: Socket;
  /** The sessions it holds, with what to do if it dies. */
  sessions: Map<number, (loss: SupervisorLoss) => void>;
  /** The wake pipe while it is still the shell waiter; undefined once woken (or if it started as Node). */
  wakePipe: Socket | undefined;
  /** Control lines written while it waits. */
  unread: number;
  stopping: boolean;
  exited: Promise<void>;
}

/** A session's handle on the supervisor that holds it; every call is a no-op once that supervisor is gone. */
export interface SupervisorLease {
  /** agy started as `pid`. */
  pid(pid: number): void;
  /** Descendants found by the host's sampling. */
  adopt(found: FoundPair[]): void;
  /** agy exited (reaped by the host). */
  exited(): void;
  /** Kill the session's whole tree, scanning /proc. */
  killTree(): void;
  /** The host's sweep is done: the supervisor forgets the session. */
  forget(): void;
  /** The supervisor's pid. */
  readonly supervisorPid: number | undefined;
}

function supervisorEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of SUPERVISOR_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** The host's supervisor and the count of agent processes that keeps it. */
export class HostSupervisor {
  #running: Running | undefined;
  #users = 0;
  #queued = false;
  #nextId = 1;
  /** Supervisors started so far (for tests and benches). */
  started = 0;

  /**
   * An agent process is being created: from now until its `release()` the supervisor stays. The first one
   * queues the supervisor's spawn ahead of its own (each spawn in its own macrotask, see `spawn-queue.ts`).
   */
  acquire(): void {
    this.#users++;
    if (this.#running || this.#queued) return;
    this.#queued = true;
    spawnQueue.enqueue(() => {
      this.#queued = false;
      if (this.#users > 0 && !this.#running) this.#spawn();
      return Promise.resolve();
    });
  }

  /**
   * A session (an agent's connection) is being prepared: from now until the returned release the supervisor,
   * once started, stays, so an agent's restarts of agy never boot another one. It is not started here but by
   * the session's first agent process (`acquire`), just before agy's spawn: booting it while the session's
   * files and listener were prepared slowed that preparation on 2 cores (agy was spawned 8–20 ms after
   * `start()` with it booting, 5–6 ms with it already up) and gained nothing, since agy's own boot is what a
   * start waits for. The release is idempotent; it resolves once the supervisor has exited if that was the
   * last hold.
   */
  hold(): () => Promise<void> {
    this.#users++;
    let released = false;
    return () => {
      if (released) return Promise.resolve();
      released = true;
      return this.release();
    };
  }

  /**
   * An agent process has ended and been swept. The last one stops the supervisor (it holds nothing by then);
   * resolves once it has exited.
   */
  release(): Promise<void> {
    this.#users = Math.max(0, this.#users - 1);
    const running = this.#running;
    if (this.#users > 0 || !running) return Promise.resolve();
    return this.#stop(running);
  }

  /**
   * Registers a session about to spawn agy with `mark` (written into the control pipe before the spawn).
   * `onLost` runs if the supervisor dies while it holds the session.
   */
  watch(mark: string, graceMs: number, onLost: (loss: SupervisorLoss) => void): SupervisorLease {
    const running = this.#running ?? this.#spawn();
    const id = this.#nextId++;
    const send = (cmd: HostCommand): void => {
      const { control } = running;
      if (control.destroyed || !control.writable) return;
      control.write(controlLine(cmd));
      // Woken before its unread lines could outgrow the socket's buffer (they never wait in this process).
      if (running.wakePipe && (++running.unread >= WAKE_AFTER_LINES || control.writableLength > 0))
        wake(running);
    };
    running.sessions.set(id, onLost);
    send({ cmd: 'watch', id, mark, graceMs });
    return {
      // agy's start time from here: a waiter reads the line only later, when the pid may be another process's.
      pid: (pid) => send({ cmd: 'pid', id, pid, start: currentPlatform().processes.identity(pid)?.start }),
      adopt: (found) => send({ cmd: 'adopt', id, found }),
      exited: () => send({ cmd: 'exited', id }),
      killTree: () => {
        send({ cmd: 'kill-tree', id });
        wake(running);
      },
      forget: () => {
        if (!running.sessions.delete(id)) return;
        send({ cmd: 'forget', id });
      },
      supervisorPid: running.child.pid,
    };
  }

  /** The running supervisor's pid, if one is up (for tests and benches). */
  get pid(): number | undefined {
    return this.#running?.child.pid;
  }

  /** Whether the running supervisor is still the shell waiter (for tests and benches). */
  get waiting(): boolean {
    return this.#running?.wakePipe !== undefined;
  }

  /** @throws UnsupportedError on an OS without a platform (`platform/index.ts`), before anything is spawned. */
  #spawn(): Running {
    const platform = currentPlatform();
    this.started++;
    const node = [...SUPERVISOR_FLAGS, SUPERVISOR];
    // The waiter (a shell blocked on fd 4 that then execs Node), or undefined (no `/bin/sh`) to start the Node
    // supervisor at once.
    const waiter = platform.supervisorWaiter([process.execPath, ...node]);
    const child = spawn(waiter ? waiter[0] : process.execPath, waiter ? waiter[1] : node, {
      cwd: '/',
      env: supervisorEnv(),
      // stderr: a crash's last words, kept for the sessions' error; fd 3 control; fd 4 the waiter's wake pipe.
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', ...(waiter ? (['pipe'] as const) : [])],
      // Its own process group: a terminal's Ctrl-C goes to the host, not to it.
      ...platform.newGroupSpawnOptions(),
    });
    const control = child.stdio[3] as Socket;
    const wakePipe = waiter ? (child.stdio[4] as Socket) : undefined;
    const stderr = child.stderr as Socket;
    let lastWords = '';
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      lastWords = (lastWords + chunk).slice(-2000);
    });
    // EPIPE on a dead supervisor is expected; its exit is what counts.
    for (const pipe of [control, stderr, wakePipe]) pipe?.on('error', () => {});
    // Reports ('ready', 'killed') need no answer; reading keeps the pipe from filling.
    control.on('data', () => {});
    const running: Running = {
      child,
      control,
      sessions: new Map(),
      wakePipe,
      unread: 0,
      stopping: false,
      exited: new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.once('error', () => resolve());
      }),
    };
    const onGone = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (this.#running === running) this.#running = undefined;
      if (running.stopping) return;
      const lost = [...running.sessions.values()];
      running.sessions.clear();
      const loss: SupervisorLoss = { pid: child.pid, code, signal, stderr: lastWords.trim() };
      for (const onLost of lost) onLost(loss);
    };
    child.once('exit', onGone);
    // A failed spawn (no 'exit' follows): the sessions it was to hold have no guard.
    child.once('error', () => onGone(null, null));
    child.unref();
    control.unref();
    stderr.unref();
    wakePipe?.unref();
    this.#running = running;
    return running;
  }

  #stop(running: Running): Promise<void> {
    if (this.#running === running) this.#running = undefined;
    running.stopping = true;
    // Until it has exited the host stays up (an `await close()` at the end of a script must not be cut short).
    running.child.ref();
    running.control.ref();
    running.control.end();
    // A waiter holds nothing the host has not swept already: it goes without ever booting Node.
    if (running.wakePipe) running.child.kill('SIGKILL');
    const timer = setTimeout(() => running.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    return running.exited.then(() => clearTimeout(timer));
  }
}

/** Turns the shell waiter into the Node supervisor: closing the wake pipe ends its `read`, and it execs. */
function wake(running: Running): void {
  const pipe = running.wakePipe;
  if (!pipe) return;
  running.wakePipe = undefined;
  pipe.destroy();
}

/** The host-wide supervisor every agent process shares. */
export const hostSupervisor = new HostSupervisor();
