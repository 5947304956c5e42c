/**
 * Finding processes in Linux's /proc: by ancestry, and by the per-session marker in their environment. Used by
 * the supervisor at kill time (and by tests to prove nothing survived). Elsewhere every function finds nothing,
 * and the process group is the whole story.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable carrying the per-session marker. */
export const MARK_VAR = 'AGY_SDK_SESSION_MARK';

/** A process found for killing; the start time tells it apart from a later process that reuses the pid. */
export interface Found {
  pid: number;
  /** `/proc/<pid>/stat` field 22 (start time in clock ticks since boot). */
  start: string;
}

/** ppid and start time from /proc/<pid>/stat; undefined when the process is gone (or this is not Linux). */
export function readStat(pid: number): { ppid: number; start: string; zombie: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may itself contain spaces or parens).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: fields[19] ?? '', zombie: fields[0] === 'Z' };
  } catch {
    return undefined;
  }
}

/** Every pid in /proc except init and this process. */
export function procPids(): number[] {
  if (process.platform !== 'linux') return [];
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

/** Descendants of `root` from /proc, as they are now (catches a child that cleared its environment). */
export function descendants(root: number): Found[] {
  const children = new Map<number, Found[]>();
  for (const pid of procPids()) {
    const stat = readStat(pid);
    if (!stat) continue;
    const list = children.get(stat.ppid);
    if (list) list.push({ pid, start: stat.start });
    else children.set(stat.ppid, [{ pid, start: stat.start }]);
  }
  const out: Found[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}
