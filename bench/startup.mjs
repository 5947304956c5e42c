// Agent start until `init` (the simulator) against the bare simulator boot (the same binary and flags spawned
// directly, until its `init` line: the agy process itself is the floor), and `node -e 0` for reference,
// interleaved in the same run: each round times one of each, then closes the agent. The first start of the
// process is reported on its own (no supervisor yet, the version probe not cached), with its extra cost over
// the bare boot; the ratio is the median of rounds 2..n over the median bare simulator boot, min–max per side.
// Each round closes its agent, so the host's supervisor is stopped and booted again (beside agy's boot, off the
// start's path) every time; a second series keeps another agent open, as a pool or a long-lived app does.
// `npm run bench` / `node bench/startup.mjs [rounds=9]`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Agent } from 'agy-sdk';
import { silentLogger, simulatorPath } from 'agy-sdk/testing';
import { fmt } from './stats.mjs';

function nodeBoot() {
  const t = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - t));
  });
}

/** The simulator spawned directly with the flags an Agent passes, until its first stdout line (`init`). */
function simulatorBoot(root, i) {
  const t = performance.now();
  const child = spawn(
    simulatorPath(),
    [
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--print-timeout',
      '0',
      '--add-dir',
      join(root, 'workspace'),
    ],
    {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: {
        ...process.env,
        HOME: join(root, 'home'),
        AGY_SIM_STATE_DIR: join(root, `bare-state-${i}`),
        AGY_CLI_DISABLE_AUTO_UPDATE: '1',
      },
    },
  );
  return new Promise((resolve, reject) => {
    let ms;
    child.on('error', reject);
    child.stdout.once('data', () => {
      ms = performance.now() - t;
      child.stdin.end();
    });
    child.on('exit', () =>
      ms === undefined ? reject(new Error('the simulator exited before init')) : resolve(ms),
    );
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
    await simulatorBoot(root, 0);
    const first = await agentStart(root, 0);
    const node = [];
    const bare = [];
    const ours = [];
    for (let i = 1; i <= rounds; i++) {
      node.push(await nodeBoot());
      bare.push(await simulatorBoot(root, i));
      ours.push((await agentStart(root, i)).ms);
    }
    // The same with another agent of the host open (a pool, a long-lived app): the supervisor is up already.
    const anchor = new Agent({
      agyPath: simulatorPath(),
      workspaces: [join(root, 'workspace')],
      dataDir: join(root, 'data'),
      env: { HOME: join(root, 'home'), AGY_SIM_STATE_DIR: join(root, 'state-anchor') },
      logger: silentLogger,
    });
    const bareUp = [];
    const oursUp = [];
    try {
      await anchor.start();
      for (let i = 1; i <= rounds; i++) {
        bareUp.push(await simulatorBoot(root, rounds + i));
        oursUp.push((await agentStart(root, rounds + i)).ms);
      }
    } finally {
      await anchor.close();
    }
    return {
      nodeBootMsMedian: fmt(median(node), 0),
      bareSimulatorBootMsMedian: fmt(median(bare), 0),
      bareSimulatorBootMsRange: range(bare),
      agentStartMsMedian: fmt(median(ours), 0),
      agentStartMsRange: range(ours),
      firstAgentStartMs: fmt(first.ms, 0),
      firstExtraMsOverBareBoot: fmt(first.ms - median(bare), 0),
      firstRatioVsBareSimulatorBoot: fmt(first.ms / median(bare), 2),
      firstVersionAtStart: first.version,
      rounds,
      ratioStartVsNodeBoot: fmt(median(ours) / median(node), 2),
      ratioStartVsBareSimulatorBoot: fmt(median(ours) / median(bare), 2),
      agentStartSupervisorUpMsMedian: fmt(median(oursUp), 0),
      ratioStartSupervisorUpVsBareSimulatorBoot: fmt(median(oursUp) / median(bareUp), 2),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await run(Number(process.argv[2] ?? 9)), null, 2));
}
