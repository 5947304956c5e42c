// Memory of a long turn: a turn of N steps from the simulator (timestamped text deltas, the real
// stdout → framing → parse → normalize → ChatResponse + history path), heap retained after GC while the
// response and the history are still held, per step. Baseline: the bytes of the wire line each step came
// from (what agy wrote), so the ratio says how many times the wire size a kept step costs. Run at several N
// to show it is linear (bytes/step flat), then `conversation.clearHistory()` and dropping the response must
// give the memory back. Each figure is the median of rounds with its min–max.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Agent } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { rounds } from './stats.mjs';

const SIZES = (process.env.BENCH_MEMORY_STEPS ?? '2500,10000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 3);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
};

/** The simulator's line for one delta (same fields and sizes: a 36-char id, an index, a timestamp). */
function wireLineBytes(conversationId) {
  const line = JSON.stringify({
    event: 'step_update',
    step_update: {
      conversation_id: conversationId,
      step_index: 3,
      state: 'ACTIVE',
      step_type: 'agent_response',
      text_delta: `${performance.timeOrigin + performance.now()}\n`,
    },
  });
  return Buffer.byteLength(line) + 1;
}

async function oneTurn(steps) {
  const dir = await mkdtemp(join(tmpdir(), 'agy-bench-mem-'));
  const scenario = await writeScenario(
    {
      turns: [
        // A first short turn starts agy and warms every path, so the second one measures only its steps.
        { actions: [{ timestampDeltas: { count: 10, intervalMs: 0 } }] },
        { actions: [{ timestampDeltas: { count: steps, intervalMs: 0 } }] },
      ],
    },
    dir,
  );
  const agent = new Agent({
    agyPath: simulatorPath(),
    workspaces: [dir],
    dataDir: join(dir, 'data'),
    historyLimit: 10 * steps,
    env: { AGY_SIM_SCENARIO: scenario, AGY_SIM_STATE_DIR: join(dir, 'state') },
  });
  try {
    const warm = await (await agent.chat('warm up')).result();
    if (warm.status !== 'success') throw new Error(`warm-up turn ${warm.status}: ${warm.errorMessage}`);
    agent.conversation.clearHistory();
    const before = await settle();
    let response = await agent.chat('memory');
    const result = await response.result();
    if (result.status !== 'success') throw new Error(`turn ${result.status}: ${result.errorMessage}`);
    const held = agent.conversation.history.length;
    const after = await settle();
    agent.conversation.clearHistory();
    response = undefined;
    const cleared = await settle();
    return {
      bytesPerStep: (after - before) / held,
      wireBytesPerLine: wireLineBytes(agent.conversationId ?? ''),
      clearedBytesPerStep: (cleared - before) / held,
      held,
    };
  } finally {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const out = {
    name: 'ChatResponse + history memory per step of a long turn vs the wire bytes of its line',
    sizes: {},
  };
  for (const steps of SIZES) {
    const rows = [];
    for (let r = 0; r < ROUNDS; r++) rows.push(await oneTurn(steps));
    out.sizes[`${steps}steps`] = {
      stepsHeld: rows[0].held,
      wireBytesPerLine: rounds(
        rows.map((x) => x.wireBytesPerLine),
        0,
      ),
      bytesPerStep: rounds(
        rows.map((x) => x.bytesPerStep),
        0,
      ),
      afterClearHistoryBytesPerStep: rounds(
        rows.map((x) => x.clearedBytesPerStep),
        0,
      ),
      ratioWire: rounds(
        rows.map((x) => x.bytesPerStep / x.wireBytesPerLine),
        2,
      ),
    };
  }
  const keys = Object.keys(out.sizes);
  const first = out.sizes[keys[0]].bytesPerStep.median;
  const last = out.sizes[keys.at(-1)].bytesPerStep.median;
  // Linear means the per-step cost does not grow with the turn: largest N ÷ smallest N, about 1.
  out.ratioLinearity = Number((last / first).toFixed(2));
  out.ratioWire = out.sizes[keys.at(-1)].ratioWire.median;
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 1));
