// The out-of-process client of the tool bench: one keep-alive node:http agent, driven over IPC by the parent.
// The same code posts the same JSON-RPC `tools/call` bytes (with the MCP headers) to our listener and to the
// bare baseline, so the client is identical on both sides and its cost is not part of the ratio. Given
// `urls`, it interleaves its calls to them (`runPaired`).
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
let nextId = 0;

function call(url, text) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: ++nextId,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            const reply = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            const got = reply.result?.content?.[0]?.text;
            if (res.statusCode !== 200 || got !== text)
              reject(new Error(`bad answer ${res.statusCode}: ${JSON.stringify(reply).slice(0, 200)}`));
            else resolve();
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `n` calls over `concurrency` workers; per-call latencies (ms) and the wall time (ms). */
async function runCalls({ url, n, concurrency, payload }) {
  const latencies = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const text = `${payload}${i}`;
        const s = performance.now();
        await call(url, text);
        latencies.push(performance.now() - s);
      }
    }),
  );
  return { latencies, wallMs: performance.now() - t0 };
}

/**
 * `n` sequential calls to each of `urls`, interleaved: round `i` calls every URL once, in a fresh random
 * order. Each side then sees the same machine (load, frequency, the other side's code in the caches)
 * instead of whatever state its own block ran in; per-URL latencies (ms).
 */
async function runPaired({ urls, n, payload }) {
  const latencies = urls.map(() => []);
  const order = urls.map((_, k) => k);
  for (let i = 0; i < n; i++) {
    for (let k = order.length - 1; k > 0; k--) {
      const r = Math.floor(Math.random() * (k + 1));
      [order[k], order[r]] = [order[r], order[k]];
    }
    for (const j of order) {
      const s = performance.now();
      await call(urls[j], `${payload}${i}`);
      latencies[j].push(performance.now() - s);
    }
  }
  return { latencies };
}

process.on('message', async (msg) => {
  if (msg.type === 'exit') {
    agent.destroy();
    process.disconnect();
    return;
  }
  try {
    process.send({ ok: true, ...(await (msg.urls ? runPaired(msg) : runCalls(msg))) });
  } catch (error) {
    process.send({ ok: false, error: String(error?.stack ?? error) });
  }
});
