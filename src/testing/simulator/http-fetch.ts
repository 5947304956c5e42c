/**
 * The `fetch` the simulator's MCP client (Streamable HTTP) uses: `node:http` with a keep-alive agent, answering
 * a WHATWG `Response` whose body streams as it arrives (SSE included). Node's global `fetch` (undici) compiles
 * its HTTP parser to WebAssembly on the first request: about 30 ms of CPU in every simulator process, an eighth
 * of its whole start work (bench/many-agents.mjs), which real agy, a Go binary, does not pay. Redirects are
 * not followed here; the MCP SDK follows same-origin ones itself (`redirect: 'manual'`). Like Go's transport, a
 * request that failed on a reused connection before reaching the server is sent again once.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { failedOnStaleSocket } from '../../internal/stale-socket.js';

/** The subset of `fetch` the MCP SDK's transport calls. */
export type FetchFunction = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A `fetch` over `node:http(s)`, its connections kept alive by its own agents (closed with `close`). */
export function createHttpFetch(): { fetch: FetchFunction; close(): void } {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
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
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, key) => {
        headers[key] = value;
      });
      const body = init.body;
      if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
        reject(new TypeError('httpFetch sends string and byte bodies only'));
        return;
      }
      const request = (secure ? https : http).request(url, {
        method: init.method ?? 'GET',
        headers,
        agent: secure ? agents.https : agents.http,
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
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(key, v);
        }
        const status = res.statusCode ?? 0;
        const empty = status === 204 || status === 304 || init.method === 'HEAD';
        if (empty) res.resume();
        resolve(
          new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status,
            statusText: res.statusMessage ?? '',
            headers: responseHeaders,
          }),
        );
      });
      request.end(body ?? undefined);
    });
  return {
    fetch,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
