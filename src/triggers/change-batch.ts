/** The debounced, coalesced batches of {@link onFileChange}: what changed, and when `fn` is called with it. */
import type { MaybePromise } from '../hooks/types.js';
import { describeError } from '../logger.js';
import type { FileChange, FileChangeKind, TriggerContext } from './types.js';

/**
 * The net change of a path within one batch. A file created and removed within a batch (an editor's temp
 * file) disappears; removed then re-created becomes `modified`.
 */
function coalesce(previous: FileChangeKind | undefined, next: FileChangeKind): FileChangeKind | undefined {
  if (previous === undefined) return next;
  if (previous === 'added') return next === 'deleted' ? undefined : 'added';
  if (previous === 'deleted') return next === 'deleted' ? 'deleted' : 'modified';
  return next === 'deleted' ? 'deleted' : 'modified';
}

/** How a {@link ChangeBatch} delivers its batches. */
export interface ChangeBatchOptions {
  /** The trigger's name, for logs. */
  name: string;
  /** Quiet time after the last change before a batch is delivered. */
  debounceMs: number;
  /** Longest a batch waits under a continuous stream of changes (at least `debounceMs`). */
  maxWaitMs: number;
  /** Called with each batch (absolute paths, sorted); never overlapping. Its errors are logged. */
  fn: (changes: FileChange[], ctx: TriggerContext) => MaybePromise<void>;
}

/**
 * Gathers changes into batches and delivers each once changes settle; changes that arrive during a call form the
 * next batch. Nothing is scheduled or delivered while not `active`.
 */
export class ChangeBatch {
  /** Whether changes are taken and delivered (between the trigger's start and stop). */
  active = false;
  #timer: NodeJS.Timeout | undefined;
  #batchStartedAt: number | undefined;
  #pending = new Map<string, FileChangeKind>();
  #running: Promise<void> | undefined;
  readonly #opts: ChangeBatchOptions;

  constructor(opts: ChangeBatchOptions) {
    this.#opts = opts;
  }

  /** The call in progress, if any. */
  get running(): Promise<void> | undefined {
    return this.#running;
  }

  /** Records one change of `absolute` (coalesced with the batch's earlier ones) and schedules delivery. */
  record(absolute: string, kind: FileChangeKind, ctx: TriggerContext): void {
    if (!this.active) return;
    const next = coalesce(this.#pending.get(absolute), kind);
    if (next === undefined) this.#pending.delete(absolute);
    else this.#pending.set(absolute, next);
    this.#schedule(ctx);
  }

  /** Drops what is pending and its timer (a call in progress runs on). */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = new Map();
    this.#batchStartedAt = undefined;
  }

  #schedule(ctx: TriggerContext): void {
    if (!this.active) return;
    const now = Date.now();
    this.#batchStartedAt ??= now;
    clearTimeout(this.#timer);
    const { debounceMs, maxWaitMs } = this.#opts;
    const wait = Math.max(0, Math.min(debounceMs, this.#batchStartedAt + maxWaitMs - now));
    this.#timer = setTimeout(() => this.#flush(ctx), wait);
  }

  #flush(ctx: TriggerContext): void {
    this.#timer = undefined;
    if (this.#running || !this.active) return; // the running call reschedules when it ends
    const batch: FileChange[] = [...this.#pending]
      .map(([p, kind]): FileChange => Object.freeze({ kind, path: p }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    this.#pending = new Map();
    this.#batchStartedAt = undefined;
    if (batch.length === 0) return;
    const { fn, name } = this.#opts;
    this.#running = (async () => {
      try {
        await fn(batch, ctx);
      } catch (error) {
        ctx.logger.error(`trigger '${name}' failed: ${describeError(error)}`, error);
      }
    })().finally(() => {
      this.#running = undefined;
      if (this.#pending.size > 0) this.#schedule(ctx);
    });
  }
}
