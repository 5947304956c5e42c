/**
 * One process-table scan per host process, shared by all its sessions, through the platform's process table
 * (`platform/`: /proc on Linux; none on macOS, where every scan is empty). Scanning /proc costs a read of every
 * process's `stat` and `environ`. The host reads them in small synchronous batches with a yield to the event loop
 * between two (a /proc file is in memory; the same reads through the thread pool cost about 3× the CPU, measured),
 * and every concurrent request shares the same pass:
 * - while a session is starting or in a turn, a sample every second (the tree only: no environments) records
 *   agy's descendants it has not seen yet and tells the supervisor (`adopt`), so they die with agy even if they
 *   later leave its tree. With a few sessions sampled, each walks down its own tree through the kernel's
 *   children lists (a few reads, so a turn's events are not held up behind a pass over all of /proc); with
 *   many, one pass serves them all;
 * - after agy exits, the host's scan finds what still carries the session marker and kills it (see
 *   `child-process.ts`).
 * Idle sessions are never sampled: with none starting or in a turn, nothing runs. */
import { currentPlatform, type FoundPair, type ProcessEntry } from '../../platform/index.js';

type Entry = ProcessEntry;

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

/**
 * Reads every live, non-zombie process but init and this one through the platform's process table (on Linux
 * /proc, in batches with a yield between them). With `marks: false` (the turn-time samples, which only need the
 * tree) environments are not read. Empty where the platform has no process table.
 */
export async function scanProc(options: { marks?: boolean } = {}): Promise<Snapshot> {
  return new Snapshot(await currentPlatform().processes.scan({ marks: options.marks ?? true }));
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

/** Up to this many sampled sessions walk their own trees; more share one /proc pass. */
const TREE_WALK_MAX = 8;

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

  /**
   * Samples `watch` until `stop` is called; the first sample comes at once, or with `atOnce: false` at the next
   * regular sample (a process that has just been spawned has no descendants yet).
   */
  sample(watch: Watch, atOnce = true): () => void {
    if (!currentPlatform().processes.available) return () => {};
    this.#active.set(watch, this.#active.get(watch) ?? new Set());
    this.#schedule(atOnce ? 0 : SAMPLE_MS);
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
      this.passes++;
      // The tree is all a sample needs. A few sessions walk down their own trees (a handful of reads, one per
      // turn of the event loop, so a turn's events never wait behind a sample); many at once share one pass over
      // /proc, without environments.
      const { processes } = currentPlatform();
      const walk = this.#active.size <= TREE_WALK_MAX && processes.canWalkTrees();
      const snap = walk ? undefined : await scanProc({ marks: false });
      let first = true;
      for (const [watch, told] of this.#active) {
        if (walk && !first) await new Promise<void>((resolve) => setImmediate(resolve));
        first = false;
        const tree = snap ? snap.descendants(watch.root) : await processes.walkTree(watch.root);
        const fresh = tree.filter(([pid, start]) => {
          const key = `${pid}:${start}`;
          if (told.has(key)) return false;
          told.add(key);
          return true;
        });
        // A session stopped while its tree was read is not told.
        if (fresh.length && this.#active.has(watch)) watch.onFound(fresh);
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
