/** Trigger types: long-lived background tasks that push messages into the conversation. */
import type { Logger } from '../logger.js';

/** What a trigger gets to work with. */
export interface TriggerContext {
  /** Pushes a user message into the conversation (supplied by the host). Rejects once the runner stopped. */
  send(text: string): Promise<void>;
  /** Aborted when the runner stops; long-running work should watch it. */
  signal: AbortSignal;
  /** Where to report problems. */
  logger: Logger;
}

/** A trigger with an explicit lifecycle, e.g. a timer or a file watcher. */
export interface TriggerObject {
  /** Name for logs. */
  name?: string;
  /** Starts it; resolves once it is live (e.g. the watcher is ready). */
  start(ctx: TriggerContext): void | Promise<void>;
  /** Stops it and releases everything it holds (timers, watchers); resolves when done. */
  stop(): void | Promise<void>;
}

/** A trigger as a plain async function that runs until `signal` aborts (or it returns). */
export type TriggerFn = (ctx: TriggerContext, signal: AbortSignal) => Promise<void>;

/** Anything a `TriggerRunner` accepts. */
export type Trigger = TriggerObject | TriggerFn;

/** The kind of a file-system change. */
export type FileChangeKind = 'added' | 'modified' | 'deleted';

/** One file-system change; frozen (as Python's `FileChange`), so a callback cannot rewrite what happened. */
export interface FileChange {
  /** What happened. */
  readonly kind: FileChangeKind;
  /** Absolute path of the file or directory. */
  readonly path: string;
}
