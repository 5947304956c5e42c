/**
 * Layer 3: a transport to an agent backend. The first backend drives agy (`agy/agy-connection.ts`); others
 * (ACP, a remote agy, the in-memory one of `agy-sdk/testing`) plug in behind the same interface through
 * `AgentConfig.connection`.
 */
import type { AgentCapabilities } from '../model/capabilities.js';
import type { Step } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import type { ConnectionHost } from './host.js';

/** What the connection knows about the backend once started. */
export interface ConnectionInfo {
  /** The backend's version (`agy --version`), or null when it could not be probed. */
  version: string | null;
  /** The conversation id the backend reported. */
  conversationId: string | undefined;
  /** The model, when known. */
  model: string | undefined;
  /** Built-in tools the backend offers. */
  tools: string[];
  /** The backend's permission mode, e.g. `always-proceed`. */
  permissionMode: string | undefined;
  /** The backend's working directory. */
  cwd: string | undefined;
  /** The backend process id, when there is a local process. */
  pid: number | undefined;
  /** The agent agy runs as (`init.agent`, from `--agent`); agy echoes the name even when it has no such agent. */
  agent?: string | undefined;
}

/**
 * A media part of a prompt. Every part is also written to a private file and named by a text block (`ref`) in
 * `TurnRequest.text`; a backend that takes the kind natively (ACP with `promptCapabilities`) sends the part
 * itself in place of that block.
 */
export interface TurnMedia {
  /** The exact text block in `TurnRequest.text` that stands for this part. */
  ref: string;
  /** The part's kind. */
  kind: 'image' | 'document' | 'audio' | 'video';
  /** Its MIME type. */
  mimeType: string;
  /** Its bytes. */
  data: Uint8Array;
  /** The private file it was written to. */
  file: string;
}

/** One user message, already reduced to what the backend accepts (text blocks): the backend's view of a `Turn`. */
export interface TurnRequest {
  /** Text blocks, in order. */
  text: string[];
  /** The prompt's media parts, each named by a block of `text` (for backends that take them natively). */
  media?: TurnMedia[] | undefined;
  /** A time limit for this turn only, in ms, overriding the connection's own (the turn then ends `timeout`). */
  timeoutMs?: number | undefined;
  /**
   * The JSON Schema for this turn's structured output, overriding the one the backend was started with (the
   * agent-level `responseSchema`); absent means that one. agy takes a schema only at launch, so the agy backend
   * runs such a turn in a process relaunched on the same conversation.
   */
  jsonSchema?: Record<string, unknown> | undefined;
  /**
   * A slash command to run instead of a model turn (`text` is then empty): agy answers it in a print-mode run
   * on the same conversation, and the answer is `TurnResult.command`. Backends without slash commands refuse it
   * with `UnsupportedError`.
   */
  command?: TurnCommand | undefined;
}

/** A slash command a turn runs instead of a model turn. */
export interface TurnCommand {
  /** The command's name, without the slash (`effort`). */
  name: string;
  /** What followed the name (`''` when nothing). */
  args: string;
}

/** Receives a turn's steps as they arrive. */
export interface TurnSink {
  /** Called once per step, in arrival order; must not throw (a throw is logged and the step dropped). */
  onStep(step: Step): void;
}

/** A transport. At most one turn runs at a time; callers (the Conversation) queue. */
export interface Connection {
  /** The conversation id, once known. */
  readonly conversationId: string | undefined;
  /** Backend facts; complete after `start()`. */
  readonly info: ConnectionInfo;
  /** What the backend can do, once known (after `start()` for agents that advertise it). */
  readonly capabilities?: AgentCapabilities | undefined;
  /**
   * The running backend process's pid, live: undefined while none runs (before the spawn, after an exit), a new
   * one after a restart. `info.pid` is the one the backend reported at start.
   */
  readonly pid?: number | undefined;
  /** True when no turn is running. */
  readonly isIdle: boolean;
  /** Starts the backend and waits until it is ready. */
  start(): Promise<ConnectionInfo>;
  /**
   * Runs one turn. The SDK passes its one turn object (`Turn`, `connection/turn.ts`) as both the request and the
   * sink: the backend reads what to send from it and delivers each step into it. Always resolves with a fail-closed `TurnResult`, whatever happened (crash, timeout, …);
   * rejects only on misuse (a turn already running, or the connection closed).
   */
  runTurn(request: TurnRequest, sink: TurnSink): Promise<TurnResult>;
  /** Stops the running turn (`interrupted` or `canceled`) and keeps the conversation usable. No-op when idle. */
  interrupt(reason?: 'interrupted' | 'canceled'): Promise<void>;
  /** Switches the model for later turns. Must be called while idle. */
  setModel(model: string): Promise<void>;
  /** Shuts the backend down, bounded in time. Idempotent. */
  close(): Promise<void>;
  /**
   * A private directory the backend can read, where prompt attachments (images, documents, …) are written.
   * A backend without one cannot take media parts (the prompt fails with `ContentError`).
   */
  attachmentsDir?(): Promise<string>;
}

/**
 * Builds the connection an Agent runs on. It receives the one host interface the backend calls back through
 * (tool gate, tool completion, hook traffic, tool contexts).
 */
export type ConnectionFactory = (host: ConnectionHost) => Connection | Promise<Connection>;
