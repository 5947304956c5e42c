// Many agents at once (not part of `npm run bench`, not a test; it loads the machine): for each size (default
// 1, 50 and 200) starts that many agents at once on the simulator with their own tools on, runs one turn in all
// of them at once (each calls an own tool `calls` times, then streams numbered text), lets them idle, and
// closes them. Reports per size: start time per session (start wall ÷ n, and each start's p50/p99), the turn
// in all at once, the supervisors' CPU while idle (utime+stime from /proc/<pid>/stat, summed over a 10 s idle
// interval, as % of one core), the close time, lost or reordered events, and marked survivors. Ratios are
// against size 1 measured in the same run. Needs `npm run build`; Linux for the /proc figures.
// Usage: node bench/many-agents.mjs [sizes=1,50,200] [calls=2] [idleSeconds=10]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, silentLogger, tool } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod';

const sizes = (process.argv[2] ?? '1,50,200').split(',').map(Number);
const calls = Number(process.argv[3] ?? 2);
const idleSeconds = Number(process.argv[4] ?? 10);
const CHUNKS = 20;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const round = (n, d = 0) => Math.round(n * 10 ** d) / 10 ** d;

/** pid → { ppid, ticks, cmdline } for every process (Linux). */
function processes() {
  const out = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {}
  }
  return out;
}

/** This process's children running the supervisor script. */
function supervisors() {
  const out = [];
  for (const [pid, p] of processes()) {
    if (p.ppid !== process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('supervisor.js')) out.push(pid);
    } catch {}
  }
  return out;
}

/** RSS and PSS (shared pages split fairly) of every descendant of this process, in bytes. */
function childrenMemory() {
  const procs = processes();
  const isDescendant = (pid) => {
    for (let p = procs.get(pid)?.ppid, n = 0; p !== undefined && n < 64; p = procs.get(p)?.ppid, n++)
      if (p === process.pid) return true;
    return false;
  };
  let rss = 0;
  let pss = 0;
  let count = 0;
  for (const pid of procs.keys()) {
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

function markOf(pid) {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .find((e) => e.startsWith('AGY_SDK_SESSION_MARK='));
    return entry?.slice('AGY_SDK_SESSION_MARK='.length);
  } catch {
    return undefined;
  }
}

/** Live processes holding any of `marks`. */
function markedAlive(marks) {
  const wanted = new Set(marks);
  let n = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1');
      const at = env.indexOf('AGY_SDK_SESSION_MARK=');
      if (at === -1) continue;
      const end = env.indexOf('\0', at);
      if (wanted.has(env.slice(at + 21, end === -1 ? undefined : end))) n++;
    } catch {}
  }
  return n;
}

const echo = tool(
  { name: 'echo', description: 'Echoes its text', input: z.object({ text: z.string() }) },
  ({ text }) => `echo: ${text}`,
);
const text = Array.from({ length: CHUNKS }, (_, i) => `w${i}`).join(' ');

async function measure(n, root, scenarioFile) {
  const warnings = [];
  const logger = { ...silentLogger, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const list = Array.from(
    { length: n },
    () =>
      new Agent({
        agyPath: simulatorPath(),
        workspaces: [join(root, 'workspace')],
        dataDir: join(root, 'data'),
        env: {
          HOME: join(root, 'home'),
          AGY_SIM_STATE_DIR: join(root, 'sim-state'),
          AGY_SIM_SCENARIO: scenarioFile,
        },
        tools: [echo],
        logger,
      }),
  );
  const t0 = performance.now();
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
  const marks = list.map((a) => (a.pid ? markOf(a.pid) : undefined)).filter(Boolean);
  const kids = childrenMemory();
  const rssStarted = process.memoryUsage().rss;

  const statuses = {};
  let lostOrReordered = 0;
  let toolsDone = 0;
  await Promise.all(
    list.map(async (agent) => {
      if (!agent.isStarted) return;
      const response = await agent.chat('call the tools');
      let streamed = '';
      for await (const delta of response) streamed += delta;
      const indexes = [];
      for await (const step of response.steps()) indexes.push(step.stepIndex);
      for await (const call of response.toolResults()) if (call.state === 'DONE') toolsDone++;
      const ordered = indexes.every((x, i) => i === 0 || indexes[i - 1] <= x);
      if (streamed !== text || !ordered) lostOrReordered++;
      const result = await response.result();
      statuses[result.status] = (statuses[result.status] ?? 0) + 1;
    }),
  );
  const turned = performance.now();
  const turnStall = delay.max / 1e6;
  const rssAfterTurns = process.memoryUsage().rss;

  // Idle: every supervisor's CPU time over the interval (after 1 s for a last GC after the burst).
  await new Promise((r) => setTimeout(r, 1000));
  const sups = supervisors();
  const before = processes();
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const after = processes();
  let idleTicks = 0;
  for (const pid of sups) {
    const a = before.get(pid);
    const b = after.get(pid);
    if (a && b) idleTicks += Math.max(0, b.ticks - a.ticks);
  }

  delay.reset();
  const c0 = performance.now();
  await Promise.all(list.map((a) => a.close()));
  const closed = performance.now();
  const closeStall = delay.max / 1e6;
  delay.disable();
  // Survivors: give the supervisors' last kills a moment, bounded.
  let survivors = markedAlive(marks);
  for (let i = 0; i < 100 && survivors > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    survivors = markedAlive(marks);
  }

  startTimes.sort((a, b) => a - b);
  return {
    sessions: n,
    startFailures: startErrors.length,
    startErrors: [...new Set(startErrors)].slice(0, 3),
    startWallMs: round(started - t0),
    startMsPerSession: round((started - t0) / n),
    startMsP50: round(percentile(startTimes, 50)),
    startMsP99: round(percentile(startTimes, 99)),
    turnAllWallMs: round(turned - started),
    turnStatuses: statuses,
    toolCallsDone: toolsDone,
    toolCallsExpected: n * calls,
    lostOrReorderedTurns: lostOrReordered,
    idleSupervisors: sups.length,
    idleSupervisorTicks: idleTicks,
    idleSupervisorCpuPercentOfOneCore: round((idleTicks / TICKS_PER_SECOND / idleSeconds) * 100, 2),
    closeWallMs: round(closed - c0),
    markedSurvivors: survivors,
    hostRssMiBPerSession: mib((rssAfterTurns - rssBefore) / n),
    hostRssMiBPerSessionStarted: mib((rssStarted - rssBefore) / n),
    childProcesses: kids.count,
    childPssMiBPerSession: mib(kids.pss / n),
    maxEventLoopStallMs: { start: round(startStall), turn: round(turnStall), close: round(closeStall) },
    warnings: warnings.length,
    sampleWarnings: [...new Set(warnings)].slice(0, 3),
  };
}

const root = mkdtempSync(join(tmpdir(), 'agy-sdk-many-'));
for (const dir of ['workspace', 'home']) mkdirSync(join(root, dir));
const scenarioFile = await writeScenario(
  {
    turns: [
      {
        actions: [
          ...Array.from({ length: calls }, (_, i) => ({
            mcpTool: { server: 'agy-sdk_tools', tool: 'echo', arguments: { text: `call ${i}` } },
          })),
          { text, chunks: CHUNKS },
        ],
      },
    ],
  },
  root,
);
const results = [];
try {
  for (const n of sizes) {
    const r = await measure(n, root, scenarioFile);
    results.push(r);
    console.log(JSON.stringify(r));
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
const one = results.find((r) => r.sessions === 1);
console.log('\nSummary (ratios against 1 session in the same run):');
for (const r of results) {
  const ratio = one ? ` startPerSession÷1=${round(r.startMsPerSession / one.startMsPerSession, 2)}` : '';
  console.log(
    `  n=${String(r.sessions).padStart(3)} start/session=${r.startMsPerSession} ms${ratio} turnAll=${r.turnAllWallMs} ms` +
      ` idleSupervisorCpu=${r.idleSupervisorCpuPercentOfOneCore}% (${r.idleSupervisorTicks} ticks/${idleSeconds} s, ${r.idleSupervisors} supervisors)` +
      ` close=${r.closeWallMs} ms failures=${r.startFailures} lost/reordered=${r.lostOrReorderedTurns} survivors=${r.markedSurvivors}`,
  );
}
