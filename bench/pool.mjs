// AgentPool throughput and overhead (not part of `npm run bench`, not a test). Needs `npm run build`.
// Usage: node --expose-gc bench/pool.mjs [concurrencies=1,10,50] [turnsPerSession=3]
//   - turns/s through the pool on the simulator at each concurrency (one key, one agent per session; the first
//     turn of every session starts its agent and is not timed; then `turnsPerSession` timed turns each), every
//     turn's streamed text checked (lost events counted);
//   - the SDK's memory per session (this process's RSS and heap growth with every session's agent alive);
//   - the pool's overhead per turn against a bare Agent in the same run: on the simulator at concurrency 1, and
//     on InMemoryConnection (no process, so the pool's own cost is not lost in agy's noise).
// Every figure is against a baseline measured in this run.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, AgentPool, silentLogger } from 'agy-sdk';
import { InMemoryConnection, simulatorPath, writeScenario } from 'agy-sdk/testing';

const concurrencies = (process.argv[2] ?? '1,10,50').split(',').map(Number);
const turnsPerSession = Number(process.argv[3] ?? 3);
const CHUNKS = 10;
const TEXT = Array.from({ length: CHUNKS }, (_, i) => `t${i} `).join('');

const root = mkdtempSync(join(tmpdir(), 'agy-sdk-bench-pool-'));
const workspace = join(root, 'workspace');
const home = join(root, 'home');
mkdirSync(workspace);
mkdirSync(home);
const scenarioFile = await writeScenario(
  {
    turns: Array.from({ length: turnsPerSession + 20 }, () => ({
      actions: [{ text: TEXT, chunks: CHUNKS }],
    })),
  },
  root,
);
const agentConfig = {
  agyPath: simulatorPath(),
  workspaces: [workspace],
  dataDir: join(root, 'data'),
  logger: silentLogger,
  env: { HOME: home, AGY_SIM_STATE_DIR: join(root, 'state'), AGY_SIM_SCENARIO: scenarioFile },
};

const kib = (bytes) => Math.round(bytes / 1024);
const gc = () => globalThis.gc?.();
const mem = () => {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
};

/** One turn whose streamed text is checked: returns true when every delta arrived. */
async function checkedTurn(response) {
  let streamed = '';
  for await (const delta of response) streamed += delta;
  const result = await response.result();
  return result.status === 'success' && streamed === TEXT;
}

const results = { concurrency: [], overhead: {} };

for (const c of concurrencies) {
  const before = mem();
  const pool = new AgentPool({ size: c, agent: agentConfig, logger: silentLogger });
  const keys = Array.from({ length: c }, (_, i) => `s${i}`);
  const t0 = performance.now();
  // First turn per session: starts its agent (cold start), untimed for throughput.
  const first = await Promise.all(keys.map(async (k) => checkedTurn(await pool.run(k, 'warm up'))));
  const startWall = performance.now() - t0;
  const during = mem();
  let lost = first.filter((ok) => !ok).length;
  const t1 = performance.now();
  await Promise.all(
    keys.map(async (k) => {
      for (let i = 0; i < turnsPerSession; i++)
        if (!(await checkedTurn(await pool.run(k, `turn ${i}`)))) lost++;
    }),
  );
  const wall = performance.now() - t1;
  const stats = pool.stats;
  await pool.close();
  const row = {
    concurrency: c,
    turnsPerSec: Math.round(((c * turnsPerSession) / (wall / 1000)) * 10) / 10,
    startAllMs: Math.round(startWall),
    startMeanMs: Math.round(stats.startLatency.meanMs),
    startMaxMs: Math.round(stats.startLatency.maxMs),
    sdkRssPerSessionKiB: kib((during.rss - before.rss) / c),
    sdkHeapPerSessionKiB: kib((during.heap - before.heap) / c),
    turns: stats.turns,
    lostOrFailed: lost,
  };
  results.concurrency.push(row);
  console.log(JSON.stringify(row));
}

/** Mean ms per turn of `n` sequential turns through `runTurn`. */
async function perTurn(n, runTurn) {
  await runTurn(); // warm: start the agent, JIT
  const t = performance.now();
  for (let i = 0; i < n; i++) await runTurn();
  return (performance.now() - t) / n;
}

// Overhead on the simulator, concurrency 1: the same agent config, bare vs through the pool.
{
  const n = 30;
  let bare = Number.POSITIVE_INFINITY;
  let pooled = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 2; round++) {
    const agent = new Agent(agentConfig);
    bare = Math.min(bare, await perTurn(n, async () => checkedTurn(await agent.chat('x'))));
    await agent.close();
    const pool = new AgentPool({ size: 1, agent: agentConfig, logger: silentLogger });
    pooled = Math.min(pooled, await perTurn(n, async () => checkedTurn(await pool.run(`k${round}`, 'x'))));
    await pool.close();
  }
  results.overhead.simulator = {
    bareMsPerTurn: Math.round(bare * 100) / 100,
    poolMsPerTurn: Math.round(pooled * 100) / 100,
    ratio: Math.round((pooled / bare) * 1000) / 1000,
  };
  console.log(JSON.stringify({ overheadSimulator: results.overhead.simulator }));
}

// Overhead without a process: InMemoryConnection, so only the SDK's and the pool's own work is timed.
{
  const n = 3000;
  const memConfig = () => ({
    logger: silentLogger,
    connection: (host) =>
      new InMemoryConnection({
        turns: Array.from({ length: n + 2 }, () => ({
          steps: [{ type: 'agent_response', textDelta: TEXT }],
        })),
      }).connect(host),
  });
  const inMemoryTurn = async (response) => {
    let s = '';
    for await (const d of response) s += d;
    return (await response.result()).status === 'success' && s === TEXT;
  };
  // Alternating rounds, best of each: JIT warm-up and GC must not favour whichever runs second.
  let bare = Number.POSITIVE_INFINITY;
  let pooled = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const agent = new Agent(memConfig());
    bare = Math.min(bare, await perTurn(n, async () => inMemoryTurn(await agent.chat('x'))));
    await agent.close();
    const pool = new AgentPool({ size: 1, agent: memConfig(), logger: silentLogger });
    pooled = Math.min(pooled, await perTurn(n, async () => inMemoryTurn(await pool.run('k', 'x'))));
    await pool.close();
  }
  results.overhead.inMemory = {
    bareUsPerTurn: Math.round(bare * 1000),
    poolUsPerTurn: Math.round(pooled * 1000),
    addedUsPerTurn: Math.round((pooled - bare) * 1000),
    ratio: Math.round((pooled / bare) * 1000) / 1000,
  };
  console.log(JSON.stringify({ overheadInMemory: results.overhead.inMemory }));
}

rmSync(root, { recursive: true, force: true });
