// Many agents at once (not a test; it loads the machine): for each size (default 1, 200 and 500 standalone;
// `npm run bench` runs 1 and 200, `BENCH_MANY_SIZES` to change) starts that many agents at once on the simulator
// with their own tools on, runs one turn in all of them at once (each calls an own tool `calls` times, then
// streams numbered text), lets them idle, and closes them. Reports per size: the start wall against the
// machine's floor measured in the same run (the summed CPU of what must boot, n bare simulator boots until
// `init` plus the supervisor's one Node boot if it woke by then (it waits as a shell until it is needed), ÷ cores;
// the boots are read before the sizes and after them), against the same with each agy's whole start work
// measured alone (its boot and then its MCP connection to the session's tools, which agy makes at start too),
// and against the CPU actually spent by the time the last start
// resolved (every agy process's CPU then, its work after its own `init` included, + the host's, ÷ cores: what the
// wall could be on an otherwise idle machine), each start's p50/p99, the turn in all at once, memory per
// session (the host's RSS growth, the PSS of the agy processes themselves, and what the SDK adds beyond them:
// host growth + every other child, the supervisor included), the supervisor's CPU while idle (utime+stime from
// /proc/<pid>/stat over a 10 s idle interval, as % of one core), the close time, lost or reordered events, and
// marked survivors. Needs `npm run build`; Linux for the /proc figures. 500 sessions need ~20 GiB free and an
// otherwise idle machine. Usage: node bench/many-agents.mjs [sizes=1,200,500] [calls=2] [idleSeconds=10]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Agent, tool } from 'agy-sdk';
import { silentLogger, simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod';

const standalone = import.meta.url === pathToFileURL(process.argv[1] ?? '').href;
const sizeArg = standalone ? process.argv[2] : undefined;
const calls = Number((standalone && process.argv[3]) || 2);
const idleSeconds = Number((standalone && process.argv[4]) || 10);
const cores = availableParallelism();
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

/** RSS and PSS (shared pages split fairly) of every descendant of this process, in bytes; `agy`: those pids. */
function childrenMemory(agyPids = new Set()) {
  const procs = processes();
  const isDescendant = (pid) => {
    for (let p = procs.get(pid)?.ppid, n = 0; p !== undefined && n < 64; p = procs.get(p)?.ppid, n++)
      if (p === process.pid) return true;
    return false;
  };
  let rss = 0;
  let pss = 0;
  let count = 0;
  let agyPss = 0;
  let agyCount = 0;
  for (const pid of procs.keys()) {
    if (!isDescendant(pid)) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const p = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
      pss += p;
      count++;
      if (agyPids.has(pid)) {
        agyPss += p;
        agyCount++;
      }
    } catch {}
  }
  return { rss, pss, count, agyPss, agyCount };
}

/**
 * The CPU time of a live process in ms, or undefined: the sum of its threads' run time in ns
 * (`/proc/<pid>/task/<tid>/schedstat`), not utime+stime, which come in clock ticks, each truncated: a bare
 * simulator boot read there came out ~10 ms (6 %) short of its run time, and it is the storm's floor. A thread
 * that already ended is missing from the sum; the tick figure is then the larger and is taken.
 */
function cpuMs(pid) {
  let ticksMs;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticksMs = ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) || 0;
  } catch {
    return ticksMs;
  }
  return Math.max(ns / 1e6, ticksMs);
}

/**
 * The CPU one bare boot costs, measured now: the simulator spawned directly with an Agent's flags, read at its
 * `init` line, and a bare Node boot (a Node that prints once it has booted, read at that line: the supervisor's
 * boot, which happens once per host). In ms of CPU, one sample per round.
 */
async function bootCpu(root, rounds = 9) {
  const one = (args, env, untilLine) =>
    new Promise((resolve, reject) => {
      const child = spawn(args[0], args.slice(1), { stdio: ['pipe', 'pipe', 'ignore'], env });
      child.on('error', reject);
      let ms;
      child.stdout.once('data', () => {
        ms = cpuMs(child.pid);
        child.stdin.end();
      });
      if (!untilLine) child.stdin.end();
      child.on('exit', () => resolve(ms));
    });
  const sim = [];
  for (let i = 0; i < rounds; i++) {
    const ms = await one(
      [
        simulatorPath(),
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--print-timeout',
        '0',
      ],
      { ...process.env, HOME: join(root, 'home'), AGY_SIM_STATE_DIR: join(root, `floor-${i}`) },
      true,
    );
    if (ms !== undefined) sim.push(ms);
  }
  // A Node boot that prints once it has booted, then waits for EOF: CPU read at that line.
  const node = [];
  for (let i = 0; i < rounds; i++) {
    const ms = await one(
      [process.execPath, '-e', 'process.stdout.write("up\\n"); process.stdin.resume()'],
      process.env,
      true,
    );
    if (ms !== undefined) node.push(ms);
  }
  return { simulator: sim, node };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** One agent of the bench: the simulator with the scenario and the own tool. */
function benchAgent(root, scenarioFile, logger) {
  return new Agent({
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
  });
}

/**
 * All the CPU one agy process spends on starting a session, alone on the machine: an Agent with the same tools
 * is started, then the simulator's CPU is read once it has stopped rising (its boot, and after `init` its MCP
 * connection to the session's tool server, which agy makes at start too). In ms, one sample per round.
 */
async function sessionStartCpu(root, scenarioFile, rounds = 5) {
  const out = [];
  for (let i = 0; i < rounds; i++) {
    const agent = benchAgent(root, scenarioFile, silentLogger);
    try {
      await agent.start();
      let last = -1;
      let now = cpuMs(agent.pid) ?? 0;
      // Settled: under 1 ms more over 200 ms, twice in a row (bounded at 10 s).
      for (let still = 0, t = 0; still < 2 && t < 50; t++) {
        await new Promise((r) => setTimeout(r, 200));
        last = now;
        now = cpuMs(agent.pid) ?? now;
        still = now - last < 1 ? still + 1 : 0;
      }
      out.push(now);
    } finally {
      await agent.close();
    }
  }
  return out;
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
  const list = Array.from({ length: n }, () => benchAgent(root, scenarioFile, logger));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const startTimes = [];
  /** Each agy process's own CPU when its start resolved (its boot under the same load). */
  let agyBootCpu = 0;
  const startErrors = [];
  await Promise.all(
    list.map(async (agent) => {
      const s = performance.now();
      try {
        await agent.start();
        startTimes.push(performance.now() - s);
        agyBootCpu += cpuMs(agent.pid) ?? 0;
      } catch (err) {
        startErrors.push(String(err?.message ?? err));
      }
    }),
  );
  const started = performance.now();
  const hostCpu = process.cpuUsage(cpu0);
  const hostStartCpuMs = (hostCpu.user + hostCpu.system) / 1000;
  // Every agy process's CPU when the last start resolved: its boot plus what it did after its own `init` while
  // the others still booted (the simulator connects its MCP servers, own tools included, right after `init`).
  const agyCpuAtStartEnd = list.reduce((sum, a) => sum + (cpuMs(a.pid) ?? 0), 0);
  // The supervisor boots Node only once woken (its control lines, a kill-tree); until then it is a shell.
  const supervisorWoken = supervisors().some((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`) === process.execPath;
    } catch {
      return false;
    }
  });
  const startStall = delay.max / 1e6;
  delay.reset();
  const marks = list.map((a) => (a.pid ? markOf(a.pid) : undefined)).filter(Boolean);
  const kids = childrenMemory(new Set(list.map((a) => a.pid).filter(Boolean)));
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
  const sdkAdded = rssStarted - rssBefore + (kids.pss - kids.agyPss);
  return {
    sessions: n,
    startFailures: startErrors.length,
    startErrors: [...new Set(startErrors)].slice(0, 3),
    startWallMs: round(started - t0),
    supervisorWoken,
    agyBootCpuMsPerSession: round(agyBootCpu / n),
    agyCpuMsPerSessionAtStartEnd: round(agyCpuAtStartEnd / n),
    hostStartCpuMsPerSession: round(hostStartCpuMs / n),
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
    agyPssMiBPerSession: mib(kids.agyPss / Math.max(1, kids.agyCount)),
    otherChildPssMiBPerSession: mib((kids.pss - kids.agyPss) / n),
    sdkAddedMiBPerSession: mib(sdkAdded / n),
    maxEventLoopStallMs: { start: round(startStall), turn: round(turnStall), close: round(closeStall) },
    warnings: warnings.length,
    sampleWarnings: [...new Set(warnings)].slice(0, 3),
  };
}

/**
 * A row's floors. The machine's floor: what must boot (n agy processes, and the supervisor's Node if it woke)
 * on all cores, with nothing else in the way, and never less than one boot (a process does not run on two
 * cores). The same with each agy's whole start work (boot and MCP connection) measured alone. And the CPU
 * actually spent by the time the last start resolved, ÷ cores.
 */
function withFloors(r, floorCpu) {
  const n = r.sessions;
  const supervisorMs = r.supervisorWoken ? floorCpu.nodeMs : 0;
  const floorMs = Math.max(floorCpu.simulatorMs, (n * floorCpu.simulatorMs + supervisorMs) / cores);
  const sessionFloorMs = Math.max(
    floorCpu.sessionStartMs,
    (n * floorCpu.sessionStartMs + supervisorMs) / cores,
  );
  return {
    ...r,
    machineFloorMs: round(floorMs),
    sessionStartFloorMs: round(sessionFloorMs),
    workFloorMs: round(
      (n * (r.agyCpuMsPerSessionAtStartEnd + r.hostStartCpuMsPerSession) + supervisorMs) / cores,
    ),
    ratioStartWallVsFloor: round(r.startWallMs / floorMs, 2),
  };
}

export async function run(sizes = (process.env.BENCH_MANY_SIZES ?? '1,200').split(',').map(Number)) {
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
  // The floors are measured before the sizes and again after them, and each is the median of both sets: the
  // speed of a shared machine drifts within minutes (a bare boot read 160-250 ms within one hour here), and a
  // floor read only before would carry a drift the storm did not see.
  const measured = [];
  const samples = { before: undefined, after: undefined };
  const floorSamples = async () => ({
    ...(await bootCpu(root)),
    sessionStart: await sessionStartCpu(root, scenarioFile),
  });
  try {
    samples.before = await floorSamples();
    for (const n of sizes) {
      const r = await measure(n, root, scenarioFile);
      measured.push(r);
      if (standalone) console.log(JSON.stringify(r));
    }
    samples.after = await floorSamples();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const both = (key) => [...samples.before[key], ...samples.after[key]];
  const floorCpu = {
    simulatorMs: median(both('simulator')),
    nodeMs: median(both('node')),
    sessionStartMs: median(both('sessionStart')),
  };
  const rows = measured.map((r) => withFloors(r, floorCpu));
  const out = {
    cores,
    bootCpuMs: {
      simulator: round(floorCpu.simulatorMs),
      simulatorBeforeAfter: [round(median(samples.before.simulator)), round(median(samples.after.simulator))],
      node: round(floorCpu.nodeMs),
      simulatorSessionStart: round(floorCpu.sessionStartMs),
      simulatorSessionStartBeforeAfter: [
        round(median(samples.before.sessionStart)),
        round(median(samples.after.sessionStart)),
      ],
    },
  };
  for (const r of rows) {
    out[`n${r.sessions}`] = {
      startWallMs: r.startWallMs,
      supervisorWoken: r.supervisorWoken,
      machineFloorMs: r.machineFloorMs,
      sessionStartFloorMs: r.sessionStartFloorMs,
      workFloorMs: r.workFloorMs,
      agyBootCpuMsPerSession: r.agyBootCpuMsPerSession,
      agyCpuMsPerSessionAtStartEnd: r.agyCpuMsPerSessionAtStartEnd,
      hostStartCpuMsPerSession: r.hostStartCpuMsPerSession,
      startP50Ms: r.startMsP50,
      startP99Ms: r.startMsP99,
      turnAllWallMs: r.turnAllWallMs,
      hostRssMiBPerSession: r.hostRssMiBPerSessionStarted,
      agyPssMiBPerSession: r.agyPssMiBPerSession,
      sdkAddedMiBPerSession: r.sdkAddedMiBPerSession,
      idleSupervisors: r.idleSupervisors,
      idleSupervisorTicks: r.idleSupervisorTicks,
      startFailures: r.startFailures,
      lostOrReorderedTurns: r.lostOrReorderedTurns,
      markedSurvivors: r.markedSurvivors,
    };
    out[`ratioStartWallVsFloorN${r.sessions}`] = r.ratioStartWallVsFloor;
    out[`ratioStartWallVsSessionFloorN${r.sessions}`] = round(r.startWallMs / r.sessionStartFloorMs, 2);
  }
  return out;
}

if (standalone) {
  const sizes = (sizeArg ?? '1,200,500').split(',').map(Number);
  const out = await run(sizes);
  console.log(
    `\nSummary (machine floor = (n × ${out.bootCpuMs.simulator} ms simulator boot CPU + ${out.bootCpuMs.node} ms supervisor Node boot if it woke) ÷ ${cores} cores, at least one boot, same run):`,
  );
  for (const n of sizes) {
    const r = out[`n${n}`];
    console.log(
      `  n=${String(n).padStart(3)} start wall=${r.startWallMs} ms (floor ${r.machineFloorMs} ms, ${out[`ratioStartWallVsFloorN${n}`]}×; with each agy's whole start work, ${out.bootCpuMs.simulatorSessionStart} ms alone: ${r.sessionStartFloorMs} ms, ${out[`ratioStartWallVsSessionFloorN${n}`]}×; CPU spent by then ÷ cores ${r.workFloorMs} ms: agy ${r.agyCpuMsPerSessionAtStartEnd} ms + host ${r.hostStartCpuMsPerSession} ms per session) p50/p99=${r.startP50Ms}/${r.startP99Ms} ms` +
        ` turnAll=${r.turnAllWallMs} ms host=${r.hostRssMiBPerSession} MiB/session agy=${r.agyPssMiBPerSession} MiB PSS sdkAdded=${r.sdkAddedMiBPerSession} MiB/session` +
        ` idle supervisors=${r.idleSupervisors} (${r.idleSupervisorTicks} ticks) failures=${r.startFailures} lost/reordered=${r.lostOrReorderedTurns} survivors=${r.markedSurvivors}`,
    );
  }
}
