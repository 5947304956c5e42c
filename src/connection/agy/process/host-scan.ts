/**
 * One /proc scan per host process, shared by all its supervisors. Scanning /proc costs a read of every
 * process's `stat` and `environ`; done by each supervisor for itself, 200 sessions meant 200 scans at every
 * close. Here the host scans asynchronously (the reads run in libuv's thread pool, off the event loop), and
 * every concurrent request shares the same pass:
 * - while a session is starting or in a turn, a sample every second tells its supervisor the descendants of
 *   agy it has not been told about yet (`adopt`), so they die with agy even if they later leave its tree;
 * - after agy exits, the host's scan finds what still carries the session marker and has the supervisor kill
 *   it (see `agy-process.ts`), instead of the supervisor scanning by itself.
 * Idle sessions are never sampled: with none starting or in a turn, nothing runs.
 */
import { readdir, readFile } from 'node:fs/promises';
import type { FoundPair } from './control-protocol.js';
import { markIn, type ProcEntry } from './proc-scan.js';

type Entry = ProcEntry;

/** The processes of the host as one pass saw them. */
export class Snapshot {
  readonly #entries: Map<number, Entry>;
  #children: Map<number, number[]> | undefined;
  #byMark: Map<string, FoundPair[]> | undefined;

  constructor(entries: Map<number, Entry>) {
    this.#entries = entries;
  }

  /** The start time of `pid` as the pass saw it; undefined if it was not there (or was a zombie). */
  startOf(pid: number): string | undefined {
    return this.#entries.get(pid)?.start;
  }

  /** Every process holding `<MARK_VAR>=<mark>`. */
  marked(mark: string): FoundPair[] {
    if (!this.#byMark) {
      this.#byMark = new Map();
      for (const [pid, e] of this.#entries) {
        if (e.mark === undefined) continue;
        const list = this.#byMark.get(e.mark);
        if (list) list.push([pid, e.start]);
        else this.#byMark.set(e.mark, [[pid, e.start]]);
      }
    }
    return this.#byMark.get(mark) ?? [];
  }

  /** Every descendant of `root`. */
  descendants(root: number): FoundPair[] {
    if (!this.#children) {
      this.#children = new Map();
      for (const [pid, e] of this.#entries) {
        const list = this.#children.get(e.ppid);
        if (list) list.push(pid);
        else this.#children.set(e.ppid, [pid]);
      }
    }
    const out: FoundPair[] = [];
    const queue = [root];
    const seen = new Set<number>();
    while (queue.length) {
      for (const pid of this.#children.get(queue.shift()!) ?? []) {
        if (seen.has(pid)) continue;
        seen.add(pid);
        out.push([pid, this.#entries.get(pid)!.start]);
        queue.push(pid);
      }
    }
    return out;
  }
}

async function readEntry(pid: number): Promise<Entry | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // Fields after the parenthesised command name (which may itself contain spaces or parens).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return undefined;
  let mark: string | undefined;
  try {
    mark = markIn(await readFile(`/proc/${pid}/environ`));
  } catch {
    // Another user's process (EACCES) or gone: we could not signal it anyway.
  }
  return { ppid: Number(fields[1]), start: fields[19] ?? '', mark };
}

/** How many /proc files are read at once (the thread pool has 4 threads; more only queues). */
const BATCH = 64;

/** Reads every live, non-zombie process but init and this one. Empty where there is no /proc. */
export async function scanProc(): Promise<Snapshot> {
  const entries = new Map<number, Entry>();
  if (process.platform !== 'linux') return new Snapshot(entries);
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return new Snapshot(entries);
  }
  const pids = names.map(Number).filter((pid) => Number.isInteger(pid) && pid > 1 && pid !== process.pid);
  for (let i = 0; i < pids.length; i += BATCH) {
    const batch = pids.slice(i, i + BATCH);
    const read = await Promise.all(batch.map(readEntry));
    read.forEach((entry, j) => {
      if (entry) entries.set(batch[j]!, entry);
    });
  }
  return new Snapshot(entries);
}

/** A session the host samples while it is starting or in a turn. */
export interface Watch {
  /** agy's pid. */
  readonly root: number;
  /** Newly found descendants (each told once). */
  onFound(found: FoundPair[]): void;
}

/** How often active sessions are sampled. */
const SAMPLE_MS = 1000;

/** The host's shared scanner. */
export class HostScan {
  /** The pass running now. */
  #running: Promise<Snapshot> | undefined;
  /** The pass that starts once the running one ends (requests made meanwhile must see later state). */
  #queued: Promise<Snapshot> | undefined;
  readonly #active = new Map<Watch, Set<string>>();
  #timer: NodeJS.Timeout | undefined;
  #sampling = false;
  /** Passes run so far (for tests and benches). */
  passes = 0;

  /** A pass that starts no earlier than this call; concurrent callers share it. */
  snapshot(): Promise<Snapshot> {
    if (!this.#running) return this.#start();
    this.#queued ??= this.#running.then(
      () => this.#start(),
      () => this.#start(),
    );
    return this.#queued;
  }

  #start(): Promise<Snapshot> {
    this.#queued = undefined;
    this.passes++;
    const pass = scanProc();
    this.#running = pass;
    const clear = () => {
      if (this.#running === pass) this.#running = undefined;
    };
    pass.then(clear, clear);
    return pass;
  }

  /** Samples `watch` until `stop` is called; the first sample comes at once. */
  sample(watch: Watch): () => void {
    if (process.platform !== 'linux') return () => {};
    this.#active.set(watch, this.#active.get(watch) ?? new Set());
    this.#schedule(0);
    return () => {
      this.#active.delete(watch);
      if (this.#active.size === 0) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  /** True while some session is sampled (for tests). */
  get sampling(): boolean {
    return this.#active.size > 0;
  }

  #schedule(delay: number): void {
    if (this.#timer || this.#sampling || this.#active.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#sample();
    }, delay);
    // Sampling never keeps the host alive.
    this.#timer.unref();
  }

  async #sample(): Promise<void> {
    this.#sampling = true;
    try {
      const snap = await this.snapshot();
      for (const [watch, told] of this.#active) {
        const fresh = snap.descendants(watch.root).filter(([pid, start]) => {
          const key = `${pid}:${start}`;
          if (told.has(key)) return false;
          told.add(key);
          return true;
        });
        if (fresh.length) watch.onFound(fresh);
      }
    } catch {
      // A failed pass (no /proc) finds nothing; the kill-time scans still run.
    } finally {
      this.#sampling = false;
      this.#schedule(SAMPLE_MS);
    }
  }
}

/** The host-wide scanner every supervised process shares. */
export const hostScan = new HostScan();
