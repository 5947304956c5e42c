/**
 * Paces the process starts of the whole host. `child_process.spawn` is synchronous: libuv forks and then waits
 * until the child has exec'd, so on a loaded box one call can block the event loop for a long time, and a start
 * storm (many agents started at once) issued all spawns in one tick, blocking it for seconds. Here each spawn
 * runs in its own macrotask (the loop turns between two spawns), and only a few supervisors may be booting at
 * once (a slot is held from spawn until the supervisor reports, never while a session idles), so a start storm
 * neither freezes the host nor starves the processes it starts of CPU.
 *
 * An agent process's slot is held until its first output and, when it serves the session's own tools, until it
 * has listed them (bounded): agy's start work goes on after its `init` (its MCP connection, ~100 ms of CPU for
 * the simulator), and freeing the slot at `init` let more processes compete for the cores than there are, each
 * slower for it (bench/many-agents.mjs: ~10 % more CPU per agy, ~10 % longer start storms).
 */
import { availableParallelism } from 'node:os';

/** One queued start: `run` spawns and returns a promise that settles when the slot may be freed. */
type Job = () => Promise<unknown>;

/** A slot is freed after this long even if the started process never reported (it is not killed here). */
const SLOT_TIMEOUT_MS = 10_000;

/**
 * How long after its first output a process's slot may still be held for its remaining start work (agy's MCP
 * connection to the session's tool server): long enough for that work in a storm, short enough that an agy
 * that never does it slows a storm only a little.
 */
export const START_WORK_HOLD_MS = 1000;

function defaultLimit(): number {
  const fromEnv = Number(process.env.AGY_SDK_MAX_CONCURRENT_SPAWNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return Math.max(2, availableParallelism() * 2);
}

export class SpawnQueue {
  readonly #limit: number;
  readonly #waiting: Job[] = [];
  #running = 0;
  #scheduled = false;

  constructor(limit = defaultLimit()) {
    this.#limit = limit;
  }

  /** How many started processes may hold a slot at once. */
  get limit(): number {
    return this.#limit;
  }

  /** Queues `job`; it runs in a later macrotask, once a slot is free. */
  enqueue(job: Job): void {
    this.#waiting.push(job);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0 || this.#running >= this.#limit) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#next();
    });
  }

  #next(): void {
    const job = this.#waiting.shift();
    if (!job) return;
    this.#running++;
    let timer: NodeJS.Timeout | undefined;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      clearTimeout(timer);
      this.#running--;
      this.#schedule();
    };
    timer = setTimeout(free, SLOT_TIMEOUT_MS);
    timer.unref();
    let settled: Promise<unknown>;
    try {
      settled = job();
    } catch {
      settled = Promise.resolve();
    }
    settled.then(free, free);
    this.#schedule();
  }
}

/** The host-wide queue every supervised process start goes through. */
export const spawnQueue = new SpawnQueue();
