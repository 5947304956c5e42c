// Gateway cost on a recorded provider stream, with the same real client on both paths
// (test/fixtures/upstream-providers/xai/xai-text.chunks.txt: 343 Chat chunks from xAI, recorded by vercel/ai).
// Baseline: @google/genai streams the Gemini answer of that recording from a Gemini-speaking server on
// 127.0.0.1 (the bytes the gateway produced for it, captured once). Measured: the same client streams through
// the gateway from a server replaying the recorded Chat stream. Both servers send their whole body at once, so
// the difference is the gateway: added p50/p99 wall time per request and added CPU per translated upstream event
// (this process runs client, servers and gateway; CPU is process CPU of the gateway path minus the baseline
// path). The same with a bare node:http client instead of @google/genai (whose own CPU varies more than the
// gateway costs), and beside it a proxy that only forwards the upstream body: the floor any HTTP hop in Node
// pays, which the gateway's own figure includes. The bare client's figures (gateway and proxy) are also split
// into a fixed part per request and a part per event: the slope between the recording and the recording with
// its deltas three times over. The proxy's slope is the method's own error: a forwarding hop costs nothing per
// event, so a slope below zero there means the direct path grew faster than linearly, and the gateway's slope
// is low by as much. The @google/genai figures are not split: the client's own parsing depends on how the body
// arrives (the gateway's 64-frame writes against one read of the whole body), which the slope would mix in.
// Then the @google/genai paths again with the servers in a worker thread (the client apart from the gateway, as
// deployed), and the same two paths read by a bare node:http client (the gateway's added wall time to the first
// and the last byte, without @google/genai's variance); on both clients, beside the gateway, a proxy that only
// forwards the Gemini server's answer: the wall time any HTTP hop in Node adds here, the gateway's floor. Then heap after a forced GC at the start and the end of a
// long stream (1 M events or 20 s of sending, whichever ends first).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { GoogleGenAI } from '@google/genai';
import { StreamingSink } from '../dist/gateway/gemini-sink.js';
import { parseGenerateContentRequest } from '../dist/gateway/gemini-types.js';
import { normalizeRequest } from '../dist/gateway/normalize-request.js';
import { SseWriter } from '../dist/gateway/sse-writer.js';
import { openAIChatUpstream } from '../dist/gateway/upstream/openai-chat.js';
import { createSseDecoder } from '../dist/gateway/upstream/sse-parse.js';
import { captureAnswer, forwardingProxy, serve, startGateway, urlOf } from './lib/gateway-setup.mjs';
import { cpuMs, fmt, summarize } from './stats.mjs';

const ITERATIONS = Number(process.env.BENCH_GATEWAY_REC_ITER ?? 200);
const LONG_EVENTS = Number(process.env.BENCH_GATEWAY_LONG_EVENTS ?? 1_000_000);
// The long stream also ends after this long, so the bench's time does not scale with the machine's speed (1 M
// events took 30 s on one machine of this kind and 165 s on a slower one, which put `npm run bench` over 10 min).
const LONG_SECONDS = Number(process.env.BENCH_GATEWAY_LONG_SECONDS ?? 20);
const FILE = new URL('../test/fixtures/upstream-providers/xai/xai-text.chunks.txt', import.meta.url);

const lines = readFileSync(FILE, 'utf8')
  .split('\n')
  .filter((l) => l.trim().length > 0);
/** The recording with its deltas (all but the last two events: finish, usage) `times` times over. */
function chatBody(times) {
  const frame = (l) => `data: ${l}\n\n`;
  const deltas = lines.slice(0, -2).map(frame).join('');
  return `${deltas.repeat(times)}${lines.slice(-2).map(frame).join('')}data: [DONE]\n\n`;
}
const CHAT_BODY = chatBody(1);
/**
 * The gateway's cost is a fixed part per request plus a part per event (the issue's own model: "0.8 ms per
 * request plus 7 µs per event"). Both are read from two stream lengths measured alternately: the recording
 * and the recording with its deltas LONG_TIMES over. The per-event part is the slope between them.
 */
const LONG_TIMES = 3;
const LENGTHS = [
  { body: CHAT_BODY, events: lines.length },
  { body: chatBody(LONG_TIMES), events: (lines.length - 2) * LONG_TIMES + 2 },
];
/** Fixed and per-event parts of an added cost (ms) measured at both LENGTHS. */
function split([short, long]) {
  const perEvent = (long - short) / (LENGTHS[1].events - LENGTHS[0].events);
  return { perRequestMs: short - perEvent * LENGTHS[0].events, perEventUs: perEvent * 1000 };
}

async function drain(client) {
  let n = 0;
  const stream = await client.models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'hi',
    config: { thinkingConfig: { includeThoughts: true } },
  });
  for await (const chunk of stream) if (chunk.candidates) n++;
  return n;
}

/**
 * CPU per upstream event of the translation alone (SSE decode, schema read, translation, Gemini framing into a
 * response that discards the bytes), in this process, no HTTP: the part of the gateway's cost that is its own.
 * Early (the `rounds` right after a short warm-up) and steady (after ~100 k more events).
 */
function translateOnly(rounds) {
  const upstream = openAIChatUpstream({ kind: 'openai-chat', baseUrl: 'http://127.0.0.1/v1', apiKey: 'k' });
  const req = normalizeRequest(
    parseGenerateContentRequest({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    }),
    'gemini-2.5-flash',
    'grok-3-mini',
  );
  const res = {
    destroyed: false,
    socket: null,
    writableNeedDrain: false,
    writeHead() {},
    flushHeaders() {},
    write() {
      return true;
    },
    uncork() {},
    end() {},
  };
  const once = () => {
    const sink = new StreamingSink(new SseWriter(res, 0));
    const translator = upstream.createTranslator(req, sink);
    const decoder = createSseDecoder((event, data) => translator.event(event, data));
    decoder.feed(CHAT_BODY);
    decoder.end();
    translator.end();
  };
  for (let i = 0; i < 50; i++) once();
  const perEvent = (n) => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) once();
    return (cpuMs(c0) * 1000) / (n * lines.length);
  };
  const early = perEvent(rounds);
  // A gateway serves streams for as long as its host runs. The figure falls over a process's first ~150 k
  // translated events (JIT tier-up; measured on Node 20 in blocks of 34 k: 6.0, 2.4, 2.1, 1.7, then 1.4–2.2);
  // after ~100 k more than the early rounds (~190 k in all), the steady cost.
  perEvent(Math.ceil(100_000 / lines.length));
  return { early, steady: perEvent(Math.max(rounds, 1000)) };
}

/**
 * The same client on both paths, with the servers (upstream, gateway, Gemini server) in a worker thread of their
 * own: as deployed, the client (Gemini CLI, agy) is another process than the SDK host serving the gateway, so
 * the gateway's work overlaps the client's reading instead of queueing behind it on one thread. Added p50/p99
 * wall time per request, rounds alternating.
 */
async function twoThreads(requestBody) {
  const worker = new Worker(new URL('./lib/gateway-servers.mjs', import.meta.url), {
    workerData: { chatBody: CHAT_BODY, requestBody },
  });
  const urls = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    const direct = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: urls.geminiUrl } });
    const via = new GoogleGenAI({ apiKey: urls.token, httpOptions: { baseUrl: urls.gatewayUrl } });
    const viaProxy = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: urls.proxyUrl } });
    const wall = { direct: [], via: [], proxy: [] };
    const timed = async (client) => {
      const t0 = performance.now();
      await drain(client);
      return performance.now() - t0;
    };
    for (let i = 0; i < ITERATIONS + 20; i++) {
      const d = await timed(direct);
      const g = await timed(via);
      const p = await timed(viaProxy);
      if (i < 20) continue;
      wall.direct.push(d);
      wall.via.push(g);
      wall.proxy.push(p);
    }
    const d = summarize(wall.direct);
    const g = summarize(wall.via);
    // The same two paths read by a bare node:http client: the gateway's added wall time without
    // @google/genai's own variance (its ~40 ms per request moves the figures above by more than the goal).
    // Paired: the median of each alternated pair's difference, to the first byte and to the last.
    const agent = new http.Agent({ keepAlive: true });
    const ask = (url, headers) =>
      new Promise((resolve, reject) => {
        const t0 = performance.now();
        let first;
        const req = http.request(
          `${url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
          { agent, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
          (res) => {
            res.on('data', () => {
              first ??= performance.now() - t0;
            });
            res.on('end', () => resolve({ first, last: performance.now() - t0 }));
          },
        );
        req.on('error', reject);
        req.end(requestBody);
      });
    const bare = { direct: [], first: [], last: [], proxyFirst: [], proxyLast: [] };
    try {
      for (let i = 0; i < 2 * ITERATIONS + 50; i++) {
        const a = await ask(urls.geminiUrl, {});
        const b = await ask(urls.gatewayUrl, { 'x-goog-api-key': urls.token });
        const p = await ask(urls.proxyUrl, {});
        if (i < 50) continue;
        bare.direct.push(a.last);
        bare.first.push(b.first - a.first);
        bare.last.push(b.last - a.last);
        bare.proxyFirst.push(p.first - a.first);
        bare.proxyLast.push(p.last - a.last);
      }
    } finally {
      agent.destroy();
    }
    return {
      directP50Ms: d.p50,
      addedP50Ms: g.p50 - d.p50,
      addedP99Ms: g.p99 - d.p99,
      bareDirectP50Ms: summarize(bare.direct).p50,
      bareAddedFirstByteP50Ms: summarize(bare.first).p50,
      bareAddedLastByteP50Ms: summarize(bare.last).p50,
      proxyAddedP50Ms: summarize(wall.proxy).p50 - d.p50,
      bareProxyAddedFirstByteP50Ms: summarize(bare.proxyFirst).p50,
      bareProxyAddedLastByteP50Ms: summarize(bare.proxyLast).p50,
    };
  } finally {
    worker.postMessage('close');
    await new Promise((resolve) => worker.once('exit', resolve));
  }
}

export async function run() {
  const translate = translateOnly(Math.max(50, ITERATIONS));
  let long = false;
  /** Events the long stream sent before its count or its time ran out. */
  let longSent = 0;
  /** Which of LENGTHS the servers answer (requests are sequential). */
  let length = 0;
  const upstream = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (!long) return res.end(LENGTHS[length].body);
    // A long stream: the recorded reasoning chunks over and over, then the recorded end.
    const body = lines
      .slice(0, 300)
      .map((l) => `data: ${l}\n\n`)
      .join('');
    let sent = 0;
    const deadline = performance.now() + LONG_SECONDS * 1000;
    const pump = () => {
      while (sent < LONG_EVENTS && performance.now() < deadline) {
        sent += 300;
        if (!res.write(body)) return res.once('drain', pump);
      }
      longSent = sent;
      res.end(
        `${lines
          .slice(-2)
          .map((l) => `data: ${l}\n\n`)
          .join('')}data: [DONE]\n\n`,
      );
    };
    pump();
  });
  const gw = await startGateway(urlOf(upstream));
  // The gateway's answer for the recording, captured once: what the baseline server sends.
  const captured = await captureAnswer(
    gw,
    JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    }),
  );
  const gemini = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(captured);
  });
  const direct = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: urlOf(gemini) } });
  const via = new GoogleGenAI({ apiKey: gw.token, httpOptions: { baseUrl: gw.url } });
  const wall = { direct: [], via: [] };
  const cpu = { direct: 0, via: 0 };
  let chunks = 0;
  try {
    for (let i = 0; i < ITERATIONS + 20; i++) {
      let c0 = process.cpuUsage();
      let t0 = performance.now();
      await drain(direct);
      const dWall = performance.now() - t0;
      const dCpu = cpuMs(c0);
      c0 = process.cpuUsage();
      t0 = performance.now();
      chunks = await drain(via);
      const gWall = performance.now() - t0;
      const gCpu = cpuMs(c0);
      if (i < 20) continue; // warm-up
      wall.direct.push(dWall);
      wall.via.push(gWall);
      cpu.direct += dCpu;
      cpu.via += gCpu;
    }
    // The gateway's own share without @google/genai's variance: a bare node:http client reading the gateway's
    // answer, against the same client reading the recorded Chat body from the upstream directly.
    const agent = new http.Agent({ keepAlive: true });
    const rawBody = JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    });
    const rawAsk = (url, headers) =>
      new Promise((resolve, reject) => {
        const req = http.request(url, { agent, method: 'POST', headers }, (res) => {
          res.on('data', () => {});
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end(rawBody);
      });
    const gwUrl = `${gw.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;
    const gwHeaders = { 'content-type': 'application/json', 'x-goog-api-key': gw.token };
    const upUrl = `${urlOf(upstream)}/v1/chat/completions`;
    // The floor of any HTTP hop in Node: a proxy that forwards the upstream's body as it is.
    const { server: proxy, agent: proxyAgent } = await forwardingProxy(upUrl, rawBody);
    /** Added CPU (ms, summed over the measured rounds) at each of LENGTHS: the gateway, the forwarding proxy. */
    const rawAdded = [0, 0];
    const proxyAdded = [0, 0];
    for (let i = 0; i < ITERATIONS + 20; i++) {
      for (length = 0; length < LENGTHS.length; length++) {
        let c0 = process.cpuUsage();
        await rawAsk(gwUrl, gwHeaders);
        const v = cpuMs(c0);
        c0 = process.cpuUsage();
        await rawAsk(upUrl, {});
        const u = cpuMs(c0);
        c0 = process.cpuUsage();
        await rawAsk(urlOf(proxy), {});
        const p = cpuMs(c0);
        if (i < 20) continue;
        rawAdded[length] += v - u;
        proxyAdded[length] += p - u;
      }
    }
    length = 0;
    agent.destroy();
    proxyAgent.destroy();
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    const perRound = (xs) => xs.map((x) => x / ITERATIONS);
    const rawAddedMs = perRound(rawAdded)[0];
    const proxyAddedMs = perRound(proxyAdded)[0];
    const rawSplit = split(perRound(rawAdded));
    const proxySplit = split(perRound(proxyAdded));

    const d = summarize(wall.direct);
    const g = summarize(wall.via);
    const addedCpuPerRequest = (cpu.via - cpu.direct) / ITERATIONS;

    const apart = await twoThreads(rawBody);

    // Long stream: heap after a forced GC before and after.
    v8.setFlagsFromString('--expose-gc');
    const gc = globalThis.gc ?? vm.runInNewContext('gc');
    gc();
    const heapStart = process.memoryUsage().heapUsed / 2 ** 20;
    long = true;
    const t0 = performance.now();
    const longChunks = await drain(via);
    const longSeconds = (performance.now() - t0) / 1000;
    long = false;
    gc();
    const heapEnd = process.memoryUsage().heapUsed / 2 ** 20;
    return {
      recording: 'xai/xai-text.chunks.txt',
      upstreamEvents: lines.length,
      geminiChunks: chunks,
      iterations: ITERATIONS,
      directP50Ms: fmt(d.p50),
      gatewayP50Ms: fmt(g.p50),
      addedP50Ms: fmt(g.p50 - d.p50),
      addedP99Ms: fmt(g.p99 - d.p99),
      ratioP50: fmt(g.p50 / d.p50, 2),
      twoThreadsDirectP50Ms: fmt(apart.directP50Ms),
      twoThreadsAddedP50Ms: fmt(apart.addedP50Ms),
      twoThreadsAddedP99Ms: fmt(apart.addedP99Ms),
      twoThreadsBareDirectP50Ms: fmt(apart.bareDirectP50Ms),
      twoThreadsBareAddedFirstByteP50Ms: fmt(apart.bareAddedFirstByteP50Ms),
      twoThreadsBareAddedLastByteP50Ms: fmt(apart.bareAddedLastByteP50Ms),
      twoThreadsNullProxyAddedP50Ms: fmt(apart.proxyAddedP50Ms),
      twoThreadsBareNullProxyAddedFirstByteP50Ms: fmt(apart.bareProxyAddedFirstByteP50Ms),
      twoThreadsBareNullProxyAddedLastByteP50Ms: fmt(apart.bareProxyAddedLastByteP50Ms),
      addedCpuPerRequestMs: fmt(addedCpuPerRequest),
      addedCpuPerEventUs: fmt((addedCpuPerRequest * 1000) / lines.length, 2),
      translateOnlyCpuPerEventUs: fmt(translate.early, 2),
      translateOnlySteadyCpuPerEventUs: fmt(translate.steady, 2),
      rawClientAddedCpuPerRequestMs: fmt(rawAddedMs),
      rawClientAddedCpuPerEventUs: fmt((rawAddedMs * 1000) / lines.length, 2),
      longStreamEventsForSplit: LENGTHS[1].events,
      rawClientAddedCpuFixedPerRequestMs: fmt(rawSplit.perRequestMs),
      rawClientAddedCpuPerEventSlopeUs: fmt(rawSplit.perEventUs, 2),
      nullProxyAddedCpuPerEventUs: fmt((proxyAddedMs * 1000) / lines.length, 2),
      nullProxyAddedCpuFixedPerRequestMs: fmt(proxySplit.perRequestMs),
      nullProxyAddedCpuPerEventSlopeUs: fmt(proxySplit.perEventUs, 2),
      longStreamEvents: longSent,
      longStreamChunks: longChunks,
      longStreamSeconds: fmt(longSeconds, 1),
      heapAfterGcStartMb: fmt(heapStart, 1),
      heapAfterGcEndMb: fmt(heapEnd, 1),
    };
  } finally {
    await gw.close();
    for (const s of [upstream, gemini]) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
