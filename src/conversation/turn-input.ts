/**
 * One turn's input, built once by whoever queues the turn and carried down with it: `Agent.chat` builds it from
 * the prompt and the `ChatOptions`, the Conversation from a prompt given to it directly (triggers, steering,
 * `conversation.chat`). The prepare and finish stages read the turn's own values from it, so nothing per turn
 * is kept anywhere else (as the Codex SDK's `thread.runStreamedInternal(input, turnOptions)` does).
 */

import type { ContentPart } from '../content/content.js';
import type { ResponseSchema } from '../model/response-schema.js';

/** What one turn runs on, checked. */
export interface TurnInput {
  /** The prompt's parts, parsed once (`contentParts`). */
  readonly parts: readonly ContentPart[];
  /** This turn's own structured-output schema (`ChatOptions.responseSchema`); absent means the agent's. */
  readonly schema?: ResponseSchema | undefined;
  /** A time limit for this turn only, in ms (`ChatOptions.turnTimeoutMs`), over the connection's own. */
  readonly timeoutMs?: number | undefined;
  /** Aborting it cancels this turn (`ChatOptions.signal`): a queued turn never runs, a running one is interrupted. */
  readonly signal?: AbortSignal | undefined;
}
