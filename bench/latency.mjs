// Latency from a simulator write to a ChatResponse consumer (p50/p99), against a bare child process writing
// the same lines to a raw split + JSON.parse reader (same run, same machine clock).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { fmt, summarize } from './stats.mjs';

const COUNT = Number(process.env.BENCH_LATENCY_COUNT ?? 500);
const INTERVAL_MS = 2;
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
  const raw = summarize(await rawBaseline());
  const ours = summarize(await sdk());
  return {
    name: 'write → consumer latency: simulator → ChatResponse vs bare child → raw JSON.parse reader',
    samples: ours.n,
    baselineP50ms: Number(fmt(raw.p50)),
    baselineP99ms: Number(fmt(raw.p99)),
    oursP50ms: Number(fmt(ours.p50)),
    oursP99ms: Number(fmt(ours.p99)),
    ratioP50: Number(fmt(ours.p50 / raw.p50, 2)),
    ratioP99: Number(fmt(ours.p99 / raw.p99, 2)),
  };
}
