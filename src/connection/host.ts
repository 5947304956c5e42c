/**
 * The one interface through which a backend calls back into the SDK, in the spirit of ACP's `Client`: the
 * tool gate, tool completion, steering and stop decisions. A backend holds one `ConnectionHost` and never
 * imports `conversation/` or `agent/`; the Agent implements it with its control plane. Every method speaks
 * the SDK's typed vocabulary (`HookToolCall`, `StopEvent`): translating a backend's own wire payloads into
 * these calls is the backend's job (for agy, `connection/agy/hook-handlers.ts`).
 */
import type { HookToolCall, StopEvent } from '../hooks/types.js';
import type { DeniedBy } from '../model/turn-result.js';
import type { OwnToolHooks } from './tool-server/mcp-tool-call.js';

/** The host's answer for a tool call the backend asks about before it runs. */
export type ToolCallVerdict =
  | {
      allow: true;
      /** Replacement arguments (the model's own arguments, unwrapped), when a hook modified them. */
      args?: Record<string, unknown>;
    }
  | {
      allow: false;
      /** Why the call may not run; the model sees it. */
      reason: string;
      /** Who decided; absent when the backend cannot tell (the host then names who it can). */
      deniedBy?: DeniedBy;
    };

/** How a tool call the backend ran ended, as far as the backend knows. */
export interface ToolCallOutcome {
  /** The error text, when the call failed. */
  error?: string;
  /** The tool's output, when the backend has one. */
  output?: unknown;
}

/** Which host decisions the backend must ask for; a backend installs only the interception this needs. */
export interface HostNeeds {
  /** `gateBackendToolCall` for tools the backend runs itself. */
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
  toolCallRequested(key: object, call: HookToolCall): void;
  /**
   * The gate of the tools the backend runs itself (its built-in tools and the user's MCP servers): may this
   * call run, and with which arguments? `gatedInProcess`: the call is of the agent's own tools (an ACP agent asks
   * for those too), which `ownTools.gate` gates when they run; only the turn check applies.
   */
  gateBackendToolCall(call: HookToolCall, opts?: { gatedInProcess?: boolean }): Promise<ToolCallVerdict>;
  /** The verdict the backend actually acted on (the host's, a raw hook's, or a fail-closed fallback). */
  toolCallAnswered(key: unknown, call: HookToolCall, verdict: ToolCallVerdict): void;
  /** A tool call the backend ran ended. */
  toolCallEnded(call: HookToolCall, outcome: ToolCallOutcome): Promise<void>;
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
   * The hooks on the agent's own `tool()`s, which the SDK serves in-process: `gate` (may this call run, and
   * with which arguments? the backend's built-in tools go through `gateBackendToolCall` instead), `after`
   * (sees each outcome; may replace the result the model sees) and `context` (the conversation id and `send`).
   * One object, built once by the Agent and passed whole to the tool server; a backend adds only its own
   * `observer` (a sign of life for its watchdog).
   */
  ownTools: OwnToolHooks;
}
