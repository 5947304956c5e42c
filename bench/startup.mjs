// Agent start until `init` (the simulator) against `node -e 0` (a bare Node boot), interleaved in the same run:
// each round times one `node -e 0` and one `new Agent(...).start()` (which resolves on agy's `init`), then closes
// the agent. The first start of the process is reported on its own (no spare supervisor yet, the version probe
// not cached); the ratio is the median of rounds 2..n over the median `node -e 0`, with min–max per side.
// `npm run bench` / `node bench/startup.mjs [rounds=9]`; `AGY_SDK_SPARE_SUPERVISOR=0` measures without the spare.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Agent, silentLogger } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';
import { fmt } from './stats.mjs';

function nodeBoot() {
  const t = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - t));
  });
}

async function agentStart(root, i) {
  const agent = new Agent({
    agyPath: simulatorPath(),
    workspaces: [join(root, 'workspace')],
    dataDir: join(root, 'data'),
    env: { HOME: join(root, 'home'), AGY_SIM_STATE_DIR: join(root, `state-${i}`) },
    logger: silentLogger,
  });
  const t = performance.now();
  await agent.start();
  const ms = performance.now() - t;
  const version = agent.agyVersion;
  await agent.close();
  return { ms, version };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (xs) => `${fmt(Math.min(...xs), 0)}–${fmt(Math.max(...xs), 0)}`;

export async function run(rounds = Number(process.env.BENCH_STARTUP_ROUNDS ?? 9)) {
  const root = mkdtempSync(join(tmpdir(), 'agy-sdk-startup-'));
  for (const dir of ['workspace', 'home']) mkdirSync(join(root, dir));
  try {
    // Warm the file cache for both sides (not the SDK's own state: the first start stays cold).
    await nodeBoot();
    const first = await agentStart(root, 0);
    const base = [];
    const ours = [];
    for (let i = 1; i <= rounds; i++) {
      base.push(await nodeBoot());
      ours.push((await agentStart(root, i)).ms);
    }
    const ratio = median(ours) / median(base);
    return {
      nodeBootMsMedian: fmt(median(base), 0),
      nodeBootMsRange: range(base),
      agentStartMsMedian: fmt(median(ours), 0),
      agentStartMsRange: range(ours),
      firstAgentStartMs: fmt(first.ms, 0),
      firstRatioVsNodeBootMedian: fmt(first.ms / median(base), 2),
      firstVersionAtStart: first.version,
      rounds,
      spare: process.env.AGY_SDK_SPARE_SUPERVISOR !== '0',
      ratioStartVsNodeBoot: fmt(ratio, 2),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await run(Number(process.argv[2] ?? 9)), null, 2));
}
