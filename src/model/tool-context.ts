/**
 * What a tool handler gets besides its arguments. The model never sees any of it: it lives on our side of
 * the MCP boundary, so handlers can keep per-session state, talk back to the conversation, and stop early.
 */
import { UsageError } from '../errors.js';

/** The second argument of every tool handler. */
export interface ToolContext {
  /** The conversation agy is running, or `undefined` before agy has reported one. Read at access time. */
  readonly conversationId: string | undefined;
  /** Reads a session-scoped value stored by any tool of this session; `undefined` when absent. */
  getState<T>(key: string): T | undefined;
  /** Reads a session-scoped value stored by any tool of this session; `defaultValue` when absent. */
  getState<T>(key: string, defaultValue: T): T;
  /** Stores a session-scoped value, visible to every later tool call of this session. */
  setState(key: string, value: unknown): void;
  /**
   * Sends a user message into the conversation (delivered by the host, e.g. queued for the next turn).
   * Rejects when no conversation is attached.
   */
  send(message: string): Promise<void>;
  /** Aborted when the call is cancelled, the client went away, or the session is closing. */
  readonly signal: AbortSignal;
  /**
   * Whether the conversation is idle: no turn running or queued (Python `ToolContext.is_idle`). Read at access
   * time; during the turn that called the tool it is false. True when no conversation is attached.
   */
  readonly isIdle: boolean;
}

/** Per-session key-value state shared by all tool calls of one session. Values are kept by reference. */
export class StateStore {
  readonly #values = new Map<string, unknown>();

  /** The value stored under `key`, or `defaultValue` (not stored) when there is none. */
  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.#values.has(key) ? (this.#values.get(key) as T) : defaultValue;
  }

  /** Stores `value` under `key`, replacing any previous value. */
  set(key: string, value: unknown): void {
    this.#values.set(key, value);
  }

  /** Whether a value is stored under `key` (even `undefined`). */
  has(key: string): boolean {
    return this.#values.has(key);
  }

  /** Removes `key`; returns whether it was there. */
  delete(key: string): boolean {
    return this.#values.delete(key);
  }

  /** Removes every value. */
  clear(): void {
    this.#values.clear();
  }

  /** The stored keys, in insertion order. */
  keys(): string[] {
    return [...this.#values.keys()];
  }
}

/** What the host (the Conversation) provides to tool contexts. Every member is optional. */
export interface ToolContextHost {
  /** Returns the current conversation id; called each time a handler reads `ctx.conversationId`. */
  conversationId?: () => string | undefined;
  /** Delivers `ctx.send(message)`. Without it, `send` rejects. */
  send?: (message: string) => Promise<void>;
  /** Whether the conversation is idle; called each time a handler reads `ctx.isIdle`. Without it, true. */
  isIdle?: () => boolean;
}

/**
 * Builds the context for one tool call. `signal` may be a function returning it, called on first read: the
 * listener's hot path then creates no `AbortController` (~5 µs each) for the many handlers that never look.
 */
export function createToolContext(
  host: ToolContextHost,
  state: StateStore,
  signal: AbortSignal | (() => AbortSignal),
): ToolContext {
  return new CallContext(host, state, signal);
}

/**
 * A class rather than an object literal with getters: a literal with accessors is built in dictionary mode on
 * every call (profiled at a few µs of a ~90 µs tool call), a class instance in a few ns. The methods stay own
 * arrow functions, so a handler may still destructure them (`(args, { setState }) => …`).
 */
class CallContext implements ToolContext {
  readonly #host: ToolContextHost;
  readonly #signal: AbortSignal | (() => AbortSignal);

  constructor(host: ToolContextHost, state: StateStore, signal: AbortSignal | (() => AbortSignal)) {
    this.#host = host;
    this.#signal = signal;
    this.getState = <T>(key: string, defaultValue?: T): T | undefined =>
      state.get<T | undefined>(key, defaultValue);
    this.setState = (key, value) => state.set(key, value);
    this.send = async (message) => {
      if (!host.send) throw new UsageError('ToolContext.send is unavailable: no conversation is attached');
      await host.send(message);
    };
  }

  readonly getState: ToolContext['getState'];
  readonly setState: ToolContext['setState'];
  readonly send: ToolContext['send'];

  get conversationId(): string | undefined {
    return this.#host.conversationId?.();
  }

  get signal(): AbortSignal {
    const signal = this.#signal;
    return typeof signal === 'function' ? signal() : signal;
  }

  get isIdle(): boolean {
    return this.#host.isIdle?.() ?? true;
  }
}
