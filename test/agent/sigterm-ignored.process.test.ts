// An agy that ignores SIGTERM (reported of 1.5 builds; the simulator's 1.5 profile,
// docs/reference/process.md#agy-15-ignores-sigterm): close() must still end it, by SIGKILL after the grace, and
// leave no process behind.
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import { useSandboxAgents } from '../helpers/agents.js';
import { waitGone } from '../helpers/sandbox.js';

const sb = useSandboxAgents();

async function firstStep(r: Awaited<ReturnType<Agent['chat']>>, type: string): Promise<void> {
  for await (const s of r.steps()) if (s.type === type) return;
}

/** Starts a turn that never ends and ignores SIGINT, then closes the agent; how did agy end? */
async function closeMidTurn(version: string): Promise<{ signal: unknown; pid: number }> {
  const agent = await sb.agentWith(
    { version, interrupt: { ignore: true }, turns: [{ actions: [{ stall: true }] }] },
    { closeGraceMs: 300 },
  );
  const r = await agent.chat('x');
  await firstStep(r, 'user_input');
  const pid = agent.pid!;
  const settled = r.result().then(
    (res) => ({ signal: res.signal }),
    (err: { signal?: unknown }) => ({ signal: err.signal }),
  );
  await agent.close();
  return { ...(await settled), pid };
}

describe.skipIf(process.platform === 'win32')('an agy that ignores SIGTERM', () => {
  it('1.5: close() escalates to SIGKILL and leaves no process', async () => {
    const ended = await closeMidTurn('1.5.0');
    expect(ended.signal).toBe('SIGKILL');
    expect(await waitGone([ended.pid])).toEqual([]);
  });

  it('1.3.1 still ends on SIGTERM by itself (its interrupted turn, no kill)', async () => {
    const ended = await closeMidTurn('1.3.1');
    expect(ended.signal).toBeNull();
    expect(await waitGone([ended.pid])).toEqual([]);
  });
});
