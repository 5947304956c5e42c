// Gateway overhead: the same mock OpenAI Chat upstream called directly and through `createGateway`, same run,
// requests alternated so both paths share the machine's noise. Reports added time to first byte (p50/p99),
// added latency per chunk (each upstream delta carries its send time), chunks/s through the gateway, and
// memory over one long stream (BENCH_GATEWAY_LONG_S, default 30 s; the figure is 600 s).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createGateway } from 'agy-sdk/gateway';
import { fmt, summarize } from './stats.mjs';

const ITERATIONS = Number(process.env.BENCH_GATEWAY_ITER ?? 300);
const CHUNKS = Number(process.env.BENCH_GATEWAY_CHUNKS ?? 40);
const LONG_S = Number(process.env.BENCH_GATEWAY_LONG_S ?? 30);
const now = () => performance.timeOrigin + performance.now();
const tick = () => new Promise((r) => setImmediate(r));

function chunk(content) {
  return `data: {"id":"c","model":"mock","choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
}
const END =
  'data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' +
  'data: {"id":"c","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":40,"total_tokens":45}}\n\ndata: [DONE]\n\n';

async function startMock() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.socket.setNoDelay(true);
      const long = body.includes('LONG');
      const until = long ? Date.now() + LONG_S * 1000 : 0;
      for (let i = 0; long ? Date.now() < until : i < CHUNKS; i++) {
        if (res.destroyed) return;
        // Respect backpressure, as a real upstream's TCP stack would.
        if (!res.write(chunk(`${now()}|`))) await new Promise((r) => res.once('drain', r));
        else await tick();
      }
      res.end(END);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

const agent = new http.Agent({ keepAlive: true });

/** One streamed request; returns TTFB, per-chunk latencies, chunk count and total time. */
function stream(url, body, headers, extract, keepLatencies = true) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    let ttfb;
    const latencies = [];
    let pending = '';
    let chunks = 0;
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (data) => {
          const arrived = now();
          ttfb ??= arrived - t0;
          pending += data;
          // Gemini frames end in CRLF CRLF, OpenAI's in LF LF.
          let m = /\r?\n\r?\n/.exec(pending);
          while (m) {
            const frame = pending.slice(0, m.index).trim();
            pending = pending.slice(m.index + m[0].length);
            if (frame.startsWith('data: ') && frame !== 'data: [DONE]') {
              const sent = extract(JSON.parse(frame.slice(6)));
              if (sent !== undefined) {
                if (keepLatencies) latencies.push(arrived - sent);
                chunks++;
              }
            }
            m = /\r?\n\r?\n/.exec(pending);
          }
        });
        res.on('end', () => resolve({ ttfb, latencies, chunks, total: now() - t0 }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const fromChat = (e) => {
  const c = e.choices?.[0]?.delta?.content;
  return c ? Number(c.split('|')[0]) : undefined;
};
const fromGemini = (e) => {
  const t = e.candidates?.[0]?.content?.parts?.[0]?.text;
  return t ? Number(t.split('|')[0]) : undefined;
};

export async function run() {
  const mock = await startMock();
  const gw = await createGateway({
    upstream: { kind: 'openai-chat', baseUrl: `${mock.url}/v1`, apiKey: 'bench' },
    modelMap: { '*': 'mock' },
  });
  const direct = { ttfb: [], perChunk: [], total: [] };
  const via = { ttfb: [], perChunk: [], total: [] };
  let viaChunks = 0;
  let viaTime = 0;
  const chatBody = { model: 'mock', stream: true, messages: [{ role: 'user', content: 'hi' }] };
  const geminiBody = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
  const gwUrl = `${gw.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;
  try {
    for (let i = 0; i < ITERATIONS + 20; i++) {
      const d = await stream(
        `${mock.url}/v1/chat/completions`,
        chatBody,
        { authorization: 'Bearer bench' },
        fromChat,
      );
      const g = await stream(gwUrl, geminiBody, { 'x-goog-api-key': gw.token }, fromGemini);
      if (i < 20) continue; // warm-up: JIT, sockets
      direct.ttfb.push(d.ttfb);
      direct.perChunk.push(...d.latencies);
      via.ttfb.push(g.ttfb);
      via.perChunk.push(...g.latencies);
      viaChunks += g.chunks;
      viaTime += g.total;
    }
    const dT = summarize(direct.ttfb);
    const gT = summarize(via.ttfb);
    const dC = summarize(direct.perChunk);
    const gC = summarize(via.perChunk);

    // One long stream: heap and RSS sampled every second must stay flat.
    const samples = [];
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      samples.push({ heap: m.heapUsed / 2 ** 20, rss: m.rss / 2 ** 20 });
    }, 1000);
    const long = await stream(
      gwUrl,
      { contents: [{ role: 'user', parts: [{ text: 'LONG' }] }] },
      { 'x-goog-api-key': gw.token },
      fromGemini,
      false,
    );
    clearInterval(sampler);
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const avg = (xs, k) => xs.reduce((s, x) => s + x[k], 0) / Math.max(1, xs.length);
    const early = samples.slice(quarter, 2 * quarter);
    const late = samples.slice(-quarter);
    return {
      iterations: ITERATIONS,
      chunksPerStream: CHUNKS,
      ttfbDirectP50Ms: fmt(dT.p50),
      ttfbGatewayP50Ms: fmt(gT.p50),
      addedTtfbP50Ms: fmt(gT.p50 - dT.p50),
      addedTtfbP99Ms: fmt(gT.p99 - dT.p99),
      chunkLatencyDirectP50Ms: fmt(dC.p50),
      chunkLatencyGatewayP50Ms: fmt(gC.p50),
      addedPerChunkP50Ms: fmt(gC.p50 - dC.p50),
      addedPerChunkP99Ms: fmt(gC.p99 - dC.p99),
      gatewayChunksPerSec: Math.round((viaChunks / viaTime) * 1000),
      longStreamSeconds: LONG_S,
      longStreamChunks: long.chunks,
      heapEarlyMb: fmt(avg(early, 'heap'), 1),
      heapLateMb: fmt(avg(late, 'heap'), 1),
      rssEarlyMb: fmt(avg(early, 'rss'), 1),
      rssLateMb: fmt(avg(late, 'rss'), 1),
      ratioTtfbP50: fmt(gT.p50 / dT.p50, 2),
    };
  } finally {
    await gw.close();
    agent.destroy();
    mock.server.closeAllConnections();
    await new Promise((r) => mock.server.close(r));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
