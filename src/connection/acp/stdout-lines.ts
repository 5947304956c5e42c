/**
 * The agent's stdout as the ACP SDK's message stream: one JSON-RPC message per line, parsed here, so that what
 * is not a message this client can take is logged through the configured logger and dropped before the SDK
 * sees it (the SDK reports such messages with `console.error`, past the logger): a stray `console.log` of the
 * agent or a banner, a line that is not a JSON object, a message with neither `method` nor `id`, a response to
 * a request we never sent (or already got an answer to), a `session/update` without its `sessionId` and
 * `update.sessionUpdate`. A `session/update` the SDK's own (deeper) schema would reject (a wrong-typed field
 * inside its content, an unknown update kind: `session-update-check.ts`) is dropped and counted too, and
 * logged at warn once per kind (a bounded number of kinds), so a hostile agent cannot flood the log with it.
 *
 * Framing is the agy path's `LineSplitter` (one growable buffer, so a long line costs linear time; bytes, so a
 * UTF-8 character split across chunks is safe), with its line cap: a line over `maxLineBytes` is dropped as
 * it streams, counted and logged. Stdout that arrives after the SDK stopped reading (the connection was closed
 * during a turn) is dropped and counted, never thrown into the stdout `data` handler.
 */
import type { AnyMessage } from '@agentclientprotocol/sdk';
import type { Logger } from '../../logger.js';
import { LineSplitter } from '../process/line-splitter.js';
import { sessionUpdateProblem } from './session-update-check.js';

/** Bytes of a dropped line shown in the log. */
const SHOWN = 200;
/** Requests of ours remembered as awaiting an answer, at most (an answer must name one of them). */
const MAX_PENDING = 10_000;
/** Kinds of schema-invalid `session/update` logged, at most (an agent can make up any number of kinds). */
export const MAX_LOGGED_UPDATE_KINDS = 16;

type JsonRpcId = string | number | null;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `session/update` of a known shape (`kind`) that fails the SDK's schema. */
class InvalidUpdate {
  constructor(
    readonly kind: string,
    readonly problem: string,
  ) {}
}

/** The agent's stdout as parsed JSON-RPC messages, fed from raw stdout chunks. */
export class StdoutLines {
  /** The messages the SDK reads. */
  readonly readable: ReadableStream<AnyMessage>;
  #controller: ReadableStreamDefaultController<AnyMessage> | undefined;
  readonly #splitter: LineSplitter;
  /** The stream was closed (end of stdout) or cancelled by its reader: nothing more is enqueued. */
  #closed = false;
  readonly #logger: Logger;
  readonly #maxLineBytes: number;
  /** Ids of the requests we sent that have no answer yet. */
  readonly #pending = new Set<JsonRpcId>();
  /**
   * Lines dropped because they were not messages this client takes (not JSON, not JSON-RPC, unknown id, a
   * `session/update` the SDK's schema rejects).
   */
  dropped = 0;
  /** Of `dropped`: `session/update`s that the SDK's schema would reject. */
  invalidUpdates = 0;
  /** Update kinds whose first schema-invalid `session/update` was logged. */
  readonly #loggedKinds = new Set<string>();
  /** More kinds than `MAX_LOGGED_UPDATE_KINDS` were seen, and that was logged once. */
  #kindsOverflowLogged = false;
  /** Lines dropped because they were longer than `maxLineBytes`. */
  tooLong = 0;
  /** Lines dropped because they arrived after the reader was gone. */
  afterClose = 0;
  /** Called for every message passed on (a sign of life; the message, for a recorder). */
  onLine: ((message: AnyMessage) => void) | undefined;

  constructor(logger: Logger, maxLineBytes: number) {
    this.#logger = logger;
    this.#maxLineBytes = maxLineBytes;
    this.#splitter = new LineSplitter({
      maxLineBytes,
      onLine: (line) => this.#line(line),
      onOverflow: () => {
        this.tooLong++;
        this.#logger.warn(`ACP agent wrote a stdout line longer than ${this.#maxLineBytes} bytes (dropped)`);
      },
    });
    this.readable = new ReadableStream<AnyMessage>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#closed = true;
      },
    });
  }

  /** Takes one raw chunk. */
  push(chunk: Buffer): void {
    // Split even once closed, so what arrives late is counted by line (memory stays bounded by the line cap).
    this.#splitter.push(chunk);
  }

  /** A message the SDK sends to the agent: a request's id is remembered so that its answer is let through. */
  sent(message: AnyMessage): void {
    const m = message as Record<string, unknown>;
    if (typeof m.method !== 'string' || !('id' in m)) return;
    // Bounded: past the cap the oldest id is forgotten (a request the agent never answered), not the newest.
    if (this.#pending.size >= MAX_PENDING)
      this.#pending.delete(this.#pending.values().next().value as JsonRpcId);
    this.#pending.add(m.id as JsonRpcId);
  }

  #line(raw: string): void {
    const text = raw.trim();
    if (text === '') return;
    if (this.#closed || this.#controller === undefined) {
      this.#late();
      return;
    }
    const parsed = this.#parse(text);
    if (parsed instanceof InvalidUpdate) {
      this.dropped++;
      this.invalidUpdates++;
      this.#logInvalidUpdate(parsed);
      return;
    }
    if (typeof parsed === 'string') {
      this.dropped++;
      this.#logger.warn(`ACP agent wrote ${parsed} on stdout (dropped): ${text.slice(0, SHOWN)}`);
      return;
    }
    this.onLine?.(parsed);
    try {
      this.#controller.enqueue(parsed);
    } catch {
      // The reader released the stream between our checks (cancelled from its side): the line has no taker.
      this.#closed = true;
      this.#late();
    }
  }

  /** Logs the first schema-invalid update of each kind, for a bounded number of kinds. */
  #logInvalidUpdate({ kind, problem }: InvalidUpdate): void {
    if (this.#loggedKinds.has(kind) || this.#kindsOverflowLogged) return;
    if (this.#loggedKinds.size === MAX_LOGGED_UPDATE_KINDS) {
      this.#kindsOverflowLogged = true;
      this.#logger.warn(
        `ACP agent sent schema-invalid session/updates of more than ${MAX_LOGGED_UPDATE_KINDS} kinds (dropped; further kinds are counted, not logged)`,
      );
      return;
    }
    this.#loggedKinds.add(kind);
    this.#logger.warn(
      `ACP agent sent a session/update (${kind}) that does not match the ACP schema (dropped; further ones of this kind are counted, not logged): ${problem}`,
    );
  }

  /** The message on `text`, or why it is not one this client takes. */
  #parse(text: string): AnyMessage | InvalidUpdate | string {
    if (!text.startsWith('{')) return 'a non-JSON line';
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      return `a line that is not JSON (${(error as Error).message})`;
    }
    if (!isRecord(message)) return 'a line that is not a JSON object';
    if (typeof message.method !== 'string') {
      if (!('id' in message)) return 'a message with neither method nor id';
      if (!this.#pending.delete(message.id as JsonRpcId)) return 'a response to no request of ours';
    } else if (message.method === 'session/update' && !('id' in message)) {
      const bad = sessionUpdateProblem(message.params);
      if (bad !== undefined)
        return bad.kind === undefined
          ? `a malformed session/update (${bad.problem})`
          : new InvalidUpdate(bad.kind, bad.problem);
    }
    return message as AnyMessage;
  }

  #late(): void {
    if (this.afterClose++ === 0)
      this.#logger.debug('ACP agent wrote on stdout after the connection stopped reading (dropped)');
  }

  /** End of stdout: a last unterminated line is delivered, then the stream closes. */
  end(): void {
    const last = this.#splitter.end();
    if (last !== undefined) this.#line(last);
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller?.close();
    } catch {
      // Already closed by the reader.
    }
  }
}
