/**
 * The fleet across processes on a real Redis: two workers, each its own Node process running the built
 * `agy-sdk/fleet` on the simulator (test/fixtures/fleet-worker.mjs). A worker SIGKILLed mid-job loses the job
 * to the other, which resumes the conversation by id (agy's conversation store, here the simulator's state
 * dir, is shared); a 429 on one worker pauses the model for a worker that never saw it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFleetQueue, type FleetEvent, type FleetQueue } from '../../src/fleet/index.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { envSurvivors, pidsWithEnv } from '../helpers/env-marker.js';
import { eventsUntil } from '../helpers/fleet/events.js';
import { REDIS, useTestRedis } from '../helpers/fleet/redis.js';
import { type Sandbox, sandbox } from '../helpers/sandbox.js';

// Started by the file's beforeAll, only when a test of it runs (never while vitest collects).
const redis = useTestRedis();
if (REDIS.skipReason) console.warn(`[fleet process tests skipped] ${REDIS.skipReason}`);

const WORKER = fileURLToPath(new URL('../fixtures/fleet-worker.mjs', import.meta.url));
/** Every process of a test (workers and their agy children) carries this marker, so none is left behind. */
const MARK = 'AGY_SDK_FLEET_TEST_MARK';

let box: Sandbox;
let queueName: string;
let mark: string;
let client: FleetQueue | undefined;
const workers: ChildProcess[] = [];
beforeEach(async () => {
  box = await sandbox();
  queueName = `fleet-${randomUUID()}`;
  mark = randomUUID();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  for (const pid of pidsWithEnv(MARK, mark)) process.kill(pid, 'SIGKILL');
  expect(await envSurvivors(MARK, mark)).toEqual([]);
  await box.cleanup();
});

interface RunningWorker {
  child: ChildProcess;
  /** Resolves with the first line matching. */
  line(match: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/** Starts a worker process and waits until it takes jobs. */
async function startWorker(
  id: string,
  scenario: Scenario,
  extra: Record<string, unknown> = {},
): Promise<RunningWorker> {
  const agent = await box.agentConfig(scenario, { dataDir: join(box.root, `data-${id}`) });
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      [MARK]: mark,
      FLEET_WORKER: JSON.stringify({
        redisUrl: redis.url,
        queue: queueName,
        workerId: id,
        // A dead worker's job is recovered after about a lock period: short, so the test is quick.
        lockDurationMs: 2_000,
        stalledIntervalMs: 1_000,
        agent,
        ...extra,
      }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  workers.push(child);
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    match: (e: Record<string, unknown>) => boolean;
    resolve: (e: Record<string, unknown>) => void;
  }[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const event = JSON.parse(text) as Record<string, unknown>;
    lines.push(event);
    for (const w of waiters.splice(0)) w.match(event) ? w.resolve(event) : waiters.push(w);
  });
  const line = (match: (e: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = lines.find(match);
      if (seen) return resolve(seen);
      waiters.push({ match, resolve });
      child.once('exit', (code, signal) => reject(new Error(`worker ${id} exited (${signal ?? code})`)));
    });
  await line((e) => e.type === 'ready');
  return { child, line };
}

describe.skipIf(REDIS.skipReason !== '')('fleet across processes (real Redis)', () => {
  it('a worker SIGKILLed mid-job: the job completes on the other worker, resuming the conversation by id', async () => {
    const scenario: Scenario = {
      turns: [{ actions: [{ text: 'working' }, { stall: true }] }, { actions: [{ text: 'finished on b' }] }],
    };
    const a = await startWorker('a', scenario);
    client = await createFleetQueue({ connection: redis.url, name: queueName });
    const handle = await client.add({ key: 'review-42', prompt: 'review the PR' });
    const events = handle.events();
    const first = await eventsUntil(events, (e) => e.type === 'text');
    const started = first[0] as Extract<FleetEvent, { type: 'started' }>;
    expect(started).toMatchObject({ type: 'started', workerId: 'a' });
    await startWorker('b', scenario);
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    // a's agy runs in its own process group; a's supervisor kills it once a is gone, but may not have yet. End
    // it as an operator's machine reboot would; already gone (ESRCH) is the same outcome.
    try {
      process.kill(started.pid!, 'SIGKILL');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
    const rest = await eventsUntil(events, (e) => e.type === 'done');
    const result = await handle.result(90_000);
    expect(result).toMatchObject({
      status: 'success',
      text: 'finished on b',
      workerId: 'b',
      conversation: 'resumed',
      conversationId: started.conversationId,
    });
    const again = rest.find((e) => e.type === 'started');
    expect(again).toMatchObject({ workerId: 'b', resumedFrom: started.conversationId });
    // Each worker's events are in order.
    expect(first.map((e) => e.seq)).toEqual(first.map((_, i) => i));
    const fromB = rest.slice(rest.indexOf(again!));
    expect(fromB.map((e) => e.seq)).toEqual(fromB.map((_, i) => i));
  }, 120_000);

  it('a 429 on one worker pauses the model for every worker through Redis', async () => {
    // A transient 429 that states its reset (docs/reference/stream-json.md#rate-limit): the first turn of each
    // conversation is rate-limited, the next one succeeds.
    const scenario: Scenario = {
      turns: [
        {
          actions: [{ rateLimit: { retries: 2 } }],
          end: {
            status: 'ERROR',
            error: 'RESOURCE_EXHAUSTED (code 429): Resource has been exhausted. Resets in 3s.',
          },
        },
        { actions: [{ text: 'after the pause' }] },
      ],
    };
    const a = await startWorker('a', scenario);
    client = await createFleetQueue({ connection: redis.url, name: queueName });
    const limited = await client.add({ key: 'a', prompt: 'x' });
    const limitedEvents = limited.events();
    const seen = await eventsUntil(limitedEvents, (e) => e.type === 'rate_limited');
    const pause = seen.at(-1) as Extract<FleetEvent, { type: 'rate_limited' }>;
    expect(pause.untilMs).toBeGreaterThan(Date.now());
    // Worker a leaves (SIGTERM: graceful, its only job is delayed, not running); b never saw the 429.
    a.child.kill('SIGTERM');
    await once(a.child, 'exit');
    // b's script: key b's new conversation takes turn 1; key a's resumed one (turn 1 spent on a) takes turn 2.
    await startWorker('b', {
      turns: [{ actions: [{ text: 'b fine' }] }, { actions: [{ text: 'after the pause' }] }],
    });
    const other = await client.add({ key: 'b', prompt: 'y' });
    const otherStarted = (await eventsUntil(other.events(), (e) => e.type === 'started'))[0]!;
    const startedAt = Date.now();
    expect(otherStarted).toMatchObject({ workerId: 'b' });
    // b held the new job until the shared pause ended.
    expect(startedAt).toBeGreaterThanOrEqual(pause.untilMs);
    expect(await other.result(60_000)).toMatchObject({
      status: 'success',
      text: 'b fine',
      conversation: 'new',
    });
    const retried = await limited.result(60_000);
    expect(retried).toMatchObject({
      status: 'success',
      text: 'after the pause',
      workerId: 'b',
      conversation: 'resumed',
    });
  }, 120_000);
});
