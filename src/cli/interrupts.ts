/**
 * Ctrl-C and SIGTERM for `agy-sdk run`: the first interrupts the running turn (agy gets SIGINT and the turn ends
 * `interrupted`), or, before the turn has started, closes the agent; a second one closes the agent at once. The
 * handlers are removed afterwards so nothing outlives the command.
 */
import type { Agent } from '../index.js';

/** What the guard saw. */
export interface InterruptGuard {
  /** True once a signal arrived. */
  readonly interrupted: boolean;
  /** Marks the turn as running (a signal now interrupts it rather than closing the agent). */
  turnStarted(): void;
  /** Removes the handlers. */
  dispose(): void;
}

/** Installs the handlers for `agent`; `note` prints a one-line notice. */
export function guardInterrupts(agent: Agent, note: (message: string) => void): InterruptGuard {
  let count = 0;
  let running = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    count += 1;
    if (count === 1 && running) {
      note(`(${signal}: interrupting the turn; again to stop at once)`);
      agent.interrupt().catch((error: unknown) => note(`interrupt failed: ${String(error)}`));
      return;
    }
    note(`(${signal}: stopping)`);
    agent.close().catch((error: unknown) => note(`close failed: ${String(error)}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    get interrupted() {
      return count > 0;
    },
    turnStarted() {
      running = true;
    },
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
