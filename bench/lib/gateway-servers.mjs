// The servers of bench/gateway-recorded.mjs's two-thread rows, in a worker thread of their own (its own event
// loop, on the other core): the upstream replaying the recorded Chat stream, the gateway in front of it, the
// Gemini-speaking server sending the gateway's captured answer for the direct path, and a proxy that forwards
// that server's answer (the floor of an HTTP hop). The client stays on the main thread, as Gemini CLI or agy run
// apart from the SDK host that serves the gateway. Posts their URLs, then closes everything on a 'close' message.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { captureAnswer, serve, startGateway, urlOf } from './gateway-setup.mjs';

const { chatBody, requestBody } = workerData;

const upstream = await serve((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(chatBody);
});
const gw = await startGateway(urlOf(upstream));
const captured = await captureAnswer(gw, requestBody);
const gemini = await serve((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(captured);
});
// The floor of any HTTP hop in Node: a proxy that only forwards the Gemini server's answer, read for read, so its
// client gets the direct path's bytes. What the gateway adds beyond it is the gateway's own.
const proxyAgent = new http.Agent({ keepAlive: true });
const geminiPath = `${urlOf(gemini)}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;
const proxy = await serve((_req, res) => {
  const up = http.request(geminiPath, { agent: proxyAgent, method: 'POST' }, (upRes) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    upRes.on('data', (c) => res.write(c));
    upRes.on('end', () => res.end());
  });
  up.end(requestBody);
});
parentPort.postMessage({
  gatewayUrl: gw.url,
  token: gw.token,
  geminiUrl: urlOf(gemini),
  proxyUrl: urlOf(proxy),
});
parentPort.once('message', async () => {
  await gw.close();
  proxyAgent.destroy();
  for (const s of [upstream, gemini, proxy]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  parentPort.close();
});
