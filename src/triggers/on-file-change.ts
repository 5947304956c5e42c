/** `onFileChange(path, fn)`: a chokidar-backed file watcher trigger with debounced, coalesced batches. */
import path from 'node:path';
import type { ChokidarOptions, FSWatcher } from 'chokidar';
import type { MaybePromise } from '../hooks/types.js';
import { describeError } from '../logger.js';
import { ChangeBatch } from './change-batch.js';
import type { FileChange, FileChangeKind, TriggerContext, TriggerObject } from './types.js';

/** Options of {@link onFileChange}. */
export interface OnFileChangeOptions {
  /** Name for logs. */
  name?: string;
  /** Quiet time after the last change before a batch is delivered (default 50 ms). */
  debounceMs?: number;
  /** Longest a batch waits under a continuous stream of changes (default 1000 ms). */
  maxWaitMs?: number;
  /** Skip the `added` events for files that exist when watching starts (default `true`). */
  ignoreInitial?: boolean;
  /** Further chokidar options (`ignored`, `depth`, `usePolling`, `awaitWriteFinish`, `cwd`…). */
  watchOptions?: Omit<ChokidarOptions, 'ignoreInitial' | 'persistent'>;
}

const EVENT_KINDS: Record<string, FileChangeKind | undefined> = {
  add: 'added',
  addDir: 'added',
  change: 'modified',
  unlink: 'deleted',
  unlinkDir: 'deleted',
};

/**
 * Watches `paths` (files or directories, recursively) and calls `fn` with a batch of changes (absolute
 * paths, sorted) once changes settle for `debounceMs`. Calls never overlap; changes that arrive during a call
 * form the next batch. Errors are logged. `start()` resolves when the watcher is ready; `stop()` closes it.
 */
export function onFileChange(
  paths: string | readonly string[],
  fn: (changes: FileChange[], ctx: TriggerContext) => MaybePromise<void>,
  options: OnFileChangeOptions = {},
): TriggerObject {
  const targets = (typeof paths === 'string' ? [paths] : [...paths]).map((p) => path.resolve(p));
  if (targets.length === 0) throw new TypeError('onFileChange(): at least one path is required');
  if (typeof fn !== 'function') throw new TypeError('onFileChange(): fn must be a function');
  const debounceMs = options.debounceMs ?? 50;
  const maxWaitMs = Math.max(options.maxWaitMs ?? 1000, debounceMs);
  const name = options.name ?? `onFileChange(${targets.join(', ')})`;
  const cwd = options.watchOptions?.cwd;

  const batch = new ChangeBatch({ name, debounceMs, maxWaitMs, fn });
  let watcher: FSWatcher | undefined;
  let loading = false;
  let releaseStart: (() => void) | undefined;

  return {
    name,
    async start(ctx) {
      if (watcher !== undefined || loading) throw new Error(`Trigger '${name}' is already started`);
      batch.active = true;
      // chokidar loads with the first watcher, not with the package: most programs never watch a file.
      loading = true;
      let watch: typeof import('chokidar').watch;
      try {
        ({ watch } = await import('chokidar'));
      } finally {
        loading = false;
      }
      if (!batch.active) return; // stop() ran while chokidar loaded
      const w = watch(targets, { ...options.watchOptions, ignoreInitial: options.ignoreInitial ?? true });
      watcher = w;
      w.on('all', (event, changed) => {
        const kind = EVENT_KINDS[event];
        if (kind !== undefined) batch.record(path.resolve(cwd ?? '', changed), kind, ctx);
      });
      w.on('error', (error) =>
        ctx.logger.error(`trigger '${name}': watcher error: ${describeError(error)}`, error),
      );
      await new Promise<void>((resolve) => {
        releaseStart = resolve; // stop() before ready must not leave start() hanging
        w.once('ready', resolve);
      });
      releaseStart = undefined;
    },
    async stop() {
      batch.active = false;
      releaseStart?.();
      batch.clear();
      const w = watcher;
      watcher = undefined;
      if (w !== undefined) await closeWatcher(w);
      await batch.running;
    },
  };
}

/**
 * Closes a watcher. fs.watch handles are released in libuv's close phase, which runs after the check phase; two
 * setImmediate turns guarantee it ran, so nothing is left when this resolves.
 */
async function closeWatcher(w: FSWatcher): Promise<void> {
  await w.close();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}
