// Many agents at once (not part of `npm run bench`, not a test): starts N agents concurrently on the simulator
// with their own tools on, runs one turn each that calls an own tool twice, and reports start latency per
// session (p50/p99), total wall time, host RSS per agent, the host's worst event-loop stall, and every turn's
// status and tool outcomes. Needs `npm run build`.
// Usage: node bench/many-agents.mjs [agents=50] [calls=2]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, silentLogger, tool } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod';

const agents = Number(process.argv[2] ?? 50);
const calls = Number(process.argv[3] ?? 2);

const root = mkdtempSync(join(tmpdir(), 'agy-sdk-many-'));
const workspace = join(root, 'workspace');
const home = join(root, 'home');
mkdirSync(workspace);
mkdirSync(home);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** RSS and PSS (shared pages split fairly) of every descendant of this process, in bytes (Linux only). */
function childrenMemory() {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const isDescendant = (pid) => {
    for (let p = parents.get(pid), n = 0; p !== undefined && n < 64; p = parents.get(p), n++)
      if (p === process.pid) return true;
    return false;
  };
  let rss = 0;
  let pss = 0;
  let count = 0;
  for (const pid of parents.keys()) {
    if (!isDescendant(pid)) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
      count++;
    } catch {}
  }
  return { rss, pss, count };
}

const echo = tool(
  { name: 'echo', description: 'Echoes its text', input: z.object({ text: z.string() }) },
  ({ text }) => `echo: ${text}`,
);
const scenario = {
  turns: [
    {
      actions: [
        ...Array.from({ length: calls }, (_, i) => ({
          mcpTool: { server: 'agy-sdk_tools', tool: 'echo', arguments: { text: `call ${i}` } },
        })),
        { text: 'done' },
      ],
    },
  ],
};
const scenarioFile = await writeScenario(scenario, root);
const warnings = [];
const logger = { ...silentLogger, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };

globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const t0 = performance.now();
const list = Array.from(
  { length: agents },
  () =>
    new Agent({
      agyPath: simulatorPath(),
      workspaces: [workspace],
      dataDir: join(root, 'data'),
      env: { HOME: home, AGY_SIM_STATE_DIR: join(root, 'sim-state'), AGY_SIM_SCENARIO: scenarioFile },
      tools: [echo],
      logger,
    }),
);
const startTimes = [];
const startErrors = [];
await Promise.all(
  list.map(async (agent) => {
    const s = performance.now();
    try {
      await agent.start();
      startTimes.push(performance.now() - s);
    } catch (err) {
      startErrors.push(String(err?.message ?? err));
    }
  }),
);
const started = performance.now();
const startStall = delay.max / 1e6;
delay.reset();
const rssStarted = process.memoryUsage().rss;
const kids = childrenMemory();

const statuses = {};
const tools = { DONE: 0, ERROR: 0 };
const toolErrors = {};
await Promise.all(
  list.map(async (agent) => {
    if (!agent.isStarted) return;
    const response = await agent.chat('call the tools');
    for await (const call of response.toolResults()) {
      tools[call.state] = (tools[call.state] ?? 0) + 1;
      if (call.error) toolErrors[call.error.message] = (toolErrors[call.error.message] ?? 0) + 1;
    }
    const result = await response.result();
    statuses[result.status] = (statuses[result.status] ?? 0) + 1;
  }),
);
const turned = performance.now();
const turnStall = delay.max / 1e6;
delay.reset();
const rssAfterTurns = process.memoryUsage().rss;
await Promise.all(list.map((a) => a.close()));
const closed = performance.now();
delay.disable();
rmSync(root, { recursive: true, force: true });

startTimes.sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      agents,
      toolCallsPerTurn: calls,
      startMsP50: Math.round(percentile(startTimes, 50)),
      startMsP99: Math.round(percentile(startTimes, 99)),
      startMsMax: Math.round(startTimes.at(-1)),
      startFailures: startErrors.length,
      startWallMs: Math.round(started - t0),
      turnsWallMs: Math.round(turned - started),
      closeWallMs: Math.round(closed - turned),
      totalWallMs: Math.round(closed - t0),
      hostRssMiBBefore: mib(rssBefore),
      hostRssMiBPerAgentStarted: mib((rssStarted - rssBefore) / agents),
      hostRssMiBPerAgentAfterTurns: mib((rssAfterTurns - rssBefore) / agents),
      childProcessesAfterStart: kids.count,
      childRssMiBPerAgent: mib(kids.rss / agents),
      childPssMiBPerAgent: mib(kids.pss / agents),
      maxEventLoopStallMsDuringStart: Math.round(startStall),
      maxEventLoopStallMsDuringTurns: Math.round(turnStall),
      maxEventLoopStallMsDuringClose: Math.round(delay.max / 1e6),
      turnStatuses: statuses,
      toolResults: tools,
      toolErrors,
      startErrors: [...new Set(startErrors)].slice(0, 5),
      warnings: warnings.length,
      sampleWarnings: [...new Set(warnings)].slice(0, 3),
    },
    null,
    2,
  ),
);
