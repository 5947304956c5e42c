// The servers of bench/gateway-recorded.mjs's two-thread rows, in a worker thread of their own (its own event
// loop, on the other core): the upstream replaying the recorded Chat stream, the gateway in front of it, the
// Gemini-speaking server sending the gateway's captured answer for the direct path, and a proxy that forwards
// that server's answer (the floor of an HTTP hop). The client stays on the main thread, as Gemini CLI or agy run
// apart from the SDK host that serves the gateway. Posts their URLs, then closes everything on a 'close' message.
import { parentPort, workerData } from 'node:worker_threads';
import { captureAnswer, forwardingProxy, serve, startGateway, urlOf } from './gateway-setup.mjs';

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
// A proxy that only forwards the Gemini server's answer, so its client gets the direct path's bytes: what the
// gateway adds beyond it is the gateway's own.
const { server: proxy, agent: proxyAgent } = await forwardingProxy(
  `${urlOf(gemini)}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
  requestBody,
);
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
