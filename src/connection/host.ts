/**
 * The one interface through which a backend calls back into the SDK, in the spirit of ACP's `Client`: the
 * tool gate, tool completion, steering and stop decisions. A backend holds one `ConnectionHost` and never
 * imports `conversation/` or `agent/`; the Agent's control plane is the host. Every method speaks the SDK's
 * typed vocabulary (`ToolInvocation`, `ToolCallDecision`, `StopEvent`, all in `model/`): translating a backend's
 * own wire payloads into these calls is the backend's job (for agy, `connection/agy/hook-handlers.ts`).
 *
 * A tool call — any tool: the agent's own, a backend's built-in, an MCP server's, an ACP agent's — meets the
 * host twice: `gateToolCall` before it runs, `toolCallEnded` once it ended.
 */
import type { StopEvent } from '../model/stop.js';
import type {
  ToolCallDecision,
  ToolCallOutcome,
  ToolErrorReplacement,
  ToolInvocation,
} from '../model/tool-call.js';
import type { ToolContextHost } from '../model/tool-context.js';

export type { StopEvent, ToolCallDecision, ToolCallOutcome, ToolErrorReplacement, ToolInvocation };

/**
 * The host's answer for a tool call.
 * @deprecated Use {@link ToolCallDecision}: the one decision of every gate.
 */
export type ToolCallVerdict = ToolCallDecision;

/** How the gate is asked about a call. */
export interface ToolGateOptions {
  /**
   * The call is of the agent's own tools, which the SDK runs in-process. `'asked'`: a backend asks before it
   * hands the call to the SDK's tool server (an ACP agent's permission request, agy's PreToolUse): only the
   * turn check applies, since the call is gated in full when it runs. `'running'`: the SDK's tool server is
   * about to run it: the full gate, and the decision is final (a deny is charged to the turn at once; no
   * `toolCallAnswered` follows, since no other answer can override it).
   */
  ownTool?: 'asked' | 'running';
}

/** Which host decisions the backend must ask for; a backend installs only the interception this needs. */
export interface HostNeeds {
  /** `gateToolCall` for tools the backend runs itself (the SDK's tool server always asks for the agent's own). */
  toolGate: boolean;
  /** `toolCallEnded` for tools the backend runs itself. */
  toolResults: boolean;
  /** `onStop` when the model wants to stop. */
  stop: boolean;
  /** `beforeModelCall` before each model call (steering). */
  steering: boolean;
}

/** The stop hooks' decision: keep the model going, with the reason it is given. */
export interface StopVerdict {
  /** Given to the model as the reason to go on. */
  reason: string;
}

/** The typed decisions the SDK makes on a backend's behalf while a session runs. */
export interface ToolCallHost {
  /** Which of the methods below the backend must call. */
  needs(): HostNeeds;
  /**
   * A tool call was requested, before any decision about it runs: the host charges it to the turn running
   * now. `key` is an opaque object identifying the request, passed again to `toolCallAnswered`.
   */
  toolCallRequested(key: object, call: ToolInvocation): void;
  /**
   * The one gate of every tool call: may this call run, with which arguments, and if not, why and who denied?
   * The budget, the MCP servers' `enabledTools`, the policies and the `preToolCall` hooks all answer here.
   */
  gateToolCall(call: ToolInvocation, opts?: ToolGateOptions): Promise<ToolCallDecision>;
  /**
   * The decision the backend actually acted on (the gate's, a raw hook's, or a fail-closed fallback), for the
   * calls a backend runs: a denial reaches the turn's `deniedActions` from here.
   */
  toolCallAnswered(key: unknown, call: ToolInvocation, decision: ToolCallDecision): void;
  /**
   * A tool call ended (every tool, the agent's own included): `postToolCall` / `onToolError` hooks see it.
   * For a call the SDK ran in-process (`outcome.inProcess`), returns what the model sees instead of its error
   * when an `onToolError` hook replaced it.
   */
  toolCallEnded(call: ToolInvocation, outcome: ToolCallOutcome): Promise<ToolErrorReplacement | undefined>;
  /** Before each model call: steering messages to inject as user messages (empty: none). */
  beforeModelCall(): string[];
  /**
   * Calls `watcher` at once with whether steering messages wait for `beforeModelCall`, then on every change;
   * returns the unsubscribe function. A backend whose steering call costs something per model call (agy's
   * PreInvocation hook runs a relay process) makes it only while messages wait. Optional: without it, the
   * backend calls `beforeModelCall` before every model call.
   */
  watchSteering?(watcher: (pending: boolean) => void): () => void;
  /** The model wants to stop: `undefined` lets it; a verdict keeps it going. */
  onStop(event: Omit<StopEvent, 'continuationCount'>): Promise<StopVerdict | undefined>;
}

/** What a backend may ask of the SDK while a session runs. */
export interface ConnectionHost extends ToolCallHost {
  /**
   * What the context of the agent's own tools may reach of the session (the conversation id, whether it is
   * idle, `send`): handed to each handler as data, not a decision, so it is not folded into the gate.
   */
  readonly toolContext?: ToolContextHost | undefined;
  /**
   * The gate under its former name: `gatedInProcess` is `ownTool: 'asked'`.
   * @deprecated Use {@link ToolCallHost.gateToolCall}, the one gate of every tool call.
   */
  gateBackendToolCall(call: ToolInvocation, opts?: { gatedInProcess?: boolean }): Promise<ToolCallDecision>;
}
