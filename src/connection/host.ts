/**
 * The one interface through which a backend calls back into the SDK, in the spirit of ACP's `Client`: the
 * tool gate, tool completion and hook traffic. A backend holds one `ConnectionHost` and never imports
 * `conversation/` or `agent/`; the Agent implements it with its control plane.
 */
import type { ToolContextHost } from '../tools/tool-context.js';
import type { AfterToolCall, BeforeToolCall } from './agy/session/mcp-tool-call.js';

/** What a backend may ask of the SDK while a session runs. */
export interface ConnectionHost {
  /** Decides whether a call of one of the agent's own tools may run (and with which arguments). */
  gateToolCall: BeforeToolCall;
  /** Sees the outcome of each own-tool call; may replace the result the model sees. */
  afterToolCall: AfterToolCall;
  /** A backend hook call arrived, before any handler runs (the turn ledger charges it to its turn). */
  onHook(event: string, input: unknown): void;
  /** The one answer the backend sent for a hook call (the handler's, or the fail-closed fallback). */
  onHookAnswer(event: string, input: unknown, answer: unknown): void;
  /** What a tool's context may reach of the session: the conversation id and `send`. */
  toolContext: ToolContextHost;
}
