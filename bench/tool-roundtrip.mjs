// The tool-call round trip as agy performs it: an MCP client (the official SDK's Client over Streamable HTTP,
// one client reused) calls a trivial zod `tool()` served by a real SessionListener on 127.0.0.1. Baseline: a
// bare node:http JSON echo server hit with the same kind of POST (JSON-RPC body, same headers) by undici
// `fetch` with keep-alive. Same run, interleaved in blocks, so machine noise hits both sides alike.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { SessionListener } from '../dist/connection/agy/session/listener.js';
import { tool } from '../dist/tools/tool.js';
import { fmt, summarize } from './stats.mjs';

const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 2000);
const WARMUP = Math.min(200, CALLS);
const BLOCK = 50;
const CONCURRENCY = Number(process.env.BENCH_TOOL_CONCURRENCY ?? 8);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** The bare baseline: parse the JSON-RPC request, answer a tools/call-shaped echo result. */
function startBaseline() {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: msg.id,
        result: { content: [{ type: 'text', text: msg.params.arguments.text }] },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function baselineCaller(port) {
  const url = `http://127.0.0.1:${port}/mcp`;
  let id = 0;
  return async (text) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text } },
      }),
    });
    const json = await res.json();
    return json.result.content[0].text;
  };
}

function sdkCaller(client) {
  return async (text) => {
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    return result.content[0].text;
  };
}

/** One timed call; checks the echo so a broken path can never look fast. */
async function timed(call, text) {
  const t0 = performance.now();
  const got = await call(text);
  const ms = performance.now() - t0;
  if (got !== text) throw new Error(`echo mismatch: ${JSON.stringify(got)} !== ${JSON.stringify(text)}`);
  return ms;
}

/** `total` calls spread over `concurrency` workers; returns calls per second of wall time. */
async function concurrentRate(call, total, concurrency) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const text = `c${i}`;
        if ((await call(text)) !== text) throw new Error('echo mismatch under concurrency');
      }
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}

export async function run() {
  const echo = tool(
    { name: 'echo', description: 'Echoes its text', input: z.object({ text: z.string() }) },
    ({ text }) => text,
  );
  const listener = await SessionListener.start({ mcpServers: { tools: [echo] }, logger: quiet });
  const baseline = await startBaseline();
  const client = new Client({ name: 'agy-sdk-bench', version: '0.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.mcpUrl('tools'))));
    const ours = sdkCaller(client);
    const base = baselineCaller(baseline.address().port);

    for (let i = 0; i < WARMUP; i++) {
      await timed(base, `w${i}`);
      await timed(ours, `w${i}`);
    }

    // Sequential: alternating blocks of BLOCK calls.
    const baseMs = [];
    const oursMs = [];
    for (let done = 0; done < CALLS; done += BLOCK) {
      const n = Math.min(BLOCK, CALLS - done);
      for (let i = 0; i < n; i++) baseMs.push(await timed(base, `s${done + i}`));
      for (let i = 0; i < n; i++) oursMs.push(await timed(ours, `s${done + i}`));
    }
    const b = summarize(baseMs);
    const o = summarize(oursMs);
    const seqRate = (samples) => samples.length / (samples.reduce((a, x) => a + x, 0) / 1000);

    // Concurrent: two alternating rounds per side, best round kept.
    let baseConc = 0;
    let oursConc = 0;
    for (let round = 0; round < 2; round++) {
      baseConc = Math.max(baseConc, await concurrentRate(base, CALLS, CONCURRENCY));
      oursConc = Math.max(oursConc, await concurrentRate(ours, CALLS, CONCURRENCY));
    }

    const baseSeq = seqRate(baseMs);
    const oursSeq = seqRate(oursMs);
    return {
      name: 'tool call round trip: MCP Client → SessionListener tool() echo vs fetch → bare node:http JSON echo',
      calls: CALLS,
      concurrency: CONCURRENCY,
      baselineP50ms: Number(fmt(b.p50)),
      baselineP99ms: Number(fmt(b.p99)),
      oursP50ms: Number(fmt(o.p50)),
      oursP99ms: Number(fmt(o.p99)),
      baselineSeqCallsPerSec: Math.round(baseSeq),
      oursSeqCallsPerSec: Math.round(oursSeq),
      baselineConcCallsPerSec: Math.round(baseConc),
      oursConcCallsPerSec: Math.round(oursConc),
      ratioP50: Number(fmt(o.p50 / b.p50, 2)),
      ratioP99: Number(fmt(o.p99 / b.p99, 2)),
      // Time per call, ours / baseline (= baseline calls/s ÷ ours calls/s): lower is better, like the others.
      ratioSeqTimePerCall: Number(fmt(baseSeq / oursSeq, 2)),
      ratioConcTimePerCall: Number(fmt(baseConc / oursConc, 2)),
    };
  } finally {
    await client.close().catch(() => {});
    await listener.close();
    baseline.closeAllConnections();
    await new Promise((resolve) => baseline.close(resolve));
  }
}
