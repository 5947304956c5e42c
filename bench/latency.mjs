// Latency from a simulator write to a ChatResponse consumer (p50/p99), against a bare child process writing
// the same lines to a raw split + JSON.parse reader (same run, same machine clock). Several rounds, the two
// sides alternating; per round the p50/p99 of each, then the medians of the rounds with their min–max.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { rounds, summarize } from './stats.mjs';

const COUNT = Number(process.env.BENCH_LATENCY_COUNT ?? 500);
const INTERVAL_MS = 2;
const ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS ?? 3);
const now = () => performance.timeOrigin + performance.now();

const RAW_WRITER = `
const { performance } = require('node:perf_hooks');
let i = 0;
function tick() {
  if (i++ >= ${COUNT}) return;
  const ts = String(performance.timeOrigin + performance.now());
  process.stdout.write(JSON.stringify({ event: 'step_update', step_update: { conversation_id: 'c', step_index: 1, state: 'ACTIVE', step_type: 'agent_response', text_delta: ts + '\\n' } }) + '\\n', () => setTimeout(tick, ${INTERVAL_MS}));
}
tick();
`;

async function rawBaseline() {
  const child = spawn(process.execPath, ['-e', RAW_WRITER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const samples = [];
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const arrived = now();
    pending += chunk;
    let nl = pending.indexOf('\n');
    while (nl !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      samples.push(arrived - Number(JSON.parse(line).step_update.text_delta));
      nl = pending.indexOf('\n');
    }
  });
  await new Promise((resolve) => child.on('close', resolve));
  return samples;
}

async function sdk() {
  const dir = await mkdtemp(join(tmpdir(), 'agy-bench-'));
  const scenario = await writeScenario(
    { turns: [{ actions: [{ timestampDeltas: { count: COUNT, intervalMs: INTERVAL_MS } }] }] },
    dir,
  );
  const agent = new Agent({
    agyPath: simulatorPath(),
    workspaces: [dir],
    dataDir: join(dir, 'data'),
    env: { AGY_SIM_SCENARIO: scenario, AGY_SIM_STATE_DIR: join(dir, 'state') },
  });
  try {
    const response = await agent.chat('latency');
    const samples = [];
    for await (const delta of response) samples.push(now() - Number(delta));
    const result = await response.result();
    if (result.status !== 'success') throw new Error(`turn ${result.status}: ${result.errorMessage}`);
    return samples;
  } finally {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const raw = [];
  const ours = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2) {
      ours.push(summarize(await sdk()));
      raw.push(summarize(await rawBaseline()));
    } else {
      raw.push(summarize(await rawBaseline()));
      ours.push(summarize(await sdk()));
    }
  }
  const pick = (rows, key) =>
    rounds(
      rows.map((x) => x[key]),
      3,
    );
  const ratio = (key) =>
    rounds(
      ours.map((o, i) => o[key] / raw[i][key]),
      2,
    );
  return {
    name: 'write → consumer latency: simulator → ChatResponse vs bare child → raw JSON.parse reader',
    samplesPerRound: ours[0].n,
    rounds: ROUNDS,
    baselineP50ms: pick(raw, 'p50'),
    baselineP99ms: pick(raw, 'p99'),
    oursP50ms: pick(ours, 'p50'),
    oursP99ms: pick(ours, 'p99'),
    ratioP50: ratio('p50'),
    ratioP99: ratio('p99'),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 1));
