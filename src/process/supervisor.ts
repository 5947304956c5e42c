#!/usr/bin/env node
/**
 * The process supervisor: the guarantee that no agy process, nor any child of it, outlives the host.
 *
 * The host starts this script instead of agy. It starts agy in a new process group (its own session), with
 * agy's stdin/stdout/stderr being the host's pipes directly (no copying). A fourth pipe (fd 3) is the control
 * channel. When it closes — because the host exited, crashed, or was killed with SIGKILL — the supervisor
 * kills agy's whole tree: the process group, plus (on Linux) every descendant found in /proc, which also
 * catches children that left the group with setsid. It does the same on SIGINT/SIGTERM/SIGHUP aimed at itself.
 *
 * Control protocol (newline-delimited JSON on fd 3):
 *   supervisor → host: {"type":"spawned","pid":n} | {"type":"exit","code":n|null,"signal":s|null}
 *                      | {"type":"error","message":s}
 *   host → supervisor: "kill-tree\n" (kill the tree now, e.g. after close() gave up waiting)
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';

const [binary, ...args] = process.argv.slice(2);
const GRACE_MS = Number(process.env.AGY_SDK_SUPERVISOR_GRACE_MS ?? 2000);
const control = new Socket({ fd: 3, readable: true, writable: true });
control.on('error', () => {
  // The host is gone; 'close' handles it.
});

function report(msg: Record<string, unknown>): void {
  if (!control.destroyed && control.writable) control.write(`${JSON.stringify(msg)}\n`);
}

if (!binary) {
  report({ type: 'error', message: 'supervisor: no binary given' });
  process.exit(2);
}

/** Descendants of `root` from /proc (Linux only; elsewhere the process group is the whole story). */
function descendants(root: number): number[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Field 4 (ppid) follows the parenthesised command name, which may itself contain spaces or parens.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid);
      if (list) list.push(pid);
      else children.set(ppid, [pid]);
    } catch {
      // The process exited while we were reading; nothing to kill.
    }
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

const child = spawn(binary, args, { stdio: [0, 1, 2], detached: true });
let childExited = false;
let knownTree: number[] = [];

function signalTree(signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  knownTree = [...new Set([...knownTree, ...descendants(pid)])];
  for (const target of [-pid, ...(childExited ? [] : [pid]), ...knownTree]) {
    try {
      process.kill(target, signal);
    } catch {
      // ESRCH: already gone.
    }
  }
}

let shuttingDown = false;
function shutdown(): void {
  if (shuttingDown) return;
  shuttingDown = true;
  if (childExited) {
    signalTree('SIGKILL');
    process.exit(0);
  }
  signalTree('SIGTERM');
  setTimeout(() => {
    signalTree('SIGKILL');
    process.exit(0);
  }, GRACE_MS).unref();
}

child.on('error', (err) => {
  report({ type: 'error', message: err.message });
  process.exitCode = 1;
  control.end();
});
child.on('spawn', () => report({ type: 'spawned', pid: child.pid }));
child.on('exit', (code, signal) => {
  childExited = true;
  // Whatever agy left in its group dies with it.
  signalTree('SIGKILL');
  report({ type: 'exit', code, signal });
  control.end(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
});

let controlBuffer = '';
control.on('data', (chunk) => {
  controlBuffer += chunk.toString('utf8');
  let nl = controlBuffer.indexOf('\n');
  while (nl !== -1) {
    const command = controlBuffer.slice(0, nl).trim();
    controlBuffer = controlBuffer.slice(nl + 1);
    if (command === 'kill-tree') signalTree('SIGKILL');
    nl = controlBuffer.indexOf('\n');
  }
});
control.on('close', shutdown);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, shutdown);
