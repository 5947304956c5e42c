/**
 * The live conversation: its persisted state plus the step counter. Every change is saved at once, so a
 * process that crashes or is killed mid-turn still leaves the next `--conversation` process consistent
 * (step indexes never repeat, a crashed turn's scenario turn is not replayed).
 */
import type { ConversationState, StateStore } from './state.js';

/** One conversation, shared by every turn of this process. */
export class Conversation {
  readonly #store: StateStore;

  constructor(
    store: StateStore,
    /** The persisted state; mutate it, then call `save()`. */
    readonly state: ConversationState,
    /** Whether this process resumed an existing conversation (it then announces "Conversation resumed"). */
    readonly resumed: boolean,
  ) {
    this.#store = store;
  }

  get id(): string {
    return this.state.conversationId;
  }

  /** Hands out the next `step_index`; indexes grow across turns and restarts. */
  nextStep(): number {
    const index = this.state.nextStepIndex++;
    this.save();
    return index;
  }

  /** Persists the state now (synchronous, so it survives an immediate exit). */
  save(): void {
    this.#store.save(this.state);
  }
}
