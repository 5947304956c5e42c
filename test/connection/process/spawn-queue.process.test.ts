// "Nothing on the start path blocks the event loop": `child_process.spawn` is synchronous (libuv forks, then
// waits for the exec), so many agents started at once must not issue their spawns in one go, and nothing on the
// start path may use a synchronous child-process call at all. Ten agents start concurrently against the real
// simulator, with our own tools on (listener, MCP), through the real spawn path.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { tool } from '../../../src/tools/tool.js';
import { type Sandbox, sandbox } from '../../helpers/sandbox.js';

const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
const SYNC_CALLS = ['spawnSync', 'execSync', 'execFileSync'] as const;

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(() => box.cleanup());

describe('a start storm', () => {
  it('starts 10 agents with one spawn per event-loop turn, no synchronous child process, loop never stuck 1 s', async () => {
    // Every child-process call of this process is recorded with the loop turn it ran in.
    let turn = 0;
    let ticker: NodeJS.Immediate | undefined;
    const tick = () => {
      turn++;
      ticker = setImmediate(tick);
    };
    tick();
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
      spawnTurns.push(turn);
      return (originals.spawn as (...a: unknown[]) => unknown)(...args);
    };
    for (const name of SYNC_CALLS) {
      mutable[name] = (...args: unknown[]) => {
        syncCalls.push(name);
        return (originals[name] as (...a: unknown[]) => unknown)(...args);
      };
    }
    syncBuiltinESMExports();
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
      Object.assign(mutable, originals);
      syncBuiltinESMExports();
      if (ticker) clearImmediate(ticker);
      await Promise.all(agents.map((a) => a.close()));
    }
    expect(syncCalls).toEqual([]);
    // At least one supervisor per agent (plus the version probe, once).
    expect(spawnTurns.length).toBeGreaterThanOrEqual(10);
    const perTurn = new Map<number, number>();
    for (const t of spawnTurns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBe(1);
    // Generous: a loaded 2-core box preempts us anyway; spawning ten at once blocked it for far longer per agent.
    expect(delay.max / 1e6).toBeLessThan(1000);
  });
});
