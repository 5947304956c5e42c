/**
 * The `fetch` the simulator's MCP client (Streamable HTTP) uses: `node:http` with a keep-alive agent, answering
 * a `Response`-shaped object whose body streams as it arrives (SSE included). Real agy, a Go binary, pays
 * nothing like what Node's own `fetch` costs a process that uses it once:
 * - the first request compiles undici's HTTP parser to WebAssembly, about 30 ms of CPU;
 * - touching any of the globals `fetch`, `Headers`, `Request` or `Response` loads all of undici first, about 28 ms
 *   of CPU, an eighth of a simulator's whole start work (bench/many-agents.mjs).
 *
 * So this module touches none of them: headers, both ways, are the simulator's own `Headers` (`mcp-headers.ts`),
 * and the answer is an {@link HttpFetchResponse}, the part of a `Response` a client reads (`ok`, `status`,
 * `statusText`, `url`, `headers.get`, `body`, `text()`, `json()`). Redirects are not followed here; the MCP
 * client follows same-origin ones itself (`mcp-client.ts`). Like Go's transport, a request that failed on a
 * reused connection before reaching the server is sent again once.
 *
 * `node:http` and `node:https` are required on first use: every simulator loads this module, but only one that
 * connects an MCP server over HTTP needs `http`, after `init`, and `https` (with TLS) only for an `https:` URL.
 * A simulator's boot loads 96 internal modules instead of 112 and spends ~2–4 ms less CPU (of ~175–265 ms).
 */

import type { Agent, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { ReadableWritablePair, StreamPipeOptions } from 'node:stream/web';
import { failedOnStaleSocket } from '../../internal/stale-socket.js';
import { Headers, type HeadersSource } from './mcp-headers.js';

const require = createRequire(import.meta.url);

/** `node:https` for an `https:` URL, else `node:http` (the two share the API used here). */
function transport(secure: boolean): typeof import('node:http') {
  return secure ? (require('node:https') as typeof import('node:http')) : require('node:http');
}

/** The subset of `fetch` the simulator's MCP client calls. */
export type FetchFunction = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A `fetch` over `node:http(s)`, its connections kept alive by its own agents (closed with `close`). */
export function createHttpFetch(): { fetch: FetchFunction; close(): void } {
  // One keep-alive agent per scheme, made with its first request.
  const agents: { http?: Agent; https?: Agent } = {};
  const agentFor = (secure: boolean): Agent => {
    const scheme = secure ? 'https' : 'http';
    let agent = agents[scheme];
    if (agent === undefined) {
      agent = new (transport(secure).Agent)({ keepAlive: true });
      agents[scheme] = agent;
    }
    return agent;
  };
  const fetch: FetchFunction = (input, init = {}) => send(input, init, true);
  const send = (input: string | URL, init: RequestInit, mayRetry: boolean): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const url = typeof input === 'string' ? new URL(input) : input;
      const secure = url.protocol === 'https:';
      const signal = init.signal ?? undefined;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const headers = headerRecord(init.headers);
      const body = init.body;
      if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
        reject(new TypeError('httpFetch sends string and byte bodies only'));
        return;
      }
      const request = transport(secure).request(url, {
        method: init.method ?? 'GET',
        headers,
        agent: agentFor(secure),
        ...(signal ? { signal } : {}),
      });
      let answered = false;
      // `on`, not `once`: an error after the answer (an abort mid-stream) reaches the body's stream, and must
      // not find the request without a listener.
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed just as it was reused: sent once more on a fresh connection.
        if (mayRetry && failedOnStaleSocket(request, error, answered)) {
          resolve(send(input, init, false));
          return;
        }
        reject(error);
      });
      request.once('response', (res) => {
        answered = true;
        resolve(new HttpFetchResponse(res, url.href, init.method) as unknown as Response);
      });
      request.end(body ?? undefined);
    });
  return {
    fetch,
    close: () => {
      agents.http?.destroy();
      agents.https?.destroy();
    },
  };
}

/** Request headers from any `HeadersInit` (a `Headers`, pairs, or a record), names lower-cased, repeats joined. */
export function headerRecord(init: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(init as HeadersSource));
}

/** What {@link createHttpFetch} answers: the part of `Response` a client reads. */
export class HttpFetchResponse {
  /** The HTTP status. */
  readonly status: number;
  /** The reason phrase. */
  readonly statusText: string;
  /** Whether the status is 2xx. */
  readonly ok: boolean;
  /** The requested URL (redirects are not followed). */
  readonly url: string;
  /** Always false: redirects are not followed. */
  readonly redirected = false;
  /** The response headers. */
  readonly headers = new Headers();
  /** The body as it arrives, or `null` for 204, 304 and HEAD. */
  readonly body: HttpFetchBody | null;
  readonly #res: IncomingMessage;
  #read = false;

  constructor(res: IncomingMessage, url: string, method: string | undefined) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.url = url;
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) this.headers.append(name, v);
    }
    const empty = this.status === 204 || this.status === 304 || method === 'HEAD';
    if (empty) res.resume();
    this.#res = res;
    this.body = empty ? null : new HttpFetchBody(res);
  }

  /** Whether the body has been read by `text()`/`json()`, or is being read through `body`. */
  get bodyUsed(): boolean {
    return this.#read || (this.body?.locked ?? false);
  }

  /** The whole body, decoded as UTF-8. */
  async text(): Promise<string> {
    if (this.bodyUsed) throw new TypeError('the body has already been read');
    this.#read = true;
    if (!this.body) return '';
    const decoder = new TextDecoder();
    let text = '';
    // The Node stream itself: no web stream is made for a body read whole.
    for await (const chunk of this.#res as AsyncIterable<Buffer>)
      text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  }

  /** The whole body, parsed as JSON. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

/**
 * The part of a `ReadableStream` a client uses of a body: `cancel()` (after a 202 or an error status), and for
 * an SSE answer `pipeThrough()`, `getReader()` or iteration. The web stream is made on first use as one: making
 * it loads Node's web streams (about 4 ms of CPU), which a simulator whose servers answer JSON, as the SDK's own
 * listener does, never needs. `cancel()` before then ends the response as the web
 * stream's would (it destroys it).
 */
export class HttpFetchBody {
  readonly #res: IncomingMessage;
  #web: ReadableStream<Uint8Array> | undefined;

  constructor(res: IncomingMessage) {
    this.#res = res;
  }

  /** The body as a web stream, made on first use. */
  get stream(): ReadableStream<Uint8Array> {
    this.#web ??= Readable.toWeb(this.#res) as ReadableStream<Uint8Array>;
    return this.#web;
  }

  /** Whether a reader holds the web stream. */
  get locked(): boolean {
    return this.#web?.locked ?? false;
  }

  /** Discards the body. */
  cancel(reason?: unknown): Promise<void> {
    if (this.#web) return this.#web.cancel(reason);
    this.#res.destroy();
    return Promise.resolve();
  }

  /** See `ReadableStream.getReader`. */
  getReader(): ReadableStreamDefaultReader<Uint8Array> {
    return this.stream.getReader();
  }

  /** See `ReadableStream.pipeThrough`. */
  pipeThrough<T>(
    transform: ReadableWritablePair<T, Uint8Array>,
    options?: StreamPipeOptions,
  ): ReadableStream<T> {
    return this.stream.pipeThrough(transform, options);
  }

  /** Iterates the web stream. */
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.stream[Symbol.asyncIterator]();
  }
}
