/**
 * One agent process (agy, or an ACP agent), started through the supervisor (see `supervisor.ts`) so that it
 * can never outlive the host.
 * Owns spawning, stdin writes with backpressure, signals, bounded shutdown and the stderr tail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { settlesWithin } from '../../internal/timing.js';
import { currentPlatform, MARK_VAR, type Platform } from '../../platform/index.js';
import { hostScan, type Snapshot } from './host-scan.js';
import { hostSupervisor, type SupervisorLease, type SupervisorLoss } from './host-supervisor.js';
import type { AgentProcessOptions, CloseTimings, ExitInfo } from './process-options.js';
import { START_WORK_HOLD_MS, spawnQueue } from './spawn-queue.js';
import { StderrTail } from './stderr-tail.js';

export type { AgentProcessOptions, CloseTimings, ExitInfo } from './process-options.js';

/** SIGKILLs a found process only if it is still the same one (a reused pid is left alone). */
function killIfSame(platform: Platform, pid: number, start: string): boolean {
  const now = platform.processes.identity(pid);
  if (!now || now.zombie || now.start !== start) return false;
  return platform.signalProcess(pid, 'SIGKILL');
}

/** How long agy gets between SIGTERM and SIGKILL when the host is gone (`AGY_SDK_SUPERVISOR_GRACE_MS`, else 2 s). */
function supervisorGraceMs(env: NodeJS.ProcessEnv): number {
  const fromEnv = Number(env.AGY_SDK_SUPERVISOR_GRACE_MS);
  return Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : 2000;
}

/** agy's output streams, and when both have ended. */
interface ChildOutput {
  stdout: Readable;
  stderr: Readable;
  ended: Promise<unknown>;
}

/** What the exit path of one started agy needs. */
interface StartedRun {
  child: ChildProcess;
  output: ChildOutput;
  opts: AgentProcessOptions;
  platform: Platform;
  mark: string;
  lease: SupervisorLease;
  /** Rejects `spawned` (a no-op once agy started). */
  rejectSpawned: (err: Error) => void;
}

export class AgentProcess {
  /** The OS's process operations (process groups, the process table); set as the start begins. */
  #platform: Platform | undefined;
  #child: ChildProcess | undefined;
  #stdin: Writable | undefined;
  /** This session's registration with the host's supervisor; undefined before the start or once it died. */
  #lease: SupervisorLease | undefined;
  /** Descendants the host's sampling saw (pid → start time): killed with agy even if they left its tree. */
  readonly #adopted = new Map<number, string>();
  /** agy has exited (we reaped it): its pid and group id are not its own any more. */
  #exited = false;
  #supervisorLost = false;
  #released = false;
  readonly #stderr = new StderrTail();
  #pid: number | undefined;
  #mark: string | undefined;
  #exitInfo: ExitInfo | undefined;
  #stdinEnded = false;
  /** agy has written its first output, or is gone (the spawn slot is held until then). */
  #booted = false;
  #resolveBooted!: () => void;
  /** Why agy's tree is sampled now ('start', 'turn'); sampling stops when none is left. */
  readonly #sampleReasons = new Set<'start' | 'turn'>();
  #stopSample: (() => void) | undefined;
  /** Stops a start still waiting in the spawn queue (it then never starts); undefined once it ran. */
  #cancelQueued: (() => void) | undefined;
  /** Resolves once agy has been spawned (or the start was cancelled): a start timeout counts from here. */
  readonly launched: Promise<void>;
  /** Resolves with agy's pid, or rejects when it could not be started. */
  readonly spawned: Promise<number>;
  /** Resolves once agy has exited and its stdout has been fully read. */
  readonly exited: Promise<ExitInfo>;

  constructor(opts: AgentProcessOptions) {
    let resolveSpawned!: (pid: number) => void;
    let rejectSpawned!: (err: Error) => void;
    this.spawned = new Promise((res, rej) => {
      resolveSpawned = res;
      rejectSpawned = rej;
    });
    // Callers that never await `spawned` must not see an unhandled rejection.
    this.spawned.catch(() => {});
    let resolveLaunched!: () => void;
    this.launched = new Promise((res) => {
      resolveLaunched = res;
    });
    let resolveExited!: (exit: ExitInfo | Promise<ExitInfo>) => void;
    this.exited = new Promise((res) => {
      resolveExited = res;
    });

    const booted = new Promise<void>((res) => {
      this.#resolveBooted = res;
    });
    // Counted from here to the end of the exit's sweep: the host's supervisor stays while some process runs.
    hostSupervisor.acquire();

    // The spawn itself waits for its turn (see spawn-queue.ts); its slot is held until agy has written its
    // first output (its `init`), so a start storm boots only a few agy processes at once and none of them
    // starves into its start timeout.
    let cancelled = false;
    this.#cancelQueued = () => {
      cancelled = true;
      this.#cancelQueued = undefined;
      rejectSpawned(new Error('closed before agy was started'));
      this.#exited = true;
      resolveExited(this.#finish({ code: null, signal: null }));
      resolveLaunched();
    };
    spawnQueue.enqueue(() => {
      if (cancelled) return Promise.resolve();
      this.#cancelQueued = undefined;
      try {
        resolveExited(this.#start(opts, resolveSpawned, rejectSpawned));
      } catch (err) {
        // The supervisor could not be spawned (the spawn threw), or this OS has no platform (an
        // UnsupportedError naming it): agy is not started.
        rejectSpawned(err instanceof Error ? err : new Error(String(err)));
        this.#exited = true;
        this.#markBooted();
        resolveExited(this.#finish({ code: null, signal: null }));
      }
      resolveLaunched();
      if (!opts.startWork) return booted;
      // Asked for at the spawn, so a tools/list that comes before the first output still counts.
      const startWork = opts.startWork();
      const holdMs = opts.startWorkHoldMs ?? START_WORK_HOLD_MS;
      // The timer is cleared when either settles; agy's exit settles `exited`, so it never outlives the process.
      return booted.then(() =>
        this.#exited ? undefined : settlesWithin(Promise.race([startWork, this.exited]), holdMs),
      );
    });
  }

  /**
   * Registers the session with the host's supervisor, spawns agy straight onto our pipes (own process group,
   * session marker), tells the supervisor its pid; resolves as `exited` does.
   *
   * @throws UnsupportedError on an OS without a platform (`platform/index.ts`), before anything is started.
   */
  #start(
    opts: AgentProcessOptions,
    resolveSpawned: (pid: number) => void,
    rejectSpawned: (err: Error) => void,
  ): Promise<ExitInfo> {
    const platform = currentPlatform();
    this.#platform = platform;
    const mark = randomBytes(16).toString('hex');
    this.#mark = mark;
    // Written into the control pipe before the spawn: a host SIGKILLed from here on leaves the marker known.
    const lease = hostSupervisor.watch(mark, supervisorGraceMs(opts.env), (loss) =>
      this.#onSupervisorLost(loss),
    );
    this.#lease = lease;
    let child: ChildProcess;
    try {
      // Only agy gets the marker, not the supervisor: its scan must never find (and kill) itself.
      child = spawn(opts.binary, opts.args, {
        stdio: ['pipe', 'pipe', 'pipe'],
        ...platform.newGroupSpawnOptions(),
        cwd: opts.cwd,
        env: { ...opts.env, [MARK_VAR]: mark },
      });
    } catch (err) {
      lease.forget();
      rejectSpawned(err as Error);
      this.#markBooted();
      return this.#finish({ code: null, signal: null });
    }
    this.#child = child;
    if (child.pid !== undefined) {
      this.#pid = child.pid;
      lease.pid(child.pid);
    }
    this.#attachStdin(child);
    const output = this.#readOutput(child, opts);

    child.once('spawn', () => {
      if (this.#exitInfo || child.pid === undefined) return;
      if (!this.#booted) this.#sampleWhile('start');
      opts.onSpawn?.(child.pid);
      resolveSpawned(child.pid);
    });

    const childExit = new Promise<ExitInfo>((res) => {
      child.once('error', (err) => {
        rejectSpawned(err);
        // No 'exit' follows a failed spawn: nothing ran.
        if (child.pid === undefined) res({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => res({ code, signal }));
    });

    return childExit.then((exit) =>
      this.#afterExit(exit, { child, output, opts, platform, mark, lease, rejectSpawned }),
    );
  }

  /** Takes agy's stdin; a write asked for before the spawn (an early `endStdin`) is carried out now. */
  #attachStdin(child: ChildProcess): void {
    const stdin = child.stdin!;
    this.#stdin = stdin;
    // EPIPE on a dead process is expected; the exit path reports it.
    stdin.on('error', () => {});
    if (this.#stdinEnded) stdin.end();
  }

  /** Feeds agy's stdout and stderr lines to the options' handlers; the first stdout chunk marks it booted. */
  #readOutput(child: ChildProcess, opts: AgentProcessOptions): ChildOutput {
    const stdout = child.stdout as Readable;
    const stdoutEnded = new Promise<void>((res) => {
      stdout.on('data', (chunk: Buffer) => {
        this.#markBooted();
        opts.onStdout(chunk);
      });
      stdout.on('end', () => {
        opts.onStdoutEnd();
        res();
      });
      stdout.on('error', () => res());
    });
    const stderr = child.stderr as Readable;
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      for (const line of this.#stderr.push(chunk)) opts.onStderrLine(line);
    });
    const stderrEnded = new Promise<void>((res) => {
      stderr.on('end', res);
      stderr.on('error', () => res());
    });
    return { stdout, stderr, ended: Promise.all([stdoutEnded, stderrEnded]) };
  }

  /**
   * After agy exited: its group is killed, its output drained (bounded), what it left swept, the supervisor told;
   * resolves with its exit.
   */
  async #afterExit(exit: ExitInfo, run: StartedRun): Promise<ExitInfo> {
    const { child, output, opts, platform, mark, lease } = run;
    this.#exited = true;
    run.rejectSpawned(new Error('agy exited before it started'));
    this.#stopSampling('all');
    this.#markBooted();
    if (child.pid !== undefined) {
      // Whatever agy left in its group dies with it at once (we reaped it: its group id is still its own).
      platform.signalGroup(child.pid, 'SIGKILL');
      lease.exited();
    }
    // A grandchild that kept stdout open must not hold the exit forever.
    await settlesWithin(output.ended, 1000);
    output.stdout.destroy();
    output.stderr.destroy();
    for (const line of this.#stderr.end()) opts.onStderrLine(line);
    if (child.pid !== undefined) await this.#sweep(platform, mark);
    lease.forget();
    return this.#finish(exit);
  }

  /** Lets the host's supervisor go once (the last process's release stops it). */
  #release(): Promise<void> {
    if (this.#released) return Promise.resolve();
    this.#released = true;
    return hostSupervisor.release();
  }

  /** The end of every path: the exit is known, the supervisor may go if this was its last session. */
  async #finish(exit: ExitInfo): Promise<ExitInfo> {
    this.#exitInfo = exit;
    await this.#release();
    return exit;
  }

  /**
   * After agy exited: the host's shared scan finds what still carries the session marker and the descendants
   * sampled during its life, and kills them, until a pass finds nothing (bounded). The supervisor keeps the
   * session until then, so a host that dies meanwhile still leaves nothing.
   */
  async #sweep(platform: Platform, mark: string): Promise<void> {
    for (let pass = 0; pass < 50; pass++) {
      let snap: Snapshot;
      try {
        snap = await hostScan.snapshot();
      } catch {
        // No process-table pass: the group kill was all we could do here; the supervisor scans on kill-tree.
        this.#lease?.killTree();
        return;
      }
      let hit = false;
      for (const [pid, start] of snap.marked(mark)) if (killIfSame(platform, pid, start)) hit = true;
      for (const [pid, start] of this.#adopted) {
        if (snap.startOf(pid) !== start) this.#adopted.delete(pid);
        else if (killIfSame(platform, pid, start)) hit = true;
      }
      if (!hit) return;
    }
  }

  /** The supervisor died holding this session: the guarantee is gone, so agy goes too (fail closed). */
  #onSupervisorLost(loss: SupervisorLoss): void {
    if (this.#exited) return;
    const how = loss.signal ? `signal ${loss.signal}` : `code ${loss.code}`;
    const detail = loss.stderr ? `: ${loss.stderr.split('\n').slice(-3).join(' | ')}` : '';
    this.#stderr.push(
      `agy-sdk: the process supervisor (pid ${loss.pid}) exited unexpectedly (${how})${detail}; this agent process was killed so that it cannot outlive the host\n`,
    );
    this.#supervisorLost = true;
    this.#lease = undefined;
    if (this.#pid !== undefined) this.#platform?.signalGroup(this.#pid, 'SIGKILL');
    this.#child?.kill('SIGKILL');
  }

  /** agy wrote its first output (or is gone): the start's spawn slot is freed. */
  #markBooted(): void {
    if (this.#booted) return;
    this.#booted = true;
    this.#stopSampling('start');
    this.#resolveBooted();
  }

  /**
   * Has the host's scan sample agy's tree while it starts and while a turn runs, telling the supervisor each
   * descendant once (`adopt`): such a process is then killed with agy even if it left agy's tree and cleared
   * its environment. Idle sessions are not sampled.
   */
  #sampleWhile(reason: 'start' | 'turn'): void {
    this.#sampleReasons.add(reason);
    if (this.#stopSample || this.#pid === undefined || this.#exited) return;
    // A just-spawned agy has no descendants yet: a start's first sample is the next regular one (most starts
    // are over by then); a turn's comes at once.
    this.#stopSample = hostScan.sample(
      {
        root: this.#pid,
        onFound: (found) => {
          if (this.#exited) return;
          for (const [pid, start] of found) this.#adopted.set(pid, start);
          this.#lease?.adopt(found);
        },
      },
      reason === 'turn',
    );
  }

  #stopSampling(reason: 'start' | 'turn' | 'all'): void {
    if (reason === 'all') this.#sampleReasons.clear();
    else this.#sampleReasons.delete(reason);
    if (this.#sampleReasons.size > 0) return;
    this.#stopSample?.();
    this.#stopSample = undefined;
  }

  /**
   * Marks a turn as running (or over) in this process: agy's tree is sampled only while one runs (or while it
   * starts). The connection calls this around each turn.
   */
  setBusy(busy: boolean): void {
    if (busy) this.#sampleWhile('turn');
    else this.#stopSampling('turn');
  }

  /** agy's pid, once started. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /**
   * The random marker in agy's environment (`AGY_SDK_SESSION_MARK`) that every descendant inherits; the
   * supervisor kills every process holding it. Set once agy has started.
   */
  get mark(): string | undefined {
    return this.#mark;
  }

  /**
   * True when the host's supervisor died while this process ran, and the process was killed for it (fail
   * closed: without a supervisor it could outlive the host). The stderr tail says so too.
   */
  get supervisorLost(): boolean {
    return this.#supervisorLost;
  }

  /** Set once agy has exited. */
  get exitInfo(): ExitInfo | undefined {
    return this.#exitInfo;
  }

  /** The last lines agy wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr.toString();
  }

  /** Writes to agy's stdin, waiting for the pipe to drain (backpressure). Rejects if stdin is closed. */
  write(data: string): Promise<void> {
    if (this.#stdinEnded || this.#exited || !this.#stdin || this.#stdin.destroyed) {
      return Promise.reject(new Error('agy stdin is closed'));
    }
    const stdin = this.#stdin;
    return new Promise((res, rej) => {
      const ok = stdin.write(data, (err) => (err ? rej(err) : ok && res()));
      if (!ok) stdin.once('drain', () => res());
    });
  }

  /** Closes agy's stdin (EOF): agy finishes the running turn and exits. */
  endStdin(): void {
    if (this.#stdinEnded) return;
    this.#stdinEnded = true;
    // Not spawned yet: the stdin is ended as soon as it exists.
    this.#stdin?.end();
  }

  /** Sends a signal to agy alone (SIGINT interrupts the turn; agy handles its own children). */
  signal(signal: NodeJS.Signals): void {
    if (this.#pid === undefined || this.#exited) return;
    this.#platform?.signalProcess(this.#pid, signal);
  }

  /** Sends a signal to agy's whole process group. */
  signalGroup(signal: NodeJS.Signals): void {
    // After agy exited its group id may be reused; the supervisor has already killed what was left in it.
    if (this.#pid === undefined || this.#exited) return;
    this.#platform?.signalGroup(this.#pid, signal);
  }

  /** Kills agy's whole tree at once (group, descendants and every process holding the marker), through the supervisor. */
  killTree(): void {
    if (this.#cancelQueued) {
      this.#cancelQueued();
      return;
    }
    this.signalGroup('SIGKILL');
    if (!this.#exited) this.#lease?.killTree();
  }

  /**
   * Bounded shutdown: stdin EOF, wait `graceMs`, SIGTERM the group, wait `termGraceMs`, SIGKILL the tree.
   * Resolves when agy has exited.
   */
  async close(t: CloseTimings): Promise<ExitInfo> {
    if (this.#cancelQueued) {
      // Still waiting in the spawn queue: it never starts.
      this.#cancelQueued();
      return this.exited;
    }
    this.endStdin();
    if (await settlesWithin(this.exited, t.graceMs)) return this.exited;
    this.signalGroup('SIGTERM');
    if (await settlesWithin(this.exited, t.termGraceMs)) return this.exited;
    this.killTree();
    if (await settlesWithin(this.exited, 5000)) return this.exited;
    // Still no exit (a process in uninterruptible sleep): the tree was SIGKILLed; kill agy once more.
    this.#child?.kill('SIGKILL');
    return this.exited;
  }
}
