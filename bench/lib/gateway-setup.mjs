// What both threads of bench/gateway-recorded.mjs set up the same way: the servers, the gateway in front of the
// replayed Chat upstream, its answer for the recording, captured once (what the direct path's Gemini server
// sends), and the forwarding proxy both measure the floor of an HTTP hop with.
import http from 'node:http';
import { createGateway } from 'agy-sdk/gateway';

/** An HTTP server on 127.0.0.1 calling `handler` once a request's body has been read. */
export function serve(handler) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/** A server's base URL. */
export const urlOf = (s) => `http://127.0.0.1:${s.address().port}`;

/**
 * The floor of any HTTP hop in Node: a server that POSTs `body` to `targetUrl` and forwards the answer as it is,
 * read for read. Resolves with the server and the keep-alive agent it calls through (destroy both when done).
 */
export async function forwardingProxy(targetUrl, body) {
  const agent = new http.Agent({ keepAlive: true });
  const server = await serve((_req, res) => {
    const up = http.request(targetUrl, { agent, method: 'POST' }, (upRes) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      upRes.on('data', (c) => res.write(c));
      upRes.on('end', () => res.end());
    });
    up.end(body);
  });
  return { server, agent };
}

/** The gateway in front of `upstreamUrl` (an OpenAI Chat server), quiet. */
export function startGateway(upstreamUrl) {
  return createGateway({
    upstream: { kind: 'openai-chat', baseUrl: `${upstreamUrl}/v1`, apiKey: 'bench' },
    modelMap: { '*': 'grok-3-mini' },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
}

/** The gateway's streamed answer to `requestBody`, as text. */
export async function captureAnswer(gw, requestBody) {
  const res = await fetch(`${gw.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.token },
    body: requestBody,
  });
  return res.text();
}
