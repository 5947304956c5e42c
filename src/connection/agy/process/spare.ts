/**
 * One spare supervisor, booted ahead of time. Booting a supervisor is a second Node start on every agy start;
 * a spare already booted takes its spawn command as its first control line, so from the second start on the
 * start costs agy's own boot only.
 *
 * It never outlives its use: the spare and its pipes are unref'd (it never keeps the host alive), it exits by
 * itself when its control pipe closes (the host exited, crashed or was SIGKILLed), and it is closed once no
 * supervised process has been running for `AGY_SDK_SPARE_LINGER_MS` (default 10 s). `AGY_SDK_SPARE_SUPERVISOR=0`
 * turns spares off.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { scriptPath } from '../../../internal/script-path.js';
import { spawnQueue } from './spawn-queue.js';

/** The supervisor script. */
export const SUPERVISOR = scriptPath('./supervisor.js', import.meta.url);

/** A supervisor process with its four pipes. */
export interface SupervisorChild {
  child: ChildProcess;
  /** fd 3. */
  control: Socket;
}

/**
 * V8's memory reducer runs a garbage collection some seconds after a process went quiet: for a supervisor that
 * is the only CPU it would ever use while its session idles (measured: 1–2 clock ticks each, ~10 s after the
 * start). Its heap is a few MB; there is nothing to reduce.
 */
const SUPERVISOR_FLAGS = ['--no-memory-reducer'];

/** Spawns a supervisor; with no `argv` it waits for its spawn command (see `control-protocol.ts`). */
export function spawnSupervisor(env: NodeJS.ProcessEnv, cwd: string | undefined): SupervisorChild {
  const child = spawn(process.execPath, [...SUPERVISOR_FLAGS, SUPERVISOR], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  return { child, control: child.stdio[3] as Socket };
}

function pipesOf(sup: SupervisorChild): (Socket | null)[] {
  return [
    sup.child.stdin as Socket | null,
    sup.child.stdout as Socket | null,
    sup.child.stderr as Socket | null,
    sup.control,
  ];
}

function lingerMs(): number {
  const fromEnv = Number(process.env.AGY_SDK_SPARE_LINGER_MS);
  return Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : 10_000;
}

/** The host's spare, and the count of supervised processes that decides when it goes. */
export class SparePool {
  #spare: SupervisorChild | undefined;
  #onSpareExit: (() => void) | undefined;
  #booting = false;
  #users = 0;
  #linger: NodeJS.Timeout | undefined;
  /** Spares booted so far (for tests and benches). */
  booted = 0;

  get #enabled(): boolean {
    return process.env.AGY_SDK_SPARE_SUPERVISOR !== '0' && process.platform !== 'win32';
  }

  /** A supervised process begins: the spare stays. */
  acquire(): void {
    this.#users++;
    clearTimeout(this.#linger);
    this.#linger = undefined;
  }

  /** A supervised process ended: the last one starts the linger, after which the spare is closed. */
  release(): void {
    this.#users = Math.max(0, this.#users - 1);
    this.#armLinger();
  }

  #armLinger(): void {
    if (this.#users > 0 || this.#linger || (!this.#spare && !this.#booting)) return;
    this.#linger = setTimeout(() => {
      this.#linger = undefined;
      if (this.#users === 0) this.close();
    }, lingerMs());
    this.#linger.unref();
  }

  /** The spare, handed over (ref'd again: from now on it is a session's supervisor); undefined if none. */
  take(): SupervisorChild | undefined {
    const sup = this.#spare;
    this.#spare = undefined;
    if (!sup) return undefined;
    if (this.#onSpareExit) sup.child.off('exit', this.#onSpareExit);
    this.#onSpareExit = undefined;
    if (sup.child.exitCode !== null || sup.child.signalCode !== null) return undefined;
    sup.child.ref();
    for (const pipe of pipesOf(sup)) pipe?.ref();
    return sup;
  }

  /** Boots a spare (through the host's spawn queue) unless one exists, is booting, or nobody uses one. */
  refill(): void {
    if (this.#users === 0) return;
    this.#boot();
  }

  /**
   * Boots a spare ahead of a start that is about to come (a session being prepared), so even the first start
   * finds one booting; closed after the linger if no start comes.
   */
  prewarm(): void {
    this.#boot();
    this.#armLinger();
  }

  #boot(): void {
    if (!this.#enabled || this.#spare || this.#booting) return;
    this.#booting = true;
    spawnQueue.enqueue(() => {
      this.#booting = false;
      if (this.#spare) return Promise.resolve();
      let sup: SupervisorChild;
      try {
        // The host's own environment: agy's comes with the spawn command.
        sup = spawnSupervisor(process.env, undefined);
      } catch {
        return Promise.resolve();
      }
      this.booted++;
      this.#spare = sup;
      // Booted while nobody runs (a prewarm, or the last session closed meanwhile): it goes after the linger.
      this.#armLinger();
      // A spare that failed to start is never handed out (its 'error' would not reach the taker).
      sup.child.on('error', () => {
        if (this.#spare === sup) this.#spare = undefined;
      });
      for (const pipe of pipesOf(sup)) pipe?.on('error', () => {});
      this.#onSpareExit = () => {
        if (this.#spare === sup) this.#spare = undefined;
      };
      sup.child.once('exit', this.#onSpareExit);
      sup.child.unref();
      for (const pipe of pipesOf(sup)) pipe?.unref();
      // The slot is held until the spare has booted (it says `ready`), so spares never crowd out starts.
      return new Promise<void>((resolve) => {
        sup.control.once('data', () => resolve());
        sup.control.once('close', () => resolve());
        sup.child.once('exit', () => resolve());
      });
    });
  }

  /** Closes the spare (its control pipe ends; it exits by itself). */
  close(): void {
    const sup = this.#spare;
    this.#spare = undefined;
    if (!sup) return;
    sup.control.end();
    sup.child.stdin?.end();
  }

  /** The spare's pid, if one is up (for tests). */
  get pid(): number | undefined {
    return this.#spare?.child.pid;
  }
}

/** The host-wide spare. */
export const sparePool = new SparePool();
