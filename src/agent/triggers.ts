/**
 * The Agent's triggers: `config.triggers` in one runner started with the session, and each trigger given to
 * `registerTrigger()` in a runner of its own (pending until the session starts, started at once after).
 */
import type { Logger } from '../logger.js';
import { TriggerRunner } from '../triggers/runner.js';
import type { Trigger } from '../triggers/types.js';

/** One agent's trigger runners. */
export class AgentTriggers {
  readonly #send: (text: string) => Promise<void>;
  readonly #logger: Logger;
  #configured: TriggerRunner | undefined;
  /** Triggers registered before the session started (each gets its runner when it starts). */
  readonly #pending: Array<{ trigger: Trigger; runner?: TriggerRunner }> = [];
  /** Triggers registered after it started: one runner each, stopped by their remover or by `stop()`. */
  readonly #late = new Map<TriggerRunner, Promise<void>>();

  /** @param send Queues a trigger's prompt as a turn. */
  constructor(send: (text: string) => Promise<void>, logger: Logger) {
    this.#send = send;
    this.#logger = logger;
  }

  /** A runner for `triggers`; validates them (throws `ConfigError`), as `config.triggers` are at construction. */
  runner(triggers: Trigger[]): TriggerRunner {
    return new TriggerRunner(triggers, { send: this.#send, logger: this.#logger });
  }

  /** Starts `config.triggers`; `stillStarting` is checked before the registered ones start. */
  async start(triggers: Trigger[] | undefined, stillStarting: () => void): Promise<void> {
    if (triggers?.length) {
      this.#configured = this.runner(triggers);
      await this.#configured.start();
    }
    stillStarting();
    // Taken with no await, so none registered meanwhile is missed.
    for (const entry of this.#pending.splice(0)) entry.runner = this.#startLate(entry.trigger);
  }

  /** Adds one trigger: pending before the session started, started at once after. Returns its remover. */
  register(trigger: Trigger, started: boolean): () => Promise<void> {
    const probe = this.runner([trigger]);
    if (!started) {
      const entry: { trigger: Trigger; runner?: TriggerRunner } = { trigger };
      this.#pending.push(entry);
      return async () => {
        const index = this.#pending.indexOf(entry);
        if (index !== -1) this.#pending.splice(index, 1);
        if (entry.runner) await this.#stopLate(entry.runner);
      };
    }
    const runner = this.#startLate(trigger, probe);
    return () => this.#stopLate(runner);
  }

  /** Stops every runner. */
  async stop(): Promise<void> {
    await this.#configured?.stop();
    await Promise.all([...this.#late.keys()].map((r) => this.#stopLate(r)));
  }

  /** Starts one registered trigger in its own runner (start failures are the runner's to log). */
  #startLate(trigger: Trigger, runner = this.runner([trigger])): TriggerRunner {
    const started = runner.start().catch((err: unknown) => {
      this.#logger.error(`a registered trigger could not start: ${(err as Error)?.message ?? String(err)}`);
    });
    this.#late.set(runner, started);
    return runner;
  }

  /** Stops one registered trigger, after its start (a stop before it would find nothing to stop). */
  async #stopLate(runner: TriggerRunner): Promise<void> {
    await this.#late.get(runner);
    await runner.stop();
    this.#late.delete(runner);
  }
}
