// The tool-call round trip as agy performs it: a JSON-RPC `tools/call` POST with the MCP headers to a trivial
// zod `tool()` served by a real SessionListener on 127.0.0.1 (token, Host/Origin, body limit, Accept and
// Content-Type, protocol-version and message-schema checks all on the path). Baseline: a bare node:http JSON
// echo answering the same POST. Both are driven by the same out-of-process client (bench/lib/http-client.mjs:
// one keep-alive node:http agent, the same bytes), so the client's own cost is not in the ratio. Server CPU is
// this process's CPU time (both servers live here; the client does not) per call. Rounds alternate sides;
// every figure is the median of the rounds with its min–max.
//
// The p50 ratios come from paired rounds: the client interleaves its sequential calls to the baseline and to
// ours, in a random order per pair, so both sides see the same machine. A round of one block per side, one
// after the other (the method of reports before 2026-12-05), spread 0.76–1.83× between rounds of one run on a
// 2-core machine, for code whose paired ratio stays within a few hundredths.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { z } from 'zod';
import { SessionListener } from '../dist/connection/tool-server/listener.js';
import { createMcpServer } from '../dist/connection/tool-server/mcp-server.js';
import { tool } from '../dist/tools/tool.js';
import { cpuMs, rounds, summarize } from './stats.mjs';

const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 1000);
// Sequential calls per side and round, in the paired blocks.
const PAIRED_CALLS = Number(process.env.BENCH_TOOL_PAIRED_CALLS ?? 500);
const ROUNDS = Number(process.env.BENCH_TOOL_ROUNDS ?? 9);
const CONCURRENCY = Number(process.env.BENCH_TOOL_CONCURRENCY ?? 8);
// ~100 bytes of argument text, as in the table.
const PAYLOAD = 'x'.repeat(96);
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

function startClient() {
  const child = fork(new URL('./lib/http-client.mjs', import.meta.url), [], { stdio: 'inherit' });
  const ask = (msg) =>
    new Promise((resolve, reject) => {
      child.once('message', (reply) => (reply.ok ? resolve(reply) : reject(new Error(reply.error))));
      child.send(msg);
    });
  const exit = () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.send({ type: 'exit' });
    });
  return { ask, exit };
}

/** `n` sequential calls to each of `urls`, interleaved (bench/lib/http-client.mjs); each URL's p50 (ms). */
async function pairedBlock(client, urls, n) {
  const { latencies } = await client.ask({ urls, n, payload: PAYLOAD });
  return latencies.map((l) => summarize(l).p50);
}

/** One block of calls against `url`; returns p50 (ms), server CPU µs per call, calls/s. */
async function block(client, url, n, concurrency) {
  const cpu0 = process.cpuUsage();
  const { latencies, wallMs } = await client.ask({ url, n, concurrency, payload: PAYLOAD });
  const cpu = cpuMs(cpu0);
  return { p50: summarize(latencies).p50, cpuUsPerCall: (cpu * 1000) / n, callsPerSec: n / (wallMs / 1000) };
}

export async function run() {
  const echo = tool(
    { name: 'echo', description: 'Echoes its text', input: z.object({ text: z.string() }) },
    ({ text }) => text,
  );
  // `tools`: a tool() catalog (the direct path); `sdk`: the same tool behind a per-request SDK Server and
  // transport (the path every factory-built server takes, and every server took before), for reference.
  const listener = await SessionListener.start({
    mcpServers: { tools: [echo], sdk: () => createMcpServer({ name: 'sdk', tools: [echo], logger: quiet }) },
    logger: quiet,
  });
  const baseline = await startBaseline();
  const client = startClient();
  const urls = {
    base: `http://127.0.0.1:${baseline.address().port}/mcp`,
    ours: listener.mcpUrl('tools'),
    sdk: listener.mcpUrl('sdk'),
  };
  try {
    // Warm both (JIT, sockets).
    for (const url of Object.values(urls)) await block(client, url, Math.min(500, CALLS), CONCURRENCY);
    const conc = { base: [], ours: [], sdk: [] };
    // Per round: ours ÷ the baseline, and the SDK path ÷ the baseline, each from its own interleaved pair.
    const paired = { ours: [], sdk: [], baseP50: [], oursP50: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const [baseP50, oursP50] = await pairedBlock(client, [urls.base, urls.ours], PAIRED_CALLS);
      paired.ours.push(oursP50 / baseP50);
      paired.baseP50.push(baseP50);
      paired.oursP50.push(oursP50);
      // The SDK path is for reference only: fewer calls.
      const [sdkBaseP50, sdkP50] = await pairedBlock(client, [urls.base, urls.sdk], PAIRED_CALLS / 2);
      paired.sdk.push(sdkP50 / sdkBaseP50);
      const order = r % 2 ? ['sdk', 'ours', 'base'] : ['base', 'ours', 'sdk'];
      for (const side of order) conc[side].push(await block(client, urls[side], CALLS, CONCURRENCY));
    }
    const ratio = (rows, key, side = 'ours') =>
      rounds(
        rows[side].map((o, i) => o[key] / rows.base[i][key]),
        2,
      );
    const pick = (rows, side, key, digits) =>
      rounds(
        rows[side].map((x) => x[key]),
        digits,
      );
    return {
      name: 'tool call round trip (~100 B): out-of-process node:http client → SessionListener tool() vs → bare node:http JSON echo',
      callsPerRound: CALLS,
      pairedCallsPerRound: PAIRED_CALLS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      baselineP50ms: rounds(paired.baseP50, 3),
      oursP50ms: rounds(paired.oursP50, 3),
      baselineCpuUsPerCall: pick(conc, 'base', 'cpuUsPerCall', 1),
      oursCpuUsPerCall: pick(conc, 'ours', 'cpuUsPerCall', 1),
      baselineCallsPerSec: pick(conc, 'base', 'callsPerSec', 0),
      oursCallsPerSec: pick(conc, 'ours', 'callsPerSec', 0),
      ratioP50: rounds(paired.ours, 2),
      ratioCpuPerCall: ratio(conc, 'cpuUsPerCall'),
      // Time per call under concurrency, ours / baseline (= baseline calls/s ÷ ours calls/s).
      sdkPathCallsPerSec: pick(conc, 'sdk', 'callsPerSec', 0),
      ratioSdkPathP50: rounds(paired.sdk, 2),
      ratioSdkPathCpuPerCall: ratio(conc, 'cpuUsPerCall', 'sdk'),
      ratioConcTimePerCall: rounds(
        conc.ours.map((o, i) => conc.base[i].callsPerSec / o.callsPerSec),
        2,
      ),
    };
  } finally {
    await client.exit();
    await listener.close();
    baseline.closeAllConnections();
    await new Promise((resolve) => baseline.close(resolve));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 1));
