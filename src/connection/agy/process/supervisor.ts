#!/usr/bin/env node
/**
 * The process supervisor: the guarantee that no agy process, nor any descendant of it, outlives the host.
 *
 * The host starts this script instead of agy. It starts agy in a new process group (its own session), with
 * agy's stdin/stdout/stderr being the host's pipes directly (no copying). A fourth pipe (fd 3) is the control
 * channel. agy's environment carries a random per-session marker (`AGY_SDK_SESSION_MARK`) that every
 * descendant inherits, even after setsid, a double fork or re-parenting to init. When the control pipe closes
 * (the host exited, crashed or was SIGKILLed), when the host asks, when the supervisor is signalled, or when
 * agy exits on its own, the supervisor kills agy's group, agy's current tree, and (on Linux) every same-uid
 * process whose `/proc/<pid>/environ` holds the marker, scanning again until none is left (bounded).
 *
 * Nothing runs between those moments: no timers, no sampling, so an idle supervisor costs no CPU.
 *
 * Control protocol (newline-delimited JSON on fd 3):
 *   supervisor → host: {"type":"spawned","pid":n,"mark":s} | {"type":"exit","code":n|null,"signal":s|null}
 *                      | {"type":"error","message":s}
 *   host → supervisor: "kill-tree\n" (kill everything now, e.g. after close() gave up waiting)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { descendants, type Found, MARK_VAR, marked, readStat } from './proc-scan.js';

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

function main(): void {
  const [binary, ...args] = process.argv.slice(2);
  const GRACE_MS = Number(process.env.AGY_SDK_SUPERVISOR_GRACE_MS ?? 2000);
  const control = new Socket({ fd: 3, readable: true, writable: true });
  control.on('error', () => {
    // The host is gone; 'close' handles it.
  });
  const report = (msg: Record<string, unknown>): void => {
    if (!control.destroyed && control.writable) control.write(`${JSON.stringify(msg)}\n`);
  };
  if (!binary) {
    report({ type: 'error', message: 'supervisor: no binary given' });
    process.exit(2);
  }

  const mark = randomBytes(16).toString('hex');
  // Only agy gets the marker, not this process: the scan must never find (and kill) the supervisor itself.
  const child = spawn(binary, args, {
    stdio: [0, 1, 2],
    detached: true,
    env: { ...process.env, [MARK_VAR]: mark },
  });
  let childExited = false;

  /** One pass: the group, agy's current tree, every marked process. True if anything was signalled. */
  const signalAll = (sig: NodeJS.Signals): boolean => {
    const pid = child.pid;
    if (pid === undefined) return false;
    let hit = false;
    // After agy exited, its group id may only be reused once no member is left, so this stays safe.
    if (signal(-pid, sig)) hit = true;
    if (!childExited && signal(pid, sig)) hit = true;
    const targets = new Map<number, Found>();
    if (!childExited) for (const f of descendants(pid)) targets.set(f.pid, f);
    for (const f of marked(mark)) targets.set(f.pid, f);
    for (const f of targets.values()) if (signalFound(f, sig)) hit = true;
    return hit;
  };

  /**
   * SIGKILLs everything, then scans again until a pass finds nothing (a process may fork between the scan and
   * the kill; its child inherits the marker and is found next time). Bounded: a fork bomb cannot keep us here.
   */
  const killAll = (): void => {
    for (let pass = 0; pass < 50; pass++) if (!signalAll('SIGKILL')) return;
  };

  let shuttingDown = false;
  const shutdown = (): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    if (childExited) {
      killAll();
      process.exit(0);
    }
    signalAll('SIGTERM');
    setTimeout(() => {
      killAll();
      process.exit(0);
    }, GRACE_MS).unref();
  };

  child.on('error', (err) => {
    report({ type: 'error', message: err.message });
    process.exitCode = 1;
    control.end();
  });
  child.on('spawn', () => report({ type: 'spawned', pid: child.pid, mark }));
  child.on('exit', (code, sig) => {
    childExited = true;
    // Whatever agy left behind (its group, setsid children, daemons) dies with it.
    killAll();
    report({ type: 'exit', code, signal: sig });
    control.end(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  });

  let controlBuffer = '';
  control.on('data', (chunk) => {
    controlBuffer += chunk.toString('utf8');
    for (let nl = controlBuffer.indexOf('\n'); nl !== -1; nl = controlBuffer.indexOf('\n')) {
      const command = controlBuffer.slice(0, nl).trim();
      controlBuffer = controlBuffer.slice(nl + 1);
      if (command === 'kill-tree') killAll();
    }
  });
  control.on('close', shutdown);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, shutdown);
}

main();
