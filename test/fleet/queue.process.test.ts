/**
 * The fleet on a real Redis with in-process workers on the simulator: progress events reach subscribers in
 * order with text batched, results are stored with the job, a conversation another worker's agy cannot find
 * restarts and says so, and a worker closing hands its running job back to another worker.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createFleetQueue,
  createFleetWorker,
  type FleetEvent,
  type FleetQueue,
  type FleetWorker,
} from '../../src/fleet/index.js';
import { type AgentConfig, ConfigError } from '../../src/index.js';
import { silentLogger } from '../../src/testing/index.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { collect } from '../helpers/agents.js';
import { eventsUntil } from '../helpers/fleet/events.js';
import { REDIS, useTestRedis } from '../helpers/fleet/redis.js';
import { type Sandbox, sandbox } from '../helpers/sandbox.js';

// Started by the file's beforeAll, only when a test of it runs (never while vitest collects).
const redis = useTestRedis();
if (REDIS.skipReason) console.warn(`[fleet tests skipped] ${REDIS.skipReason}`);

let box: Sandbox;
let queueName: string;
const closers: (() => Promise<unknown>)[] = [];
beforeEach(async () => {
  box = await sandbox();
  queueName = `fleet-${randomUUID()}`;
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await box.cleanup();
});

async function queue(): Promise<FleetQueue> {
  const q = await createFleetQueue({ connection: redis.url, name: queueName });
  closers.push(() => q.close());
  return q;
}

/** A worker on the simulator; `stateDir` is agy's conversation store (shared or not between workers). */
async function worker(
  id: string,
  scenario: Scenario,
  stateDir = box.stateDir,
  extra: AgentConfig = {},
): Promise<FleetWorker> {
  mkdirSync(stateDir, { recursive: true });
  const agent = await box.agentConfig(scenario, {
    ...extra,
    logger: silentLogger,
    dataDir: join(box.root, `data-${id}`),
    env: { AGY_SIM_STATE_DIR: stateDir },
  });
  const w = await createFleetWorker({
    connection: redis.url,
    name: queueName,
    workerId: id,
    progressBatchMs: 50,
    pool: { size: 2, agent, logger: silentLogger },
  });
  closers.push(() => w.close({ graceMs: 0 }));
  return w;
}

describe.skipIf(REDIS.skipReason !== '')('fleet (real Redis, in-process workers)', () => {
  it('progress events reach every subscriber in order, text batched; the result (cost included) is stored with the job', async () => {
    const CHUNKS = 40;
    const text = Array.from({ length: CHUNKS }, (_, i) => `w${i} `).join('');
    // A priced model (agy's default is on no price list: docs/observability.md#usage-and-cost).
    const price = { input: 1.25, output: 10, cacheRead: 0.125 };
    await worker('w1', { turns: [{ actions: [{ text, chunks: CHUNKS, delayMs: 5 }] }] }, box.stateDir, {
      pricing: { '*': price },
    });
    const client = await queue();
    const watcher = await queue();
    const id = randomUUID();
    const watched: FleetEvent[] = [];
    watcher.subscribe(id, (e) => watched.push(e));
    const handle = await client.add({ key: 'k', prompt: 'go' }, { jobId: id });
    const events = await collect(handle.events());
    const result = await handle.result(60_000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ type: 'started', workerId: 'w1' });
    expect(events[0]).not.toHaveProperty('resumedFrom');
    expect(events.at(-1)).toEqual({
      type: 'done',
      seq: events.length - 1,
      status: 'success',
      costUsd: result.costUsd,
    });
    const texts = events.filter((e) => e.type === 'text');
    expect(texts.map((e) => (e as { text: string }).text).join('')).toBe(text);
    // Batched: fewer progress writes than deltas.
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.length).toBeLessThan(CHUNKS);
    expect(result).toMatchObject({
      status: 'success',
      text,
      workerId: 'w1',
      conversation: 'new',
      errorMessage: '',
    });
    expect(result.usage?.outputTokens).toBeGreaterThan(0);
    const usage = result.usage!;
    const expected =
      (usage.inputTokens * price.input +
        usage.outputTokens * price.output +
        (usage.cacheReadTokens ?? 0) * price.cacheRead) /
      1e6;
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.costUsd).toBeCloseTo(expected, 12);
    expect(usage.costUsd).toBe(result.costUsd);
    // Another client reads the same stored result, and saw the same events in the same order.
    expect(await watcher.result(id)).toEqual(result);
    expect(watched).toEqual(events);
  });

  it('a conversation the next worker’s agy cannot find restarts (agy 1.3.x opens a fresh id), and the result says so', async () => {
    const scenario: Scenario = { turns: [{ actions: [{ text: 'first' }] }] };
    const a = await worker('a', scenario, join(box.root, 'state-a'));
    const client = await queue();
    const first = await (await client.add({ key: 'user-1', prompt: 'hello' })).result(60_000);
    expect(first).toMatchObject({ conversation: 'new', workerId: 'a', text: 'first' });
    // agy's default model is unpriced here: the cost is unknown (null), never 0.
    expect(first.usage?.outputTokens).toBeGreaterThan(0);
    expect(first.costUsd).toBeNull();
    await a.close();
    // Worker b has its own agy conversation store: the recorded id is unknown there.
    await worker('b', scenario, join(box.root, 'state-b'));
    const second = await (await client.add({ key: 'user-1', prompt: 'again' })).result(60_000);
    expect(second).toMatchObject({ conversation: 'restarted', workerId: 'b' });
    // agy warns `conversation "<id>" not found` and starts a new one (agy-real/littlebearapps-untether-agy-1.3.1/
    // unknown_conversation.script): the key follows agy's new id from then on.
    expect(second.conversationId).not.toBe(first.conversationId);
    const third = await (await client.add({ key: 'user-1', prompt: 'more' })).result(60_000);
    expect(third).toMatchObject({
      conversation: 'continued',
      workerId: 'b',
      conversationId: second.conversationId,
    });
  });

  it('a closing worker hands its running job back; another worker resumes the conversation and finishes it', async () => {
    const scenario: Scenario = {
      turns: [
        { actions: [{ text: 'begun' }, { stall: true }] },
        { actions: [{ text: 'finished elsewhere' }] },
      ],
    };
    const a = await worker('a', scenario);
    const client = await queue();
    const handle = await client.add({ key: 'k', prompt: 'long job' });
    const events = handle.events();
    const before = await eventsUntil(events, (e) => e.type === 'text');
    expect(before[0]).toMatchObject({ type: 'started', workerId: 'a' });
    await worker('b', scenario);
    await a.close({ graceMs: 100 });
    const after = await collect({ [Symbol.asyncIterator]: () => events });
    expect(after.map((e) => e.type)).toContain('handed_back');
    const result = await handle.result(60_000);
    expect(result).toMatchObject({
      status: 'success',
      text: 'finished elsewhere',
      workerId: 'b',
      conversation: 'resumed',
      conversationId: (before[0] as { conversationId: string }).conversationId,
    });
  });

  it('a malformed job is refused on the client with a ConfigError', async () => {
    const client = await queue();
    await expect(client.add({ key: '', prompt: 'x' })).rejects.toBeInstanceOf(ConfigError);
    await expect(client.add({ key: 'k', prompt: ' ' })).rejects.toThrow(/job.prompt/);
  });
});
