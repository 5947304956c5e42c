/**
 * Where a pool remembers each key's conversation id, so an evicted or crashed agent is resumed on the same
 * conversation (`--conversation`). One pool keeps it in memory; a fleet shares it through Redis.
 */

/** Key → conversation id. Asynchronous: a fleet's store is remote. */
export interface ConversationStore {
  /** The conversation id last recorded for `key`, if any. */
  get(key: string): Promise<string | undefined>;
  /** Records `conversationId` for `key` (called when an agent for `key` has started). */
  set(key: string, conversationId: string): Promise<void>;
}

/** A `ConversationStore` in this process's memory (the default of an `AgentPool`). */
export class MemoryConversationStore implements ConversationStore {
  readonly #ids = new Map<string, string>();

  /** The id recorded for `key`. */
  async get(key: string): Promise<string | undefined> {
    return this.#ids.get(key);
  }

  /** Records the id for `key`. */
  async set(key: string, conversationId: string): Promise<void> {
    this.#ids.set(key, conversationId);
  }
}
