// Telemetry overhead per turn, one scenario, three modes in the same run (batches interleaved):
//   off       `telemetry: { enabled: false }` (the baseline)
//   noProv    @opentelemetry/api installed, no provider registered or given (the default for most users)
//   provider  a BasicTracerProvider + in-memory exporter and a MeterProvider, as in the tests
// The turn: 8 model steps (ACTIVE then DONE with usage) and 4 tool steps on InMemoryConnection, so the
// SDK's own work dominates. Reports each mode's per-turn median (min–max over batches) and the ratio to `off`.
// Allocation: the same turns in a child process with a 256 MiB young generation (no scavenge while measuring)
// and `--expose-gc`; heap growth per turn for `off` and `noProv` shows that the off path allocates nothing
// more. Usage: node bench/telemetry.mjs (or through bench/run.mjs).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Agent } from '../dist/index.js';
import { InMemoryConnection } from '../dist/testing/index.js';
import { fmt } from './stats.mjs';

const BATCHES = Number(process.env.BENCH_TELEMETRY_BATCHES ?? 15);
const PER_BATCH = Number(process.env.BENCH_TELEMETRY_TURNS ?? 200);
const WARMUP = 40;
const ALLOC_TURNS = 300;

const usage = {
  inputTokens: 900,
  outputTokens: 120,
  thinkingTokens: 20,
  cacheReadTokens: 0,
  totalTokens: 1020,
};
function turnScript() {
  const steps = [];
  let i = 0;
  for (let n = 0; n < 8; n++) {
    steps.push({ type: 'agent_response', stepIndex: i, state: 'ACTIVE', textDelta: 'thinking about it ' });
    steps.push({ type: 'agent_response', stepIndex: i, state: 'DONE', textDelta: 'done. ', usage });
    i++;
    if (n % 2 === 0) {
      const tool = { id: `c:${i}`, name: 'view_file', args: { AbsolutePath: '/x' }, stepIndex: i };
      steps.push({ type: 'tool', stepIndex: i, state: 'ACTIVE', tool: { ...tool, state: 'ACTIVE' } });
      steps.push({
        type: 'tool',
        stepIndex: i,
        state: 'DONE',
        tool: { ...tool, state: 'DONE', output: 'x' },
      });
      i++;
    }
  }
  return { steps, result: { usage: { ...usage, inputTokens: 7200, outputTokens: 960, totalTokens: 8160 } } };
}

class Reader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

async function makeAgent(mode, turns) {
  const conn = new InMemoryConnection({
    turns: Array.from({ length: turns }, turnScript),
    conversationId: 'c',
  });
  let telemetry;
  let exporter;
  if (mode === 'off') telemetry = { enabled: false };
  if (mode === 'provider') {
    exporter = new InMemorySpanExporter();
    telemetry = {
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      meterProvider: new MeterProvider({ readers: [new Reader()] }),
    };
  }
  const agent = new Agent({ connection: conn.connect, model: 'gemini-2.5-flash', telemetry });
  await agent.start();
  return { agent, exporter };
}

async function turns(agent, n) {
  for (let i = 0; i < n; i++) {
    const result = await (await agent.chat('go')).result();
    if (result.status !== 'success') throw new Error(`turn ended ${result.status}: ${result.errorMessage}`);
  }
}

/** Child mode: heap growth per turn with no GC in between (a young generation larger than what is allocated). */
async function alloc(mode) {
  const { agent } = await makeAgent(mode, WARMUP + ALLOC_TURNS);
  await turns(agent, WARMUP);
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  await turns(agent, ALLOC_TURNS);
  const after = process.memoryUsage().heapUsed;
  await agent.close();
  console.log(JSON.stringify({ bytesPerTurn: (after - before) / ALLOC_TURNS }));
}

function allocIn(mode) {
  const out = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--max-semi-space-size=256',
      '--min-semi-space-size=256',
      fileURLToPath(import.meta.url),
      '--alloc',
      mode,
    ],
    { encoding: 'utf8' },
  );
  if (out.status !== 0) throw new Error(`alloc child (${mode}) failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()).bytesPerTurn;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

export async function run() {
  const modes = ['off', 'noProv', 'provider'];
  const agents = {};
  for (const mode of modes) {
    agents[mode] = await makeAgent(mode, WARMUP + BATCHES * PER_BATCH);
    await turns(agents[mode].agent, WARMUP);
  }
  const perTurn = { off: [], noProv: [], provider: [] };
  for (let b = 0; b < BATCHES; b++) {
    // Rotate the order so no mode always runs first (or last) in a batch.
    for (let k = 0; k < modes.length; k++) {
      const mode = modes[(b + k) % modes.length];
      const t0 = performance.now();
      await turns(agents[mode].agent, PER_BATCH);
      perTurn[mode].push((performance.now() - t0) / PER_BATCH);
      agents[mode].exporter?.reset();
    }
  }
  for (const mode of modes) await agents[mode].agent.close();
  const out = { turnsPerMode: BATCHES * PER_BATCH };
  for (const mode of modes) {
    out[`${mode}MsPerTurn`] =
      `${fmt(median(perTurn[mode]))} (${fmt(Math.min(...perTurn[mode]))}–${fmt(Math.max(...perTurn[mode]))})`;
  }
  out.ratioNoProvider = fmt(median(perTurn.noProv) / median(perTurn.off), 2);
  out.ratioProvider = fmt(median(perTurn.provider) / median(perTurn.off), 2);
  out.offBytesPerTurn = Math.round(allocIn('off'));
  out.noProvBytesPerTurn = Math.round(allocIn('noProv'));
  out.ratioNoProviderAlloc = fmt(out.noProvBytesPerTurn / out.offBytesPerTurn, 2);
  return out;
}

if (process.argv[2] === '--alloc') await alloc(process.argv[3]);
else if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run()));
