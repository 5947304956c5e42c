/**
 * The HTTP plumbing every mock upstream shares: a real server on 127.0.0.1 (ephemeral port) that records each
 * request, asks the vendor mock for a reply (its refusal rules first, then the next queued reply, then a
 * default), and writes that reply the way a real API would — including the transport quirks the gateway must
 * survive (events split across TCP writes, a connection dropped mid-stream). Vendor mocks build on it; this
 * file knows nothing about any vendor's JSON.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { sharedPath } from '../../shared-dir.js';

/** `../shared/fixtures/upstream` (never copied into the project; test/helpers/shared-dir.ts). */
export const UPSTREAM_FIXTURES = sharedPath('fixtures/upstream');

/** Whether the upstream recordings are present (tests skip, with this reason, when they are not). */
export const HAVE_UPSTREAM_FIXTURES = existsSync(UPSTREAM_FIXTURES);
export const NO_UPSTREAM_FIXTURES_REASON = `upstream fixtures not found at ${UPSTREAM_FIXTURES}`;

/** One request a mock received. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON; `undefined` when empty or not JSON (then see `rawBody`). */
  body: unknown;
  rawBody: string;
}

/** A reply: an SSE stream, or a plain HTTP response. */
export type MockReply =
  | {
      kind: 'sse';
      /** Complete SSE frames (each ending with its blank line), written in order. */
      frames: string[];
      status?: number;
      /** Split every frame into pieces of this many bytes, each its own write (events split across TCP writes). */
      splitBytes?: number;
      /** Pause between writes, in ms (default 0: `setImmediate` between frames). */
      delayMs?: number;
      /** Destroy the connection after this many frames, without ending the body (a dropped connection). */
      dropAfter?: number;
    }
  | {
      kind: 'raw';
      status: number;
      /** Header name → value; `content-type` defaults to `application/json`. */
      headers?: Record<string, string>;
      body: string;
    };

/** What a vendor mock provides to the shared server. */
export interface MockHandler {
  /** A refusal (the vendor's error) for this request, or undefined when the real API would accept it. */
  refuse(req: RecordedRequest): MockReply | undefined;
  /** The reply when nothing is queued. */
  fallback(req: RecordedRequest): MockReply;
}

/** A running mock: records requests and plays queued replies. */
export class MockServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly queue: MockReply[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`, no trailing slash. */
    readonly origin: string,
  ) {}

  /** Starts a server on 127.0.0.1 with an ephemeral port. */
  static async start(handler: MockHandler): Promise<MockServer> {
    let self: MockServer | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        let body: unknown;
        try {
          body = rawBody === '' ? undefined : JSON.parse(rawBody);
        } catch {
          body = undefined;
        }
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body,
          rawBody,
        };
        const mock = self as MockServer;
        mock.requests.push(recorded);
        const reply = handler.refuse(recorded) ?? mock.queue.shift() ?? handler.fallback(recorded);
        void writeReply(res, reply);
      });
    });
    server.on('connection', (socket) => {
      // Small scripted frames must leave at once, as a real API's do.
      socket.setNoDelay(true);
      self?.sockets.add(socket);
      socket.on('close', () => self?.sockets.delete(socket));
    });
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => ok());
    });
    const { port } = server.address() as AddressInfo;
    self = new MockServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** Queues replies for the next requests that pass the refusal rules, in order. */
  enqueue(...replies: MockReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** How many queued replies are still unplayed. */
  get pending(): number {
    return this.queue.length;
  }

  /** Stops listening and drops open connections. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((ok) => (ms > 0 ? setTimeout(ok, ms) : setImmediate(ok)));
}

async function writeReply(res: ServerResponse, reply: MockReply): Promise<void> {
  if (reply.kind === 'raw') {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body);
    return;
  }
  res.writeHead(reply.status ?? 200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  for (const [i, frame] of reply.frames.entries()) {
    if (reply.dropAfter !== undefined && i >= reply.dropAfter) {
      res.socket?.destroy();
      return;
    }
    if (res.destroyed) return;
    const bytes = Buffer.from(frame, 'utf8');
    const size = reply.splitBytes ?? bytes.length;
    for (let at = 0; at < bytes.length; at += size) {
      res.write(bytes.subarray(at, at + size));
      // A pause between the pieces makes each piece its own TCP segment.
      if (reply.splitBytes !== undefined) await pause(reply.delayMs ?? 2);
    }
    await pause(reply.delayMs ?? 0);
  }
  if (reply.dropAfter !== undefined && reply.dropAfter >= reply.frames.length) {
    res.socket?.destroy();
    return;
  }
  res.end();
}

/** Reads a file of the upstream recordings (`<protocol>/<name>`). */
export function readFixture(relative: string): string {
  return readFileSync(resolve(UPSTREAM_FIXTURES, relative), 'utf8');
}

/** The non-empty lines of a `*.chunks.txt` recording (formats C1/C2: one `data:` payload per line). */
export function chunkLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** One HTTP exchange of a VCR cassette (format Y). */
export interface CassetteInteraction {
  request: { method: string; uri: string; parsed_body?: unknown };
  response: {
    status: { code: number };
    /** Headers as the cassette lists them (name → values). */
    headers?: Record<string, string[]>;
    body?: { string?: string };
    parsed_body?: unknown;
  };
}

/** The interactions of a cassette. */
export function cassette(text: string): CassetteInteraction[] {
  const doc = parseYaml(text) as { interactions?: CassetteInteraction[] };
  return doc.interactions ?? [];
}

/** Splits a raw SSE body into its frames (each keeps its terminating blank line), CRLF or LF. */
export function sseFrames(body: string): string[] {
  const frames: string[] = [];
  const re = /[\s\S]*?(?:\r\n\r\n|\n\n|\r\r)/y;
  let at = 0;
  for (let m = re.exec(body); m !== null && m[0] !== ''; m = re.exec(body)) {
    frames.push(m[0]);
    at = re.lastIndex;
  }
  if (at < body.length && body.slice(at).trim() !== '') frames.push(body.slice(at));
  return frames;
}

/** A cassette interaction's response as a reply: the SSE body verbatim, or the JSON body. */
export function cassetteReply(interaction: CassetteInteraction): MockReply {
  const { response } = interaction;
  const sse = response.body?.string;
  if (sse !== undefined && sse !== '')
    return { kind: 'sse', status: response.status.code, frames: sseFrames(sse) };
  return { kind: 'raw', status: response.status.code, body: JSON.stringify(response.parsed_body ?? {}) };
}

/** A `retry-after` header when `seconds` is given. */
export function retryAfter(seconds: number | undefined): Record<string, string> {
  return seconds === undefined ? {} : { 'retry-after': String(seconds) };
}

/** A JSON reply. */
export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): MockReply {
  return { kind: 'raw', status, headers, body: JSON.stringify(body) };
}

/** Scripted model output every vendor mock can render in its own protocol. */
export interface ScriptedTurn {
  /** What the model produces, in order. */
  parts: ScriptPart[];
  /** Token counts reported at the end (defaults: 10 in, 5 out). */
  usage?: { input?: number; output?: number; cached?: number; reasoning?: number };
  /** Transport quirks applied to the rendered frames. */
  splitBytes?: number;
  delayMs?: number;
  /** Drop the connection after this many frames (mid-stream failure). */
  dropAfter?: number;
}

/** One piece of scripted output. */
export type ScriptPart =
  | { text: string; chunks?: number }
  | { thinking: string; signature?: string }
  | {
      toolCall: {
        /** The upstream call id; generated when absent. */
        id?: string;
        name: string;
        args: Record<string, unknown>;
        /** How many argument deltas the JSON is split into (default 3). */
        split?: number;
      };
    };

/** Splits `text` into `count` non-empty pieces (fewer when shorter). */
export function pieces(text: string, count: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(count, chars.length));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      chars.slice(Math.floor((i * chars.length) / n), Math.floor(((i + 1) * chars.length) / n)).join(''),
    );
  }
  return out.filter((piece) => piece !== '');
}
