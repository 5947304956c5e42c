// AgentPool throughput and overhead (not a test). Needs `npm run build`. `npm run bench` runs it small
// (concurrency 1 and 10, 2 timed turns per session, short overhead runs); alone it takes the big sizes:
// Usage: node --expose-gc bench/pool.mjs [concurrencies=1,10,50,200] [turnsPerSession=3]
//   - turns/s through the pool on the simulator at each concurrency (one key, one agent per session; the first
//     turn of every session starts its agent and is not timed; then `turnsPerSession` timed turns each), every
//     turn's streamed text checked (lost events counted);
//   - the SDK's memory per session (this process's RSS and heap growth with every session's agent alive; only
//     meaningful with --expose-gc);
//   - the pool's overhead per turn against a bare Agent in the same run: on the simulator at concurrency 1, and
//     on InMemoryConnection (no process, so the pool's own cost is not lost in agy's noise).
// Every figure is against a baseline measured in this run.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'agy-sdk';
import { AgentPool } from 'agy-sdk/pool';
import { InMemoryConnection, silentLogger, simulatorPath, writeScenario } from 'agy-sdk/testing';

const CHUNKS = 10;
const TEXT = Array.from({ length: CHUNKS }, (_, i) => `t${i} `).join('');

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

/** Mean ms per turn of `n` sequential turns through `runTurn`. */
async function perTurn(n, runTurn) {
  await runTurn(); // warm: start the agent, JIT
  const t = performance.now();
  for (let i = 0; i < n; i++) await runTurn();
  return (performance.now() - t) / n;
}

/**
 * Runs the pool bench. Defaults are `npm run bench`'s small sizes (about a minute on a loaded 2-core box).
 * @param {{ concurrencies?: number[], turnsPerSession?: number, simulatorTurns?: number, inMemoryTurns?: number,
 *   log?: (line: string) => void }} [options]
 */
export async function run({
  concurrencies = [1, 10],
  turnsPerSession = 2,
  simulatorTurns = 10,
  inMemoryTurns = 1000,
  log = () => {},
} = {}) {
  const root = mkdtempSync(join(tmpdir(), 'agy-sdk-bench-pool-'));
  const workspace = join(root, 'workspace');
  const home = join(root, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  const scenarioFile = await writeScenario(
    {
      turns: Array.from({ length: Math.max(turnsPerSession, simulatorTurns) + 20 }, () => ({
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

  const results = { concurrency: [], overhead: {} };
  try {
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
        // Without --expose-gc (as under `npm run bench`) the growth is GC noise: not reported.
        sdkRssPerSessionKiB: globalThis.gc ? kib((during.rss - before.rss) / c) : null,
        sdkHeapPerSessionKiB: globalThis.gc ? kib((during.heap - before.heap) / c) : null,
        turns: stats.turns,
        lostOrFailed: lost,
      };
      results.concurrency.push(row);
      log(JSON.stringify(row));
    }

    // Overhead on the simulator, concurrency 1: the same agent config, bare vs through the pool.
    {
      const n = simulatorTurns;
      let bare = Number.POSITIVE_INFINITY;
      let pooled = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 2; round++) {
        const agent = new Agent(agentConfig);
        bare = Math.min(bare, await perTurn(n, async () => checkedTurn(await agent.chat('x'))));
        await agent.close();
        const pool = new AgentPool({ size: 1, agent: agentConfig, logger: silentLogger });
        pooled = Math.min(
          pooled,
          await perTurn(n, async () => checkedTurn(await pool.run(`k${round}`, 'x'))),
        );
        await pool.close();
      }
      results.overhead.simulator = {
        bareMsPerTurn: Math.round(bare * 100) / 100,
        poolMsPerTurn: Math.round(pooled * 100) / 100,
        ratio: Math.round((pooled / bare) * 1000) / 1000,
      };
      log(JSON.stringify({ overheadSimulator: results.overhead.simulator }));
    }

    // Overhead without a process: InMemoryConnection, so only the SDK's and the pool's own work is timed.
    {
      const n = inMemoryTurns;
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
      log(JSON.stringify({ overheadInMemory: results.overhead.inMemory }));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const row = (c) => results.concurrency.find((r) => r.concurrency === c);
  const low = row(Math.min(...concurrencies));
  const high = row(Math.max(...concurrencies));
  return {
    ...Object.fromEntries(results.concurrency.map((r) => [`turnsPerSecAt${r.concurrency}`, r.turnsPerSec])),
    lostOrFailed: results.concurrency.reduce((n, r) => n + r.lostOrFailed, 0),
    startMeanMs: high?.startMeanMs,
    // Throughput at the highest concurrency over the lowest, in this run.
    [`ratioTurnsPerSec${high?.concurrency}Vs${low?.concurrency}`]:
      low && high ? Math.round((high.turnsPerSec / low.turnsPerSec) * 100) / 100 : null,
    // Pool over bare Agent per turn, in this run (> 1 is the pool's cost).
    ratioPoolVsBareSimulator: results.overhead.simulator.ratio,
    ratioPoolVsBareInMemory: results.overhead.inMemory.ratio,
    addedUsPerTurnInMemory: results.overhead.inMemory.addedUsPerTurn,
    concurrency: results.concurrency,
    overhead: results.overhead,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const concurrencies = (process.argv[2] ?? '1,10,50,200').split(',').map(Number);
  const turnsPerSession = Number(process.argv[3] ?? 3);
  const out = await run({
    concurrencies,
    turnsPerSession,
    simulatorTurns: 30,
    inMemoryTurns: 3000,
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify(out, null, 1));
}
