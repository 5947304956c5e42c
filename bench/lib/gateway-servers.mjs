// The servers of bench/gateway-recorded.mjs's two-thread row, in a worker thread of their own (its own event
// loop, on the other core): the upstream replaying the recorded Chat stream, the gateway in front of it, and the
// Gemini-speaking server sending the gateway's captured answer for the direct path. The client stays on the
// main thread, as Gemini CLI or agy run apart from the SDK host that serves the gateway. Posts their URLs, then
// closes everything on a 'close' message.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { createGateway } from 'agy-sdk/gateway';

const { chatBody, requestBody } = workerData;

function serve(handler) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}
const urlOf = (s) => `http://127.0.0.1:${s.address().port}`;

const upstream = await serve((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(chatBody);
});
const gw = await createGateway({
  upstream: { kind: 'openai-chat', baseUrl: `${urlOf(upstream)}/v1`, apiKey: 'bench' },
  modelMap: { '*': 'grok-3-mini' },
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
const captured = await (
  await fetch(`${gw.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.token },
    body: requestBody,
  })
).text();
const gemini = await serve((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(captured);
});
parentPort.postMessage({ gatewayUrl: gw.url, token: gw.token, geminiUrl: urlOf(gemini) });
parentPort.once('message', async () => {
  await gw.close();
  for (const s of [upstream, gemini]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  parentPort.close();
});
