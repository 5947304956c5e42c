/**
 * AgentPool on the real simulator through the real spawn path: a killed agy is resumed by conversation id in a
 * new agent, a quota turn (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.*) pauses the model
 * until its stated reset time, and many sessions at once deliver every event.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Step } from '../../src/index.js';
import {
  AgentPool,
  type PoolAdmission,
  type PoolEvent,
  QueuedWorkAbortedError,
} from '../../src/pool/index.js';
import { silentLogger } from '../../src/testing/index.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { collect } from '../helpers/agents.js';
import { type Sandbox, sandbox, waitGone } from '../helpers/sandbox.js';

let box: Sandbox;
const pools: AgentPool[] = [];
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await box.cleanup();
});

async function poolWith(
  scenario: Scenario,
  options: { size: number; onEvent?: (e: PoolEvent) => void },
): Promise<AgentPool> {
  const agent = await box.agentConfig(scenario, { logger: silentLogger });
  const pool = new AgentPool({ ...options, agent });
  pools.push(pool);
  return pool;
}

describe('AgentPool on the simulator', () => {
  it('an agy killed mid-turn retires its agent; the key’s next run resumes the same conversation in a new agy', async () => {
    const events: PoolEvent[] = [];
    const pool = await poolWith(
      {
        turns: [
          { actions: [{ text: 'one' }] },
          { actions: [{ text: 'partial' }, { killSelf: 'SIGKILL' }] },
          { actions: [{ text: 'three' }] },
        ],
      },
      { size: 2, onEvent: (e) => events.push(e) },
    );
    const admissions: PoolAdmission[] = [];
    const onAdmitted = (a: PoolAdmission) => admissions.push(a);
    const first = await (await pool.run('k', 'a', { onAdmitted })).result();
    expect(first.text).toBe('one');
    const killed = await (await pool.run('k', 'b', { onAdmitted })).result();
    expect(killed).toMatchObject({ status: 'error', signal: 'SIGKILL' });
    expect(events.find((e) => e.type === 'agent_crashed')).toMatchObject({
      key: 'k',
      conversationId: first.conversationId,
    });
    const response = await pool.run('k', 'c', { onAdmitted });
    const steps: Step[] = await collect(response.steps());
    const third = await response.result();
    // The simulator keeps each conversation's scripted turns on disk: 'three' proves the conversation resumed.
    expect(third).toMatchObject({ status: 'success', text: 'three', conversationId: first.conversationId });
    // A resumed conversation's first turn carries a system_message (docs/reference/stream-json.md#step-types).
    expect(steps.some((s) => s.type === 'system_message')).toBe(true);
    expect(admissions[2]).toMatchObject({ resumedFrom: first.conversationId, firstTurn: true });
    expect(admissions[2]!.pid).not.toBe(admissions[0]!.pid);
    expect(pool.stats).toMatchObject({ crashed: 1, starts: { cold: 1, resumed: 1 } });
    const pids = admissions.map((a) => a.pid!);
    await pool.close();
    expect(await waitGone(pids)).toEqual([]);
  });

  it('a quota turn pauses the model until agy’s stated reset time; queued work waits and can be aborted', async () => {
    // agy's quota stop says "Resets in 34m13s" (docs/reference/stream-json.md#quota).
    const pool = await poolWith({ turns: [{ actions: [{ text: 'x' }], end: { quota: true } }] }, { size: 2 });
    const before = Date.now();
    const quota = await (await pool.run('a', 'go')).result();
    expect(quota.status).toBe('quota_exhausted');
    expect(quota.retryAfterMs).toBe((34 * 60 + 13) * 1000);
    const controller = new AbortController();
    const waiting = pool.run('b', 'later', { signal: controller.signal });
    const stats = pool.stats;
    expect(stats).toMatchObject({ queued: 1, paused: 1, busy: 0 });
    expect(stats.pausedModels[0]!.model).toBe('agy:default');
    expect(stats.pausedModels[0]!.untilMs).toBeGreaterThanOrEqual(before + quota.retryAfterMs!);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(QueuedWorkAbortedError);
  });

  it('50 concurrent sessions: every turn completes with every streamed event delivered', async () => {
    const SESSIONS = 50;
    const CHUNKS = 20;
    const text = Array.from({ length: CHUNKS }, (_, i) => `c${i} `).join('');
    const pool = await poolWith({ turns: [{ actions: [{ text, chunks: CHUNKS }] }] }, { size: SESSIONS });
    const runs = Array.from({ length: SESSIONS }, async (_, i) => {
      const response = await pool.run(`key-${i}`, `prompt ${i}`);
      const [deltas, steps] = await Promise.all([collect(response), collect(response.steps())]);
      return { deltas, steps, result: await response.result() };
    });
    const done = await Promise.all(runs);
    for (const { deltas, steps, result } of done) {
      expect(result.status).toBe('success');
      expect(deltas.join('')).toBe(text);
      expect(result.text).toBe(text);
      // Every text_delta update arrived as a step (the simulator writes CHUNKS of them for the action).
      expect(steps.filter((s) => s.type === 'agent_response' && s.textDelta).length).toBe(CHUNKS);
    }
    const conversations = new Set(done.map((d) => d.result.conversationId));
    expect(conversations.size).toBe(SESSIONS);
    expect(pool.stats).toMatchObject({ turns: SESSIONS, busy: 0, idle: SESSIONS, queued: 0 });
  }, 180_000);
});
