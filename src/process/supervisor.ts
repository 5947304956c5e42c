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
 *                      "snapshot\n" (record agy's descendants now, e.g. before closing its stdin)
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

/** A process seen in agy's tree: its start time tells it apart from a later process that reuses the pid. */
interface Known {
  pid: number;
  /** `/proc/<pid>/stat` field 22 (start time in clock ticks since boot). */
  start: string;
}

/** pid, ppid and start time from /proc/<pid>/stat; undefined when the process is gone. */
function readStat(pid: number): { ppid: number; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may itself contain spaces or parens).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** Descendants of `root` from /proc (Linux only; elsewhere the process group is the whole story). */
function descendants(root: number): Known[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<number, Known[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (!stat) continue;
    const list = children.get(stat.ppid);
    if (list) list.push({ pid, start: stat.start });
    else children.set(stat.ppid, [{ pid, start: stat.start }]);
  }
  const out: Known[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

const child = spawn(binary, args, { stdio: [0, 1, 2], detached: true });
let childExited = false;
/** Every descendant seen so far, kept across re-parenting: a child that called setsid and outlived its parent is
 * no longer found under agy, so the tree is sampled while agy runs (and on the host's request before close). */
const knownTree = new Map<number, Known>();

function refreshTree(): void {
  if (child.pid === undefined || childExited) return;
  for (const k of descendants(child.pid)) knownTree.set(k.pid, k);
}

function signalTree(signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  refreshTree();
  const targets = [-pid, ...(childExited ? [] : [pid])];
  for (const k of knownTree.values()) {
    // Only the same process: a pid that was reused by an unrelated process since we saw it is left alone.
    if (readStat(k.pid)?.start === k.start) targets.push(k.pid);
    else knownTree.delete(k.pid);
  }
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {
      // ESRCH: already gone.
    }
  }
}

const sampler = setInterval(refreshTree, Number(process.env.AGY_SDK_SUPERVISOR_SAMPLE_MS ?? 1000));
sampler.unref();

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
  clearInterval(sampler);
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
    else if (command === 'snapshot') {
      refreshTree();
      report({ type: 'snapshot', known: knownTree.size });
    }
    nl = controlBuffer.indexOf('\n');
  }
});
control.on('close', shutdown);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, shutdown);
