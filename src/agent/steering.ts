/**
 * Steering: the pending queue of `'next-step'` messages and the delivery rules of `agent.steer(text, { when })`.
 * - `'next-turn'` (default): queued after the current turn (and anything already queued), as its own turn;
 * - `'now'`: interrupts the running turn and re-prompts at once, ahead of the queue, with the messages still
 *   waiting for a model call included first;
 * - `'next-step'`: injected as a user message at the next model call of the running turn (agy's
 *   `PreInvocation` `injectSteps`); if no model call comes, delivered with the next prompt. With no turn
 *   running it behaves like `'next-turn'`.
 */
import type { ChatResponse } from '../conversation/chat-response.js';
import type { Conversation } from '../conversation/conversation.js';
import { ConfigError } from '../errors.js';

/** When a steering message is delivered. */
export type SteerWhen = 'now' | 'next-step' | 'next-turn';

/** Steering messages waiting for the next model call. */
export class SteeringQueue {
  #pending: string[] = [];
  readonly #watchers = new Set<(pending: boolean) => void>();

  /** Queues a message for the next model call. */
  push(text: string): void {
    this.#pending.push(text);
    if (this.#pending.length === 1) for (const watcher of this.#watchers) watcher(true);
  }

  /** Takes every waiting message, oldest first (they go into a model call or the next prompt). */
  take(): string[] {
    const out = this.#pending;
    // A fresh empty list: the caller must never hold the queue's own.
    if (out.length === 0) return [];
    this.#pending = [];
    for (const watcher of this.#watchers) watcher(false);
    return out;
  }

  /**
   * Calls `watcher` at once with whether messages are waiting, then each time that changes (before `push` or
   * `take` returns). Returns the unsubscribe function. A watcher must not throw.
   */
  watch(watcher: (pending: boolean) => void): () => void {
    this.#watchers.add(watcher);
    watcher(this.#pending.length > 0);
    return () => {
      this.#watchers.delete(watcher);
    };
  }
}

/** Delivers `text` by the rule of `when`; returns the turn it starts, if any. */
export async function deliverSteer<P>(
  conversation: Conversation<P>,
  queue: SteeringQueue,
  text: string,
  when: SteerWhen,
  asPrompt: (text: string) => P,
): Promise<ChatResponse | undefined> {
  switch (when) {
    case 'next-turn':
      return conversation.chat(asPrompt(text));
    case 'next-step':
      if (!conversation.isRunning) return conversation.chat(asPrompt(text));
      queue.push(text);
      return undefined;
    case 'now': {
      const response = conversation.chat(asPrompt([...queue.take(), text].join('\n\n')), { first: true });
      await conversation.interrupt();
      return response;
    }
    default:
      throw new ConfigError('when', `must be 'now', 'next-step' or 'next-turn', got ${JSON.stringify(when)}`);
  }
}
