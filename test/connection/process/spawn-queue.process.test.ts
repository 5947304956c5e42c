// "Nothing on the start path blocks the event loop": `child_process.spawn` is synchronous (libuv forks, then
// waits for the exec), so many agents started at once must not issue their spawns in one go, and nothing on the
// start path may use a synchronous child-process call at all. Ten agents start concurrently against the real
// simulator, with our own tools on (listener, MCP), through the real spawn path.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { AgentProcess } from '../../../src/connection/process/child-process.js';
import { spawnQueue } from '../../../src/connection/process/spawn-queue.js';
import { SessionDir } from '../../../src/connection/tool-server/session-dir.js';
import { tool } from '../../../src/tools/tool.js';
import { countLoopTurns } from '../../helpers/loop-turns.js';
import { type Sandbox, sandbox } from '../../helpers/sandbox.js';

const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
const SYNC_CALLS = ['spawnSync', 'execSync', 'execFileSync'] as const;

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

describe('a start storm', () => {
  it('starts 10 agents with one spawn and one session-file batch per event-loop turn, no synchronous child process, loop never stuck 1 s', async () => {
    // Every child-process call of this process is recorded with the loop turn it ran in.
    const loop = countLoopTurns();
    const spawnTurns: number[] = [];
    const syncCalls: string[] = [];
    const originals = {
      spawn: cp.spawn,
      spawnSync: cp.spawnSync,
      execSync: cp.execSync,
      execFileSync: cp.execFileSync,
    };
    const mutable = cp as unknown as Record<string, unknown>;
    mutable.spawn = (...args: Parameters<typeof cp.spawn>) => {
      spawnTurns.push(loop.turn);
      return (originals.spawn as (...a: unknown[]) => unknown)(...args);
    };
    for (const name of SYNC_CALLS) {
      mutable[name] = (...args: unknown[]) => {
        syncCalls.push(name);
        return (originals[name] as (...a: unknown[]) => unknown)(...args);
      };
    }
    syncBuiltinESMExports();
    // Each session's files are written synchronously in one batch: never two batches in one loop turn.
    const batchTurns: number[] = [];
    const writeAllPrivate = SessionDir.prototype.writeAllPrivate;
    SessionDir.prototype.writeAllPrivate = function (this: SessionDir, ...args) {
      batchTurns.push(loop.turn);
      return writeAllPrivate.apply(this, args);
    };
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const echo = tool(
      { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
      ({ text }) => text,
    );
    const agents: Agent[] = [];
    try {
      const config = await box.agentConfig(undefined, { tools: [echo] });
      for (let i = 0; i < 10; i++) agents.push(new Agent(config));
      delay.enable();
      await Promise.all(agents.map((a) => a.start()));
      delay.disable();
    } finally {
      SessionDir.prototype.writeAllPrivate = writeAllPrivate;
      Object.assign(mutable, originals);
      syncBuiltinESMExports();
      loop.stop();
      await Promise.all(agents.map((a) => a.close()));
    }
    expect(syncCalls).toEqual([]);
    // At least one supervisor per agent (plus the version probe, once).
    expect(spawnTurns.length).toBeGreaterThanOrEqual(10);
    const perTurn = new Map<number, number>();
    for (const t of spawnTurns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBe(1);
    expect(batchTurns).toHaveLength(10);
    expect(new Set(batchTurns).size).toBe(10);
    // Generous: a loaded 2-core box preempts us anyway; spawning ten at once blocked it for far longer per agent.
    expect(delay.max / 1e6).toBeLessThan(1000);
  });
});

/** A child that writes one line at once, then waits for stdin's end. */
const UP = 'process.stdout.write("up\\n"); process.stdin.resume();';

/** A resolvable promise. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Fills every spawn slot with a process whose start work is `works[i]`, then queues one more; resolves once
 * every filler has written its first line.
 */
async function fillSlots(holdMs: number, onExtraSpawn: () => void) {
  const works = Array.from({ length: spawnQueue.limit }, deferred);
  const firstLines = Array.from({ length: spawnQueue.limit }, deferred);
  const options = (i: number | undefined) => ({
    binary: process.execPath,
    args: ['-e', UP],
    env: process.env,
    cwd: box.root,
    onStdout: () => (i === undefined ? undefined : firstLines[i]!.resolve()),
    onStdoutEnd: () => {},
    onStderrLine: () => {},
    onSpawn: i === undefined ? onExtraSpawn : undefined,
    startWork: () => (i === undefined ? Promise.resolve() : works[i]!.promise),
    startWorkHoldMs: holdMs,
  });
  const fillers = works.map((_, i) => new AgentProcess(options(i)));
  const extra = new AgentProcess(options(undefined));
  await Promise.all(firstLines.map((d) => d.promise));
  // A slot freed at a first line would have let the extra spawn within a few loop turns.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return { works, fillers, extra, all: [...fillers, extra] };
}

const closeAll = (procs: AgentProcess[]) =>
  Promise.all(procs.map((p) => p.close({ graceMs: 2000, termGraceMs: 1000 })));

describe('a start slot held for the start work after the first output', () => {
  type Filled = Awaited<ReturnType<typeof fillSlots>>;
  it.each([
    {
      when: 'the start work is done, not at the first output',
      event: 'start work done',
      free: async ({ works }: Filled) => works[0]!.resolve(),
    },
    {
      when: 'the process exits before its start work is done',
      event: 'exited',
      free: ({ fillers }: Filled) => fillers[0]!.close({ graceMs: 2000, termGraceMs: 1000 }),
    },
  ])(
    'is freed when $when',
    async ({ event, free }) => {
      const order: string[] = [];
      const filled = await fillSlots(120_000, () => order.push('extra spawned'));
      try {
        expect(order).toEqual([]);
        order.push(event);
        await free(filled);
        await filled.extra.spawned;
        expect(order).toEqual([event, 'extra spawned']);
      } finally {
        await closeAll(filled.all);
      }
    },
    60_000,
  );

  it('is freed when the hold runs out, start work or not', async () => {
    const { extra, all } = await fillSlots(50, () => {});
    try {
      // Nothing is resolved and nothing exits: only the 50 ms bound frees a slot.
      await expect(extra.spawned).resolves.toBeTypeOf('number');
    } finally {
      await closeAll(all);
    }
  }, 60_000);
});
