/**
 * The agent's stdout as the ACP SDK's message stream: one JSON-RPC message per line, parsed here, so that what
 * is not a message this client can take is logged through the configured logger and dropped before the SDK
 * sees it (the SDK reports such messages with `console.error`, past the logger): a stray `console.log` of the
 * agent or a banner, a line that is not a JSON object, a message with neither `method` nor `id`, a response to
 * a request we never sent (or already got an answer to), a `session/update` without its `sessionId` and
 * `update.sessionUpdate`.
 *
 * Framing is the agy path's `LineSplitter` (one growable buffer, so a long line costs linear time; bytes, so a
 * UTF-8 character split across chunks is safe), with its line cap: a line over `maxLineBytes` is dropped as
 * it streams, counted and logged. Stdout that arrives after the SDK stopped reading (the connection was closed
 * during a turn) is dropped and counted, never thrown into the stdout `data` handler.
 */
import type { AnyMessage } from '@agentclientprotocol/sdk';
import type { Logger } from '../../logger.js';
import { LineSplitter } from '../process/line-splitter.js';

/** Bytes of a dropped line shown in the log. */
const SHOWN = 200;
/** Requests of ours remembered as awaiting an answer, at most (an answer must name one of them). */
const MAX_PENDING = 10_000;

type JsonRpcId = string | number | null;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  /** Lines dropped because they were not messages this client takes (not JSON, not JSON-RPC, unknown id). */
  dropped = 0;
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

  /** The message on `text`, or why it is not one this client takes. */
  #parse(text: string): AnyMessage | string {
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
      const p = message.params;
      if (!isRecord(p) || typeof p.sessionId !== 'string' || !isRecord(p.update))
        return 'a malformed session/update';
      if (typeof p.update.sessionUpdate !== 'string') return 'a malformed session/update';
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
