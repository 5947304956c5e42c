#!/usr/bin/env node
/**
 * The process supervisor: the guarantee that no agy process, nor any descendant of it, outlives the host.
 *
 * The host starts this script instead of agy. It starts agy in a new process group (its own session), with
 * agy's stdin/stdout/stderr being the host's pipes directly (no copying). A fourth pipe (fd 3) is the control
 * channel (`control-protocol.ts`). agy's environment carries a random per-session marker
 * (`AGY_SDK_SESSION_MARK`) that every descendant inherits, even after setsid, a double fork or re-parenting to
 * init. When the control pipe closes (the host exited, crashed or was SIGKILLed), when the host asks, when the
 * supervisor is signalled, or when agy exits on its own, everything is killed: agy's group, agy's current tree,
 * the descendants the host's scan told us about (`adopt`), and (on Linux) every same-uid process whose
 * `/proc/<pid>/environ` holds the marker.
 *
 * Who scans /proc: while the host lives, the host does, once for all its sessions (`host-scan.ts`): after agy
 * exits, the host's shared scan finds the marked leftovers and sends them here (`kill`) until it finds none
 * (`swept`). Only when the host is gone (or does not answer) does this process scan by itself, until a pass
 * finds nothing (bounded). Between those moments nothing runs here: no timers, no sampling, so an idle
 * supervisor costs no CPU.
 *
 * Started with `<binary> [args…]` it runs that at once (environment and cwd its own) and, after agy's exit,
 * scans by itself. Started with no arguments (as `AgyProcess` does, and the spare in `spare.ts`) it reports
 * `ready` and waits for its `spawn` command, which carries the binary, arguments, environment and cwd; such a
 * host also sweeps after agy's exit.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { controlLine, type HostCommand, lineReader, type SupervisorReport } from './control-protocol.js';
import { descendants, type Found, MARK_VAR, marked, readStat } from './proc-scan.js';

/** How long, after agy exited, the host gets to sweep before this process scans by itself. */
const SWEEP_WAIT_MS = 10_000;

function signal(target: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(target, sig);
    return true;
  } catch {
    // ESRCH: already gone.
    return false;
  }
}

/** Signals a found process only if it is still the same one (a reused pid is left alone). */
function signalFound(found: Found, sig: NodeJS.Signals): boolean {
  const now = readStat(found.pid);
  if (!now || now.zombie || now.start !== found.start) return false;
  return signal(found.pid, sig);
}

interface SpawnCommand {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

function main(): void {
  const control = new Socket({ fd: 3, readable: true, writable: true });
  control.on('error', () => {
    // The host is gone; 'close' handles it.
  });
  const report = (msg: SupervisorReport): void => {
    if (!control.destroyed && control.writable) control.write(controlLine(msg));
  };

  const mark = randomBytes(16).toString('hex');
  /** Descendants the host's scan saw while agy ran (`adopt`), by `pid:start`. */
  const known = new Map<string, Found>();
  const remember = (found: [number, string][]): Found[] => {
    const out: Found[] = [];
    for (const [pid, start] of found) {
      if (!Number.isInteger(pid) || pid <= 1 || typeof start !== 'string') continue;
      const f = { pid, start };
      known.set(`${pid}:${start}`, f);
      out.push(f);
    }
    return out;
  };

  let graceMs = 2000;
  /**
   * Whether the host sweeps after agy's exit (it does when it sent a `spawn` command, as `AgyProcess` does). A
   * host that started this script with argv keeps the old contract: the supervisor scans by itself and exits.
   */
  let hostSweeps = false;
  let childPid: number | undefined;
  let childExited = false;
  /** After agy exited: resolves the wait for the host's sweep (true: swept by the host). */
  let endSweep: ((byHost: boolean) => void) | undefined;

  /** One pass: the group, agy's current tree, what the host told us, and (if `scan`) every marked process. */
  const signalAll = (sig: NodeJS.Signals, scan: boolean): boolean => {
    const pid = childPid;
    if (pid === undefined) return false;
    let hit = false;
    // After agy exited, its group id may only be reused once no member is left, so this stays safe.
    if (signal(-pid, sig)) hit = true;
    if (!childExited && signal(pid, sig)) hit = true;
    const targets = new Map<number, Found>();
    for (const f of known.values()) targets.set(f.pid, f);
    if (scan && !childExited) for (const f of descendants(pid)) targets.set(f.pid, f);
    if (scan) for (const f of marked(mark)) targets.set(f.pid, f);
    for (const f of targets.values()) if (signalFound(f, sig)) hit = true;
    return hit;
  };

  /**
   * SIGKILLs everything, scanning by itself, then again until a pass finds nothing (a process may fork between
   * the scan and the kill; its child inherits the marker and is found next time). Bounded: a fork bomb cannot
   * keep us here.
   */
  const killAll = (): void => {
    for (let pass = 0; pass < 50; pass++) if (!signalAll('SIGKILL', true)) return;
  };

  let shuttingDown = false;
  const shutdown = (): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    // A spare that never got its command has nothing to kill.
    if (childPid === undefined) process.exit(0);
    if (endSweep) {
      // agy already exited and the host was sweeping: finish alone.
      endSweep(false);
      return;
    }
    if (childExited) {
      killAll();
      process.exit(0);
    }
    signalAll('SIGTERM', true);
    setTimeout(() => {
      killAll();
      process.exit(0);
    }, graceMs).unref();
  };

  const start = (command: SpawnCommand): void => {
    const fromEnv = Number(command.env.AGY_SDK_SUPERVISOR_GRACE_MS);
    if (Number.isFinite(fromEnv) && fromEnv >= 0) graceMs = fromEnv;
    let child: ReturnType<typeof spawn>;
    try {
      // Only agy gets the marker, not this process: the scan must never find (and kill) the supervisor itself.
      child = spawn(command.binary, command.args, {
        stdio: [0, 1, 2],
        detached: true,
        cwd: command.cwd,
        env: { ...command.env, [MARK_VAR]: mark },
      });
    } catch (err) {
      report({ type: 'error', message: (err as Error).message });
      process.exitCode = 1;
      control.end(() => process.exit(1));
      return;
    }
    childPid = child.pid;
    child.on('error', (err) => {
      report({ type: 'error', message: err.message });
      process.exitCode = 1;
      control.end();
      // No 'exit' follows a failed spawn: nothing ran, nothing to kill.
      if (child.pid === undefined) setTimeout(() => process.exit(1), 1000).unref();
    });
    child.on('spawn', () => {
      childPid = child.pid;
      report({ type: 'spawned', pid: child.pid!, mark });
    });
    child.on('exit', (code, sig) => {
      childExited = true;
      // Whatever agy left in its group or that the host saw in its tree dies with it at once.
      signalAll('SIGKILL', false);
      report({ type: 'exit', code, signal: sig });
      const done = (byHost: boolean): void => {
        endSweep = undefined;
        clearTimeout(timer);
        // No host sweep (the host is gone or silent): scan by ourselves.
        if (!byHost) killAll();
        if (control.destroyed) process.exit(0);
        control.end(() => process.exit(0));
        setTimeout(() => process.exit(0), 1000).unref();
      };
      endSweep = done;
      const timer = setTimeout(() => done(false), SWEEP_WAIT_MS);
      if (!hostSweeps || control.destroyed || !control.writable) done(false);
    });
  };

  control.setEncoding('utf8');
  control.on(
    'data',
    lineReader((line) => {
      if (line === 'kill-tree') {
        killAll();
        return;
      }
      let msg: HostCommand;
      try {
        msg = JSON.parse(line) as HostCommand;
      } catch {
        return;
      }
      if (msg.cmd === 'spawn') {
        if (childPid !== undefined || shuttingDown || !Array.isArray(msg.args)) return;
        hostSweeps = true;
        start({ binary: msg.binary, args: msg.args, env: msg.env, cwd: msg.cwd });
      } else if (msg.cmd === 'adopt' && Array.isArray(msg.found)) {
        remember(msg.found);
      } else if (msg.cmd === 'kill' && Array.isArray(msg.found)) {
        for (const f of remember(msg.found)) signalFound(f, 'SIGKILL');
        report({ type: 'killed' });
      } else if (msg.cmd === 'swept') {
        endSweep?.(true);
      }
    }),
  );
  control.on('close', shutdown);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, shutdown);

  const [binary, ...args] = process.argv.slice(2);
  if (binary) start({ binary, args, env: process.env, cwd: process.cwd() });
  else report({ type: 'ready' });
}

main();
