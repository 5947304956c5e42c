// The servers of bench/gateway-recorded.mjs's two-thread row, in a worker thread of their own (its own event
// loop, on the other core): the upstream replaying the recorded Chat stream, the gateway in front of it, and the
// Gemini-speaking server sending the gateway's captured answer for the direct path. The client stays on the
// main thread, as Gemini CLI or agy run apart from the SDK host that serves the gateway. Posts their URLs, then
// closes everything on a 'close' message.
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
parentPort.postMessage({ gatewayUrl: gw.url, token: gw.token, geminiUrl: urlOf(gemini) });
parentPort.once('message', async () => {
  await gw.close();
  for (const s of [upstream, gemini]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  parentPort.close();
});
