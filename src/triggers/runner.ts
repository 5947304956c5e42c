/**
 * TriggerRunner: starts triggers alongside a session and stops them all. A trigger's failure is logged and
 * never reaches the host or the other triggers. `stop()` aborts the shared signal, stops every trigger and
 * waits for it (bounded by `stopTimeoutMs`), so no timer or watcher is left behind.
 */

import { UsageError } from '../errors.js';
import { settlesWithin } from '../internal/timing.js';
import { consoleLogger, describeError, type Logger } from '../logger.js';
import type { Trigger, TriggerContext } from './types.js';

/** Options of {@link TriggerRunner}. */
export interface TriggerRunnerOptions {
  /** Delivers a trigger's message to the conversation (the host's `send`). */
  send: (text: string) => Promise<void>;
  /** Where trigger failures are reported. */
  logger?: Logger;
  /** How long `stop()` waits for each trigger before giving up on it (default 10 s). */
  stopTimeoutMs?: number;
}

interface Running {
  name: string;
  trigger: Trigger;
  /** Settles when an object trigger's start() did, or when a function trigger returned. */
  settled: Promise<void>;
}

/** Runs triggers for the lifetime of a session. */
export class TriggerRunner {
  readonly #triggers: Trigger[];
  readonly #send: (text: string) => Promise<void>;
  readonly #logger: Logger;
  readonly #stopTimeoutMs: number;
  #running: Running[] | undefined;
  #controller: AbortController | undefined;
  #stopping: Promise<void> | undefined;

  /** @param triggers The triggers to run; plain functions and objects may be mixed. */
  constructor(triggers: Iterable<Trigger>, options: TriggerRunnerOptions) {
    this.#triggers = [...triggers];
    for (const t of this.#triggers) {
      const ok =
        typeof t === 'function' ||
        (typeof t === 'object' &&
          t !== null &&
          typeof t.start === 'function' &&
          typeof t.stop === 'function');
      if (!ok)
        throw new TypeError('Not a trigger: expected an async function or an object with start() and stop()');
    }
    if (typeof options?.send !== 'function') throw new TypeError('TriggerRunner needs a send(text) function');
    this.#send = options.send;
    this.#logger = options.logger ?? consoleLogger;
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  }

  /** Whether the triggers are running. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Starts every trigger; resolves when the object triggers are live. Failures to start are logged. */
  async start(): Promise<void> {
    await this.#stopping;
    if (this.#running) throw new UsageError('TriggerRunner is already started');
    const controller = new AbortController();
    this.#controller = controller;
    const { signal } = controller;
    const send = async (text: string): Promise<void> => {
      if (signal.aborted) throw new Error('TriggerRunner is stopped; message not sent');
      if (typeof text !== 'string') throw new TypeError('send() expects a string');
      await this.#send(text);
    };
    const ctx: TriggerContext = { send, signal, logger: this.#logger };
    this.#running = this.#triggers.map((trigger, i) => {
      const name = (typeof trigger === 'function' ? trigger.name : trigger.name) || `trigger#${i + 1}`;
      const settled = settle(() =>
        typeof trigger === 'function' ? trigger(ctx, signal) : trigger.start(ctx),
      ).then((error) => {
        if (error === undefined) return;
        // A function trigger rejecting because it was told to stop is the normal way to end.
        if (signal.aborted && typeof trigger === 'function') {
          this.#logger.debug(`trigger '${name}' ended after stop: ${describeError(error)}`);
        } else {
          this.#logger.error(`trigger '${name}' failed: ${describeError(error)}`, error);
        }
      });
      return { name, trigger, settled };
    });
    await Promise.all(this.#running.filter((r) => typeof r.trigger !== 'function').map((r) => r.settled));
  }

  /** Stops every trigger and waits for them (each bounded by `stopTimeoutMs`). Safe to call twice. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stopAll().finally(() => {
      this.#stopping = undefined;
    });
    return this.#stopping;
  }

  async #stopAll(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#controller?.abort(new Error('TriggerRunner stopped'));
    await Promise.all(
      running.map(async ({ name, trigger, settled }) => {
        const done = (async () => {
          if (typeof trigger === 'function') return settled;
          await settled; // stop only after start finished, so nothing it creates is missed
          const error = await settle(() => trigger.stop());
          if (error !== undefined)
            this.#logger.error(`trigger '${name}' failed to stop: ${describeError(error)}`, error);
        })();
        if (!(await settlesWithin(done, this.#stopTimeoutMs))) {
          this.#logger.warn(
            `trigger '${name}' did not stop within ${this.#stopTimeoutMs} ms; no longer waiting for it`,
          );
        }
      }),
    );
    this.#running = undefined;
    this.#controller = undefined;
  }
}

/** Runs `fn`; resolves with what it threw or rejected with, or `undefined` on success. */
async function settle(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    return error ?? new Error('undefined was thrown');
  }
}

/** Whether `promise` settled within `ms`; the timer is always cleared. */
