#!/usr/bin/env node
/**
 * The host's process supervisor: the guarantee that no agent process (agy or an ACP agent), nor any descendant
 * of it, outlives the host. One per host process, started lazily by `host-supervisor.ts`, serving every session.
 *
 * The host spawns each agent itself, straight onto its own pipes, in a new process group (its own session) with
 * a random per-session marker (`AGY_SDK_SESSION_MARK`) in its environment that every descendant inherits, even
 * after setsid, a double fork or re-parenting to init. Around each spawn it tells this process, on the control
 * pipe (fd 3, `control-protocol.ts`), the session's marker (`watch`, written before the spawn) and agy's pid
 * (`pid`, right after), and later the descendants its sampling saw (`adopt`). This process only holds that
 * knowledge and waits: no timers, no sampling, so an idle supervisor costs no CPU however many sessions it holds.
 * It is usually exec'd by the host's shell waiter (`host-supervisor.ts`) only once it is needed, which may be after
 * the host died: the lines the host wrote are then still in the pipe, and are read before its end.
 *
 * When the control pipe closes (the host exited, crashed or was SIGKILLed) or this process gets SIGTERM, every
 * session it holds is killed: SIGTERM to agy's group, agy's current tree, the adopted pids and (on Linux) every
 * same-uid process whose `/proc/<pid>/environ` holds a held marker; after the sessions' grace, SIGKILL, then again
 * until a pass finds nothing (bounded). One /proc pass serves all sessions. While the host lives, it sweeps after
 * each agy exit itself and then `forget`s the session here. SIGINT and SIGHUP are ignored: a terminal's Ctrl-C or
 * hang-up is the host's to handle (if it dies of it, the pipe closes).
 */
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { currentPlatform, type Found } from '../../platform/index.js';
import { controlLine, type HostCommand, lineReader, type SupervisorReport } from './control-protocol.js';
import { Snapshot } from './host-scan.js';

/** The OS's process operations; the host started this supervisor, so its OS has a platform. */
const platform = currentPlatform();

/** What this process holds for one session. */
interface Held {
  mark: string;
  graceMs: number;
  pid: number | undefined;
  /** agy's start time, read when the host named its pid (tells a reused pid apart). */
  pidStart: string | undefined;
  /** The host saw agy exit: its pid and group id are not its own any more. */
  exited: boolean;
  /** Descendants the host's scan saw while agy ran (`adopt`), by pid. */
  known: Map<number, Found>;
}

/** Signals a found process only if it is still the same one (a reused pid is left alone). */
function signalFound(found: Found, sig: NodeJS.Signals): boolean {
  const now = platform.processes.identity(found.pid);
  if (!now || now.zombie || now.start !== found.start) return false;
  return platform.signalProcess(found.pid, sig);
}

/**
 * One pass over `sessions`: each one's group and agy (while agy runs), and, with `scan`, one /proc pass for
 * all of them: agy's current descendants and every marked process; the adopted pids always. True if anything
 * was signalled.
 */
function signalPass(sessions: Held[], sig: NodeJS.Signals, scan: boolean): boolean {
  const snap = scan ? new Snapshot(platform.processes.scanSync()) : undefined;
  let hit = false;
  for (const s of sessions) {
    const targets = new Map<number, Found>();
    if (s.pid !== undefined && !s.exited) {
      const now = platform.processes.identity(s.pid);
      // agy's group id is safe to signal while agy is the same process, or while no process holds its pid
      // (a group id is only ever taken by a process with that pid).
      if ((!now || now.start === s.pidStart) && platform.signalGroup(s.pid, sig)) hit = true;
      if (now && !now.zombie && now.start === s.pidStart && platform.signalProcess(s.pid, sig)) hit = true;
      if (snap) for (const [pid, start] of snap.descendants(s.pid)) targets.set(pid, { pid, start });
    }
    for (const f of s.known.values()) targets.set(f.pid, f);
    if (snap) for (const [pid, start] of snap.marked(s.mark)) targets.set(pid, { pid, start });
    for (const f of targets.values()) if (signalFound(f, sig)) hit = true;
  }
  return hit;
}

/**
 * SIGKILLs everything, scanning, then again until a pass finds nothing (a process may fork between the scan and
 * the kill; its child inherits the marker and is found next time). Bounded: a fork bomb cannot keep us here.
 */
function killAll(sessions: Held[]): void {
  for (let pass = 0; pass < 50; pass++) if (!signalPass(sessions, 'SIGKILL', true)) return;
}

/**
 * Written past the socket: a failed write on it (EPIPE: the host is gone) destroys the socket, and what the host
 * wrote before it died, still unread, with it. Reports need no answer, so a failed one is simply dropped.
 */
function report(msg: SupervisorReport): void {
  try {
    writeSync(3, controlLine(msg));
  } catch {
    // EPIPE: the host is gone; EAGAIN: it is not reading. Nothing waits for a report.
  }
}

/** The sessions this process holds, by the host's session id. */
const held = new Map<number, Held>();

let shuttingDown = false;

/** Kills every held session (SIGTERM, then SIGKILL after the longest grace) and exits; runs once. */
function shutdown(): void {
  if (shuttingDown) return;
  shuttingDown = true;
  const sessions = [...held.values()];
  // Holding nothing: nothing to kill.
  if (sessions.length === 0) process.exit(0);
  signalPass(sessions, 'SIGTERM', true);
  const graceMs = Math.max(...sessions.map((s) => s.graceMs));
  const finish = (): void => {
    killAll(sessions);
    process.exit(0);
  };
  if (graceMs <= 0) finish();
  // Not unref'd: nothing else keeps this process up now.
  else setTimeout(finish, graceMs);
}

/** `watch`: starts holding a session by its marker (written before the spawn). */
function onWatch(id: number, msg: Extract<HostCommand, { cmd: 'watch' }>): void {
  if (typeof msg.mark !== 'string' || msg.mark === '') return;
  const graceMs = Number.isFinite(msg.graceMs) && msg.graceMs >= 0 ? msg.graceMs : 2000;
  held.set(id, {
    mark: msg.mark,
    graceMs,
    pid: undefined,
    pidStart: undefined,
    exited: false,
    known: new Map(),
  });
}

/** Every command but `watch`, on a session this process holds. */
function onSessionCommand(id: number, s: Held, msg: HostCommand): void {
  if (msg.cmd === 'pid') {
    if (!Number.isInteger(msg.pid) || msg.pid <= 1) return;
    s.pid = msg.pid;
    // The host's reading, taken at the spawn: this line may be read long after (a waiter that just woke).
    s.pidStart = typeof msg.start === 'string' ? msg.start : platform.processes.identity(msg.pid)?.start;
  } else if (msg.cmd === 'adopt' && Array.isArray(msg.found)) {
    for (const [pid, start] of msg.found) {
      if (Number.isInteger(pid) && pid > 1 && typeof start === 'string') s.known.set(pid, { pid, start });
    }
  } else if (msg.cmd === 'exited') {
    s.exited = true;
  } else if (msg.cmd === 'kill-tree') {
    killAll([s]);
    report({ type: 'killed', id });
  } else if (msg.cmd === 'forget') {
    held.delete(id);
  }
}

/** One command from the host; a malformed one is dropped. */
function onCommand(msg: HostCommand): void {
  if (typeof msg.id !== 'number') return;
  if (msg.cmd === 'watch') {
    onWatch(msg.id, msg);
    return;
  }
  const s = held.get(msg.id);
  if (s) onSessionCommand(msg.id, s, msg);
}

/** One line of the control pipe: a JSON command, or nothing. */
function onLine(line: string): void {
  let msg: HostCommand;
  try {
    msg = JSON.parse(line) as HostCommand;
  } catch {
    return;
  }
  if (msg && typeof msg === 'object') onCommand(msg);
}

function main(): void {
  const control = new Socket({ fd: 3, readable: true, writable: true });
  control.on('error', () => {
    // The host is gone; 'close' handles it.
  });
  control.setEncoding('utf8');
  control.on('data', lineReader(onLine));
  control.on('close', shutdown);
  process.on('SIGTERM', shutdown);
  for (const sig of ['SIGINT', 'SIGHUP'] as const) process.on(sig, () => {});
  // A bug here must not leave what we hold unguarded: kill it all, then exit (the host fails those sessions).
  process.on('uncaughtException', () => {
    try {
      killAll([...held.values()]);
    } finally {
      process.exit(70);
    }
  });
  report({ type: 'ready', pid: process.pid });
}

main();
