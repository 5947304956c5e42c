/**
 * One agy process, started through the supervisor (see `supervisor.ts`) so that it can never outlive the host.
 * Owns spawning, stdin writes with backpressure, signals, bounded shutdown and the stderr tail.
 */
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { settlesWithin } from '../../../internal/timing.js';
import { controlLine, type HostCommand, lineReader, type SupervisorReport } from './control-protocol.js';
import { hostScan } from './host-scan.js';
import { sparePool, spawnSupervisor } from './spare.js';
import { spawnQueue } from './spawn-queue.js';
import { StderrTail } from './stderr-tail.js';

/** How an agy process ended. */
export interface ExitInfo {
  /** Exit code, or null when killed by a signal (or when the supervisor itself died). */
  code: number | null;
  /** The terminating signal, if any. */
  signal: NodeJS.Signals | null;
}

/** What to start and where to send its output. */
export interface AgyProcessOptions {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Raw stdout chunks, in order. */
  onStdout: (chunk: Buffer) => void;
  /** End of stdout. */
  onStdoutEnd: () => void;
  /** Each complete stderr line. */
  onStderrLine: (line: string) => void;
  /** Called once with the agy pid when it has started. */
  onSpawn?: ((pid: number) => void) | undefined;
}

/** Shutdown timings. */
export interface CloseTimings {
  /** How long agy gets to exit after stdin EOF before SIGTERM. */
  graceMs: number;
  /** How long after SIGTERM before SIGKILL. */
  termGraceMs: number;
}

export class AgyProcess {
  #supervisor: ChildProcess | undefined;
  #stdin: Writable | undefined;
  #control: Socket | undefined;
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
  /** Resolves once the supervisor has been spawned (or the start was cancelled): a start timeout counts from here. */
  readonly launched: Promise<void>;
  /** Resolves with agy's pid, or rejects when it could not be started. */
  readonly spawned: Promise<number>;
  /** Resolves once agy has exited and its stdout has been fully read. */
  readonly exited: Promise<ExitInfo>;

  constructor(opts: AgyProcessOptions) {
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
    // Counted from here to the exit: the spare supervisor stays while some process runs.
    sparePool.acquire();
    void this.exited.then(() => sparePool.release());

    // The spawn itself waits for its turn (see spawn-queue.ts); its slot is held until agy has written its
    // first output (its `init`), so a start storm boots only a few agy processes at once and none of them
    // starves into its start timeout.
    let cancelled = false;
    this.#cancelQueued = () => {
      cancelled = true;
      this.#cancelQueued = undefined;
      rejectSpawned(new Error('closed before agy was started'));
      this.#exitInfo = { code: null, signal: null };
      resolveExited(this.#exitInfo);
      resolveLaunched();
    };
    spawnQueue.enqueue(() => {
      if (cancelled) return Promise.resolve();
      this.#cancelQueued = undefined;
      resolveExited(this.#start(opts, resolveSpawned, rejectSpawned));
      resolveLaunched();
      return booted;
    });
  }

  /** Takes the spare supervisor (or boots one), sends it the spawn command, wires its pipes; resolves as `exited` does. */
  #start(
    opts: AgyProcessOptions,
    resolveSpawned: (pid: number) => void,
    rejectSpawned: (err: Error) => void,
  ): Promise<ExitInfo> {
    const { child: sup, control } = sparePool.take() ?? spawnSupervisor(opts.env, opts.cwd);
    // The environment and cwd travel on the control pipe, never in argv.
    const spawnCommand: HostCommand = {
      cmd: 'spawn',
      binary: opts.binary,
      args: opts.args,
      env: opts.env,
      cwd: opts.cwd,
    };
    control.write(controlLine(spawnCommand));
    this.#supervisor = sup;
    const stdin = sup.stdin!;
    this.#stdin = stdin;
    this.#control = control;
    // EPIPE on a dead process is expected; the exit path reports it.
    stdin.on('error', () => {});
    control.on('error', () => {});
    if (this.#stdinEnded) stdin.end();

    const stdout = sup.stdout as Readable;
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
    const stderr = sup.stderr as Readable;
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      for (const line of this.#stderr.push(chunk)) opts.onStderrLine(line);
    });
    const stderrEnded = new Promise<void>((res) => {
      stderr.on('end', res);
      stderr.on('error', () => res());
    });

    let reported: ExitInfo | undefined;
    let onKilled: (() => void) | undefined;
    control.setEncoding('utf8');
    control.on(
      'data',
      lineReader((line) => {
        let msg: SupervisorReport;
        try {
          msg = JSON.parse(line) as SupervisorReport;
        } catch {
          return;
        }
        if (msg.type === 'spawned' && typeof msg.pid === 'number') {
          this.#pid = msg.pid;
          this.#mark = msg.mark;
          if (!this.#booted) this.#sampleWhile('start');
          opts.onSpawn?.(msg.pid);
          resolveSpawned(msg.pid);
        } else if (msg.type === 'exit') {
          reported = { code: msg.code ?? null, signal: msg.signal ?? null };
          this.#stopSampling('all');
          void this.#sweep(control, (resolve) => {
            onKilled = resolve;
          });
        } else if (msg.type === 'killed') {
          onKilled?.();
        } else if (msg.type === 'error') {
          rejectSpawned(new Error(msg.message ?? 'spawn failed'));
        }
      }),
    );
    control.on('close', () => onKilled?.());

    const supervisorExit = new Promise<ExitInfo>((res) => {
      sup.on('error', (err) => {
        rejectSpawned(err);
        res({ code: null, signal: null });
      });
      sup.on('exit', (code, signal) => res({ code, signal }));
    });

    return supervisorExit.then(async (supExit) => {
      rejectSpawned(new Error('agy exited before it started'));
      this.#stopSampling('all');
      this.#markBooted();
      // A grandchild that kept stdout open must not hold the exit forever.
      await settlesWithin(Promise.all([stdoutEnded, stderrEnded]), 1000);
      stdout.destroy();
      stderr.destroy();
      for (const line of this.#stderr.end()) opts.onStderrLine(line);
      this.#exitInfo = reported ?? supExit;
      return this.#exitInfo;
    });
  }

  /**
   * After agy exited: the host's shared scan finds what still carries the session marker, the supervisor kills
   * it, and again until a pass finds nothing (bounded); then `swept` lets the supervisor exit. If anything goes
   * wrong the control pipe is closed, and the supervisor scans by itself.
   */
  async #sweep(control: Socket, waitKilled: (resolve: () => void) => void): Promise<void> {
    const send = (cmd: HostCommand): void => {
      if (!control.destroyed && control.writable) control.write(controlLine(cmd));
    };
    try {
      const mark = this.#mark;
      for (let pass = 0; mark !== undefined && pass < 50 && !control.destroyed; pass++) {
        const found = (await hostScan.snapshot()).marked(mark);
        if (found.length === 0) break;
        const killed = new Promise<void>((resolve) => waitKilled(resolve));
        send({ cmd: 'kill', found });
        await killed;
      }
      send({ cmd: 'swept' });
    } catch {
      control.end();
    }
  }

  /** agy wrote its first output (or is gone): the start's spawn slot is freed and the next spare may boot. */
  #markBooted(): void {
    if (this.#booted) return;
    this.#booted = true;
    this.#stopSampling('start');
    this.#resolveBooted();
    sparePool.refill();
  }

  /**
   * Has the host's scan sample agy's tree while it starts and while a turn runs, telling the supervisor each
   * descendant once (`adopt`): such a process is then killed with agy even if it left agy's tree and cleared
   * its environment. Idle sessions are not sampled.
   */
  #sampleWhile(reason: 'start' | 'turn'): void {
    this.#sampleReasons.add(reason);
    if (this.#stopSample || this.#pid === undefined || this.#exitInfo) return;
    const control = this.#control;
    this.#stopSample = hostScan.sample({
      root: this.#pid,
      onFound: (found) => {
        if (control && !control.destroyed && control.writable)
          control.write(controlLine({ cmd: 'adopt', found }));
      },
    });
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
    if (this.#stdinEnded || this.#exitInfo || !this.#stdin || this.#stdin.destroyed) {
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
    if (this.#pid === undefined || this.#exitInfo) return;
    try {
      process.kill(this.#pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** Sends a signal to agy's whole process group. */
  signalGroup(signal: NodeJS.Signals): void {
    // After agy exited its group id may be reused; the supervisor has already killed what was left in it.
    if (this.#pid === undefined || this.#exitInfo) return;
    try {
      process.kill(process.platform === 'win32' ? this.#pid : -this.#pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** Kills agy's whole tree at once (group, descendants and every process holding the marker), through the supervisor. */
  killTree(): void {
    if (this.#cancelQueued) {
      this.#cancelQueued();
      return;
    }
    this.signalGroup('SIGKILL');
    if (this.#control && !this.#control.destroyed) this.#control.write('kill-tree\n');
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
    // The supervisor itself is stuck: take it down; agy's group was already SIGKILLed.
    this.#supervisor?.kill('SIGKILL');
    return this.exited;
  }
}
