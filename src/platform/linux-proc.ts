/**
 * Finding processes in Linux's /proc: by ancestry, and by the per-session marker in their environment. The
 * process table of `linux.ts`: the host's scans and samples, the supervisor at kill time (and tests proving
 * nothing survived).
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { type Found, type FoundPair, MARK_VAR, type ProcessEntry, type ProcessIdentity } from './types.js';

/** ppid and start time from /proc/<pid>/stat; undefined when the process is gone. */
export function readStat(pid: number): ProcessIdentity | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may itself contain spaces or parens).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: fields[19] ?? '', zombie: fields[0] === 'Z' };
  } catch {
    return undefined;
  }
}

const NEEDLE = Buffer.from(`${MARK_VAR}=`);

/** The marker value in a raw environment block (NUL-separated), if any. */
export function markIn(environ: Buffer): string | undefined {
  for (let at = environ.indexOf(NEEDLE); at !== -1; at = environ.indexOf(NEEDLE, at + 1)) {
    // Only a whole entry counts (the very first one has no leading NUL).
    if (at > 0 && environ[at - 1] !== 0) continue;
    const from = at + NEEDLE.length;
    const end = environ.indexOf(0, from);
    return environ.toString('latin1', from, end === -1 ? environ.length : end);
  }
  return undefined;
}

/** Reused read buffers: /proc files are read with open/read/close only (no stat, no fresh buffer per file). */
let statBuf = Buffer.allocUnsafe(1024);
let environBuf = Buffer.allocUnsafe(64 * 1024);

/** A /proc file's whole content, as a view of a reused buffer (valid until the next read); undefined if gone or EACCES. */
function readProcFile(path: string, which: 'stat' | 'environ'): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let buf = which === 'stat' ? statBuf : environBuf;
    let size = 0;
    for (;;) {
      const n = readSync(fd, buf, size, buf.length - size, null);
      if (n === 0) break;
      size += n;
      if (size === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, size);
        buf = bigger;
        if (which === 'stat') statBuf = buf;
        else environBuf = buf;
      }
    }
    return buf.subarray(0, size);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * One process's entry (parent, start time, and with `withMark` its marker), read with the cheap readers above;
 * undefined when it is gone or a zombie.
 */
export function readEntrySync(pid: number, withMark: boolean): ProcessEntry | undefined {
  const raw = readProcFile(`/proc/${pid}/stat`, 'stat');
  if (!raw) return undefined;
  const stat = raw.toString('latin1');
  // Fields after the parenthesised command name (which may itself contain spaces or parens).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return undefined;
  let mark: string | undefined;
  if (withMark) {
    // Another user's process (EACCES) or gone: no marker we could act on.
    const environ = readProcFile(`/proc/${pid}/environ`, 'environ');
    if (environ) mark = markIn(environ);
  }
  return { ppid: Number(fields[1]), start: fields[19] ?? '', mark };
}

let childrenFiles: boolean | undefined;

/** Whether this kernel lists each task's children (`/proc/<pid>/task/<tid>/children`, CONFIG_PROC_CHILDREN). */
export function canWalkTrees(): boolean {
  if (childrenFiles === undefined) {
    try {
      closeSync(openSync(`/proc/self/task/${process.pid}/children`, 'r'));
      childrenFiles = true;
    } catch {
      childrenFiles = false;
    }
  }
  return childrenFiles;
}

/** The threads of `pid` (Go and Node fork from any thread); empty once it is gone. */
function tasksOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** The children of one thread of `pid`. */
function childrenOfTask(pid: number, tid: string): number[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const field of text.split(' ')) if (field !== '') out.push(Number(field));
  return out;
}

/**
 * The live, non-zombie descendants of `root` with their start times, walked down from `root` through the
 * kernel's children lists of every thread: a few reads per process of the tree, where deriving the tree from
 * every process's `stat` reads all of /proc. Each read is synchronous (a /proc file is in memory; through the
 * thread pool the same reads cost about 3× the CPU, measured) and the walk yields to the event loop between two:
 * one is an open, read and close, ~30 µs but now and then over 1 ms (measured in a 2-vCPU VM), and the whole walk
 * of a Node agent's 11 threads took 0.5 ms (up to 1.4 ms) at once. A turn's events do not wait behind it. Only
 * where {@link canWalkTrees}.
 */
export async function walkTree(root: number): Promise<FoundPair[]> {
  let first = true;
  const read = async <T>(readNow: () => T): Promise<T> => {
    if (first) first = false;
    else await new Promise<void>((resolve) => setImmediate(resolve));
    return readNow();
  };
  const out: FoundPair[] = [];
  const seen = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    for (const tid of await read(() => tasksOf(pid))) {
      for (const child of await read(() => childrenOfTask(pid, tid))) {
        if (seen.has(child)) continue;
        seen.add(child);
        const entry = await read(() => readEntrySync(child, false));
        if (!entry) continue;
        out.push([child, entry.start]);
        queue.push(child);
      }
    }
  }
  return out;
}

/**
 * How many processes are read between two yields to the event loop. The reads are synchronous (a /proc file is
 * in memory: open, read, close; about 3× less CPU than the same reads through the thread pool, measured) and a
 * batch blocks the loop well under a millisecond.
 */
const BATCH = 32;

/**
 * Reads every live, non-zombie process but init and this one, in batches with a yield between them. With
 * `marks: false` (the turn-time samples, which only need the tree) environments are not read. Empty where there
 * is no /proc.
 */
export async function scanProcAsync(withMark: boolean): Promise<Map<number, ProcessEntry>> {
  const entries = new Map<number, ProcessEntry>();
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return entries;
  }
  const pids = names.map(Number).filter((pid) => Number.isInteger(pid) && pid > 1 && pid !== process.pid);
  for (let i = 0; i < pids.length; i += BATCH) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const pid of pids.slice(i, i + BATCH)) {
      const entry = readEntrySync(pid, withMark);
      if (entry) entries.set(pid, entry);
    }
  }
  return entries;
}

/**
 * Every live, non-zombie process but init and this one, with its parent, start time and marker, in one
 * synchronous pass (the supervisor's: one pass serves all the sessions it holds). Empty where there is no /proc.
 */
export function scanAllSync(): Map<number, ProcessEntry> {
  const out = new Map<number, ProcessEntry>();
  for (const pid of procPids()) {
    const entry = readEntrySync(pid, true);
    if (entry) out.set(pid, entry);
  }
  return out;
}

/** Every pid in /proc except init and this process. */
export function procPids(): number[] {
  try {
    return readdirSync('/proc')
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 1 && pid !== process.pid);
  } catch {
    return [];
  }
}

/**
 * Every live process holding `<MARK_VAR>=<mark>` in its initial environment. Other users'
 * processes are unreadable (EACCES) and skipped: we could not signal them anyway.
 */
export function marked(mark: string): Found[] {
  const needle = Buffer.from(`${MARK_VAR}=${mark}\0`);
  const out: Found[] = [];
  for (const pid of procPids()) {
    const before = readStat(pid);
    if (!before || before.zombie) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    // The entry may be the very first one (no leading NUL).
    const at = environ.indexOf(needle);
    if (at === -1 || (at > 0 && environ[at - 1] !== 0)) continue;
    out.push({ pid, start: before.start });
  }
  return out;
}
