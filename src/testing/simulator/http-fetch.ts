/**
 * The HTTP client of the simulator's MCP client (Streamable HTTP): `node:http` with a keep-alive agent, answering
 * what the client reads of a response (`status`, `ok`, `headers.get`, the body as it arrives, SSE included, or
 * whole with `text()`). Not Node's global `fetch`: real agy, a Go binary, pays nothing like what that costs a
 * process that uses it once:
 * - the first request compiles undici's HTTP parser to WebAssembly, about 30 ms of CPU;
 * - touching any of the globals `fetch`, `Headers`, `Request` or `Response` loads all of undici first, about 28 ms
 *   of CPU, an eighth of a simulator's whole start work (bench/many-agents.mjs).
 *
 * Redirects are not followed here; the MCP client follows same-origin ones itself (`mcp-client.ts`). Like Go's
 * transport, a request that failed on a reused connection before reaching the server is sent again once.
 *
 * `node:http` and `node:https` are required on first use: every simulator loads this module, but only one that
 * connects an MCP server over HTTP needs `http`, after `init`, and `https` (with TLS) only for an `https:` URL.
 * A simulator's boot loads 96 internal modules instead of 112 and spends ~2–4 ms less CPU (of ~175–265 ms).
 */

import type { Agent, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { failedOnStaleSocket } from '../../internal/stale-socket.js';

const require = createRequire(import.meta.url);

/** `node:https` for an `https:` URL, else `node:http` (the two share the API used here). */
function transport(secure: boolean): typeof import('node:http') {
  return secure ? (require('node:https') as typeof import('node:http')) : require('node:http');
}

/** One request. */
export interface HttpRequestInit {
  /** The method; GET by default. */
  method?: string | undefined;
  /** The request headers (names in any case; a name given twice in two cases gets both values, joined). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The body. */
  body?: string | Uint8Array | undefined;
  /** Aborts the request, or the body being read. */
  signal?: AbortSignal | undefined;
}

/** What the simulator's MCP client calls to send one request. */
export type FetchFunction = (url: string | URL, init?: HttpRequestInit) => Promise<HttpFetchResponse>;

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
  const send = (input: string | URL, init: HttpRequestInit, mayRetry: boolean): Promise<HttpFetchResponse> =>
    new Promise<HttpFetchResponse>((resolve, reject) => {
      const url = typeof input === 'string' ? new URL(input) : input;
      const secure = url.protocol === 'https:';
      const signal = init.signal;
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
        resolve(new HttpFetchResponse(res, url.href, init.method));
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

/** Request headers with their names lower-cased; a name given in two cases gets both values, joined by `", "`. */
export function headerRecord(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  }
  return out;
}

/** What {@link createHttpFetch} answers: the part of a `Response` the simulator's MCP client reads. */
export class HttpFetchResponse {
  /** The HTTP status. */
  readonly status: number;
  /** The reason phrase. */
  readonly statusText: string;
  /** Whether the status is 2xx. */
  readonly ok: boolean;
  /** The requested URL (redirects are not followed). */
  readonly url: string;
  /** The response headers, read by name in any case (a repeated header's values joined as Node joins them). */
  readonly headers: { get(name: string): string | null };
  /** The body as it arrives, or `null` for 204, 304 and HEAD. */
  readonly body: HttpFetchBody | null;

  constructor(res: IncomingMessage, url: string, method: string | undefined) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.url = url;
    const raw = res.headers;
    this.headers = {
      get(name: string): string | null {
        const value = raw[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    };
    const empty = this.status === 204 || this.status === 304 || method === 'HEAD';
    if (empty) res.resume();
    this.body = empty ? null : new HttpFetchBody(res);
  }

  /** Whether the body has been read, or is being read. */
  get bodyUsed(): boolean {
    return this.body?.used ?? false;
  }

  /** The whole body, decoded as UTF-8. */
  async text(): Promise<string> {
    if (!this.body) return '';
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of this.body) text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  }
}

/** A response's body: its chunks as they arrive (once), or discarded with `cancel()`. */
export class HttpFetchBody implements AsyncIterable<Uint8Array> {
  readonly #res: IncomingMessage;
  #used = false;

  constructor(res: IncomingMessage) {
    this.#res = res;
  }

  /** Whether the body has been iterated (it can be only once). */
  get used(): boolean {
    return this.#used;
  }

  /** Discards the body (ends the response). */
  async cancel(): Promise<void> {
    this.#used = true;
    this.#res.destroy();
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.#used) throw new TypeError('the body has already been read');
    this.#used = true;
    return this.#res[Symbol.asyncIterator]();
  }
}
