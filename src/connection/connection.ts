/**
 * Layer 3: a transport to an agent backend. The first backend drives agy (`agy/agy-connection.ts`); others
 * (ACP, a remote agy, the in-memory one of `agy-sdk/testing`) plug in behind the same interface through
 * `AgentConfig.connection`.
 */
import type { ContentPart } from '../content/content.js';
import type { AgySdkError } from '../errors.js';
import { ReplayBuffer } from '../internal/replay-buffer.js';
import type { AgentCapabilities } from '../model/capabilities.js';
import type { Step } from '../model/step.js';
import type { BudgetName, TurnResult, TurnStatus } from '../model/turn-result.js';
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
   * Runs one turn. The SDK passes its one turn object (`Turn`, below) as both the request and the sink: the
   * backend reads what to send from it and delivers each step into it. Always resolves with a fail-closed
   * `TurnResult`, whatever happened (crash, timeout, …);
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

// One turn, as one object from `chat()` to the backend and back. `Agent.chat` builds it from the prompt's parts
// and the turn's options; the Conversation's stages fill in what is sent (text blocks, media, a slash command, a
// schema override); the backend receives it as its `TurnRequest` and delivers each step into it as its
// `TurnSink`; the turn gathers those steps once, in the buffer its `ChatResponse` reads (as the Codex SDK's
// `thread.runStreamedInternal(input, turnOptions)` carries one turn).

/** A schema a turn's structured output is checked against (the Agent's `ResponseSchema` is one). */
export interface TurnSchema {
  /** The JSON Schema sent to the backend. */
  readonly jsonSchema: Record<string, unknown>;
  /** Checks the backend's unvalidated structured output; the error is what the turn ends with. */
  check(raw: unknown): { ok: true; value: unknown } | { ok: false; error: AgySdkError };
}

/** A turn's own options, checked (`ChatOptions`). */
export interface TurnOptions {
  /** This turn's own structured-output schema (`ChatOptions.responseSchema`); absent means the agent's. */
  schema?: TurnSchema | undefined;
  /** A time limit for this turn only, in ms (`ChatOptions.turnTimeoutMs`), over the connection's own. */
  timeoutMs?: number | undefined;
  /** Aborting it cancels this turn (`ChatOptions.signal`): a queued turn never runs, a running one is interrupted. */
  signal?: AbortSignal | undefined;
}

/** A reason a stage asks to stop the running turn (e.g. a budget): it decides the turn's outcome. */
export interface TurnStop {
  /** The status the turn ends with. */
  status: Extract<TurnStatus, 'budget_exceeded'>;
  /** Its `errorMessage`. */
  message: string;
  /** Its `error`. */
  error: AgySdkError;
  /** The budget that was crossed. */
  budget?: BudgetName;
}

/**
 * One turn: what the user asked (its parts and options), what is sent (filled in by the prepare stages), and
 * the steps the backend delivers. It is the backend's `TurnRequest` and `TurnSink` at once.
 */
export class Turn implements TurnRequest, TurnSink {
  /** The prompt's parts, as the user gave them (parsed once, by `chat`). */
  readonly parts: readonly ContentPart[];
  /** This turn's own schema; absent means the agent's (sent at launch). */
  readonly schema: TurnSchema | undefined;
  /** Aborting it cancels this turn. */
  readonly signal: AbortSignal | undefined;
  /** A time limit for this turn only, in ms. */
  timeoutMs: number | undefined;
  /** The text blocks to send, in order; the prepare stages add to it. */
  text: string[] = [];
  /** Media parts, each also named by a block of `text` (backends that take them natively send them instead). */
  media: TurnMedia[] | undefined;
  /** The JSON Schema of this turn only, when it differs from the one the backend was started with. */
  jsonSchema: Record<string, unknown> | undefined;
  /** The slash command this turn runs instead of a model turn (`text` is then empty). */
  command: TurnCommand | undefined;
  /** Set when a stage stopped the turn (e.g. a budget): it decides the outcome. */
  stop: TurnStop | undefined;
  /** Every step the backend delivered, in order: the one place a turn's steps are gathered. */
  readonly steps = new ReplayBuffer<Step>();
  #onStep: ((step: Step) => void) | undefined;

  /**
   * @param parts The prompt's parts, parsed and checked.
   * @param options The turn's own options, checked.
   */
  constructor(parts: readonly ContentPart[], options: TurnOptions = {}) {
    this.parts = parts;
    this.schema = options.schema;
    this.signal = options.signal;
    this.timeoutMs = options.timeoutMs;
  }

  /** @internal Who runs the turn sees each step after it was gathered (history, telemetry, step stages). */
  watch(onStep: (step: Step) => void): void {
    this.#onStep = onStep;
  }

  /** Gathers one step from the backend, then shows it to the watcher. */
  onStep(step: Step): void {
    this.steps.push(step);
    this.#onStep?.(step);
  }
}

/**
 * A plain copy of what a backend reads from a turn (only the fields that are set), for a backend that keeps
 * what it was sent (the in-memory connection's `requests`).
 */
export function requestOf(request: TurnRequest): TurnRequest {
  return {
    text: request.text,
    ...(request.media !== undefined && { media: request.media }),
    ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
    ...(request.jsonSchema !== undefined && { jsonSchema: request.jsonSchema }),
    ...(request.command !== undefined && { command: request.command }),
  };
}
