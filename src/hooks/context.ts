import type { ContentPart } from '../content/content.js';

/**
 * Hook contexts: `SessionContext` → `TurnContext` → `OperationContext`. Each holds its own state; reads fall
 * through to the parent, writes stay local. So state flows down (a session value is visible in every turn and
 * tool call) and never up (a value set while handling one tool call does not leak into the next).
 * Hook contexts are independent of any tool context.
 */

/** Base of the three contexts: a key/value store layered over its parent's. */
export abstract class HookContext {
  readonly #state = new Map<string, unknown>();

  /** @param parent The enclosing context reads fall through to. */
  protected constructor(readonly parent: HookContext | undefined) {}

  /** The value for `key` here or, failing that, in the nearest ancestor that has it. */
  get<T = unknown>(key: string): T | undefined {
    if (this.#state.has(key)) return this.#state.get(key) as T;
    return this.parent?.get<T>(key);
  }

  /** Whether `key` is set here or in an ancestor. */
  has(key: string): boolean {
    return this.#state.has(key) || (this.parent?.has(key) ?? false);
  }

  /** Sets `key` in this context only; it shadows (never overwrites) an ancestor's value. */
  set(key: string, value: unknown): this {
    this.#state.set(key, value);
    return this;
  }

  /** Removes `key` from this context only; an ancestor's value becomes visible again. */
  delete(key: string): boolean {
    return this.#state.delete(key);
  }

  /** The conversation this context belongs to, once known. */
  abstract get conversationId(): string | undefined;
}

/** Session-wide context: lives as long as the agent session. */
export class SessionContext extends HookContext {
  #conversationId: string | undefined;

  constructor(options: { conversationId?: string } = {}) {
    super(undefined);
    this.#conversationId = options.conversationId;
  }

  /** agy's conversation id; `undefined` until the host learns it (agy's `init` event). */
  get conversationId(): string | undefined {
    return this.#conversationId;
  }

  /** Records the conversation id once the host learns it. */
  setConversationId(id: string | undefined): void {
    this.#conversationId = id;
  }

  /** Opens the context of turn number `turn`, whose prompt was `prompt` (its parts, as given). */
  startTurn(turn: number, prompt: readonly ContentPart[] = []): TurnContext {
    return new TurnContext(this, turn, prompt);
  }
}

/** Per-turn context: one user prompt and everything the agent does for it. */
export class TurnContext extends HookContext {
  /**
   * The prompt's parts as the user gave them (text, `Image`, `Document`, …; Python's pre-turn hook data), frozen;
   * empty for a turn the SDK opened itself. A `preTurn` hook's first argument is the text sent for them.
   */
  readonly prompt: readonly ContentPart[];

  /**
   * @param session The session this turn belongs to.
   * @param turn 1-based turn number within the session.
   * @param prompt The prompt's parts, as given.
   */
  constructor(
    readonly session: SessionContext,
    readonly turn: number,
    prompt: readonly ContentPart[] = [],
  ) {
    super(session);
    this.prompt = Object.freeze([...prompt]);
  }

  /** The session's conversation id. */
  get conversationId(): string | undefined {
    return this.session.conversationId;
  }

  /** Opens the context of one operation (tool call, interaction) in this turn. */
  startOperation(toolCallId?: string): OperationContext {
    return new OperationContext(this, toolCallId);
  }
}

/** Per-operation context: one tool call (pre, post and error hooks of the same call share it) or interaction. */
export class OperationContext extends HookContext {
  /**
   * @param turnContext The turn the operation runs in.
   * @param toolCallId The tool call's id, when the operation is a tool call.
   */
  constructor(
    readonly turnContext: TurnContext,
    readonly toolCallId?: string,
  ) {
    super(turnContext);
  }

  /** The turn number. */
  get turn(): number {
    return this.turnContext.turn;
  }

  /** The session's conversation id. */
  get conversationId(): string | undefined {
    return this.turnContext.conversationId;
  }
}
