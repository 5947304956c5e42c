/**
 * The fleet under faults, on a real `redis-server` this file starts itself (ownRedis: append-only, fsync on
 * every write) so it may SIGKILL it and start it again on the same port: closes during an outage are bounded,
 * an outage longer than the job lock never runs a turn twice, a worker SIGTERMed during an outage exits, the
 * connection is reported lost and regained once each with no raw stack on the console; with no Redis at all a
 * start rejects in bounded time. Bad jobs added straight through BullMQ fail once, naming the field; many
 * concurrent `result()` calls leak no listener.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createFleetQueue,
  createFleetWorker,
  type FleetEvent,
  type FleetQueue,
  type FleetWorker,
  type FleetWorkerOptions,
  RedisUnavailableError,
} from '../../src/fleet/index.js';
import type { Logger } from '../../src/index.js';
import { silentLogger } from '../../src/testing/index.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { collect } from '../helpers/agents.js';
import { envSurvivors, pidsWithEnv } from '../helpers/env-marker.js';
import { until } from '../helpers/fake-agy.js';
import { eventsUntil } from '../helpers/fleet/events.js';
import { freePort, REDIS, useOwnRedis, useTestRedis } from '../helpers/fleet/redis.js';
import { type Sandbox, sandbox } from '../helpers/sandbox.js';

/** Whether this file can start (and SIGKILL) a redis-server of its own. */
const canOwn = REDIS.binary !== undefined;
if (!canOwn) console.warn('[fleet fault tests skipped] redis-server is not on PATH');

const WORKER = fileURLToPath(new URL('../fixtures/fleet-worker.mjs', import.meta.url));
const MARK = 'AGY_SDK_FLEET_FAULT_MARK';

/** A logger that keeps every line. */
function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => lines.push({ level, message });
  return { lines, debug: () => {}, info: at('info'), warn: at('warn'), error: at('error') };
}

/** An event that can be awaited. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

let box: Sandbox;
let queueName: string;
let mark: string;
const closers: (() => Promise<unknown>)[] = [];
const children: ChildProcess[] = [];
beforeEach(async () => {
  box = await sandbox();
  queueName = `fault-${randomUUID()}`;
  mark = randomUUID();
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of closers.splice(0).reverse()) await close();
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of pidsWithEnv(MARK, mark)) process.kill(pid, 'SIGKILL');
  expect(await envSurvivors(MARK, mark)).toEqual([]);
  await box.cleanup();
});

async function worker(
  url: string,
  id: string,
  scenario: Scenario,
  extra: Partial<FleetWorkerOptions> = {},
): Promise<FleetWorker> {
  mkdirSync(box.stateDir, { recursive: true });
  const agent = await box.agentConfig(scenario, {
    logger: silentLogger,
    dataDir: join(box.root, `data-${id}`),
    env: { AGY_SIM_STATE_DIR: box.stateDir, [MARK]: mark },
  });
  const w = await createFleetWorker({
    connection: url,
    name: queueName,
    workerId: id,
    progressBatchMs: 50,
    logger: silentLogger,
    pool: { size: 2, agent, logger: silentLogger },
    ...extra,
  });
  closers.push(() => w.close({ graceMs: 0 }));
  return w;
}

async function queue(url: string, logger: Logger = silentLogger): Promise<FleetQueue> {
  const q = await createFleetQueue({ connection: url, name: queueName, logger, closeTimeoutMs: 1_000 });
  closers.push(() => q.close());
  return q;
}

/** The simulator's record of a conversation (its state file): how many turns agy really ran. */
function simulatorTurns(conversationId: string): number {
  const state = JSON.parse(readFileSync(join(box.stateDir, `${conversationId}.json`), 'utf8')) as {
    numTurns: number;
  };
  return state.numTurns;
}

/** Console output of this process (ioredis' "Unhandled error event", BullMQ's console.error fallback). */
function consoleSpy(): () => string[] {
  const seen: string[] = [];
  for (const name of ['error', 'warn', 'log'] as const)
    vi.spyOn(console, name).mockImplementation((...args: unknown[]) => {
      seen.push(args.map(String).join(' '));
    });
  return () => seen;
}

describe('fleet with no Redis at all', () => {
  it('createFleetQueue and createFleetWorker reject with RedisUnavailableError within connectTimeoutMs, printing nothing', async () => {
    const printed = consoleSpy();
    const url = `redis://127.0.0.1:${await freePort()}`;
    const logger = recordingLogger();
    const q = createFleetQueue({ connection: url, name: 'nowhere', connectTimeoutMs: 1_500, logger });
    await expect(q).rejects.toBeInstanceOf(RedisUnavailableError);
    await expect(q).rejects.toMatchObject({ code: 'redis_unavailable', waitedMs: 1_500 });
    await expect(q).rejects.toThrow(/127\.0\.0\.1:\d+ did not answer within 1500 ms/);
    const w = createFleetWorker({
      connection: url,
      name: 'nowhere',
      connectTimeoutMs: 1_500,
      logger,
      pool: { size: 1, agent: { logger: silentLogger } },
    });
    await expect(w).rejects.toBeInstanceOf(RedisUnavailableError);
    // Reported through the logger, once per attempt and once when it gave up; never raw traces.
    expect(logger.lines.filter((l) => /cannot reach Redis/.test(l.message))).toHaveLength(2);
    expect(logger.lines.filter((l) => l.level === 'error' && /gave up/.test(l.message))).toHaveLength(2);
    expect(printed()).toEqual([]);
  }, 30_000);
});

describe.skipIf(!canOwn)('fleet under a Redis outage (own redis-server, SIGKILLed and restarted)', () => {
  // Started by this block's beforeAll (never while vitest collects); each test starts with it up, whatever the
  // previous one left.
  const redis = useOwnRedis();
  beforeEach(() => redis.restart());

  it('worker.close({ graceMs: 0 }) and queue.close() during an outage return within their bounds and say so', async () => {
    const logger = recordingLogger();
    const w = await worker(
      redis.url,
      'w',
      { turns: [{ actions: [{ text: 'begun' }, { stall: true }] }] },
      {
        logger,
        closeTimeoutMs: 1_000,
      },
    );
    const queueLogger = recordingLogger();
    const client = await queue(redis.url, queueLogger);
    const handle = await client.add({ key: 'k', prompt: 'long' });
    await eventsUntil(handle.events(), (e) => e.type === 'text');
    await redis.kill();
    // Both were pending forever before (BullMQ's own Worker.close() hangs the same way during an outage).
    await Promise.all([w.close({ graceMs: 0 }), client.close()]);
    expect(w.pool.stats).toMatchObject({ busy: 0, idle: 0 });
    expect(
      logger.lines.some((l) => l.level === 'warn' && /force-closed; not handed back: job/.test(l.message)),
    ).toBe(true);
    // BullMQ's QueueEvents.close() may or may not return during an outage; ours did, and a forced close is logged.
    const forced = queueLogger.lines.filter((l) => /while closing; connections force-closed/.test(l.message));
    expect(forced.length).toBeLessThanOrEqual(1);
    await expect(client.add({ key: 'k', prompt: 'late' })).rejects.toThrow(/closed/);
  }, 60_000);

  it('a worker process SIGTERMed during an outage exits (bounded close), and its job is recovered once Redis is back', async () => {
    const scenario: Scenario = {
      turns: [{ actions: [{ text: 'working' }, { stall: true }] }, { actions: [{ text: 'finished after' }] }],
    };
    const a = await startWorker(redis.url, 'a', scenario);
    const client = await queue(redis.url);
    const handle = await client.add({ key: 'k', prompt: 'long job' });
    const events = handle.events();
    await eventsUntil(events, (e) => e.type === 'text');
    await redis.kill();
    a.child.kill('SIGTERM');
    // Before: still alive 40 s after Redis came back. Now: it exits while Redis is still down.
    const [code] = await once(a.child, 'exit');
    expect(code).toBe(0);
    expect(a.lines.some((l) => l.type === 'log' && /force-closed/.test(String(l.message)))).toBe(true);
    await redis.restart();
    // Its job was left locked; BullMQ's stalled-job check returns it, and another worker finishes it.
    await startWorker(redis.url, 'b', scenario);
    const result = await handle.result(90_000);
    expect(result).toMatchObject({ status: 'success', workerId: 'b', conversation: 'resumed' });
  }, 120_000);

  it('an outage longer than the job lock: the finished turn is kept and stored once; the prompt reaches agy once', async () => {
    const printed = consoleSpy();
    const turnEnded = deferred();
    const logger = recordingLogger();
    const queueLogger = recordingLogger();
    // The first turn streams for about 2 s; a second turn exists only to be seen if the prompt were sent again.
    const scenario: Scenario = {
      turns: [
        { actions: [{ text: 'the only answer', chunks: 10, delayMs: 200 }] },
        { actions: [{ text: 'SENT TWICE' }] },
      ],
    };
    const w = await worker(redis.url, 'w', scenario, {
      logger,
      lockDurationMs: 1_000,
      stalledIntervalMs: 500,
    });
    void w;
    const client = await queue(redis.url, queueLogger);
    // The pool's own gauge says when agy finished the turn (Redis is down then: no event can say it).
    const statsTurn = setInterval(() => {
      if (w.pool.stats.turns >= 1) turnEnded.resolve();
    }, 50);
    try {
      const handle = await client.add({ key: 'k', prompt: 'once' });
      const events = handle.events();
      const started = (await eventsUntil(events, (e) => e.type === 'started'))[0] as Extract<
        FleetEvent,
        { type: 'started' }
      >;
      await redis.kill();
      await turnEnded.promise;
      // Down for longer than the lock (1 s): the lock is gone when Redis comes back.
      await new Promise((r) => setTimeout(r, 2_000));
      await redis.restart();
      const rest = await collect({ [Symbol.asyncIterator]: () => events });
      const result = await handle.result(60_000);
      expect(result).toMatchObject({ status: 'success', text: 'the only answer', workerId: 'w' });
      // Never two: the retry of the same attempt writes no event of its own. (Under heavy load the client's
      // event stream, reconnecting, may end on the completion before the one `done` reaches it.)
      const dones = [started, ...rest].filter((e) => e.type === 'done');
      expect(dones.length, JSON.stringify([started, ...rest])).toBeLessThanOrEqual(1);
      expect(simulatorTurns(started.conversationId!)).toBe(1);
    } finally {
      clearInterval(statsTurn);
    }
    // The outage was reported once lost and once regained by each side, and nothing raw reached the console.
    // A side's reconnection may be logged just after the result arrived through the other: wait for it (bounded).
    for (const l of [logger, queueLogger])
      await until(() => l.lines.some((x) => /regained/.test(x.message)), 30_000);
    for (const l of [logger, queueLogger]) {
      expect(l.lines.filter((x) => /lost the connection to Redis/.test(x.message))).toHaveLength(1);
      expect(l.lines.filter((x) => /regained/.test(x.message))).toHaveLength(1);
    }
    expect(printed()).toEqual([]);
  }, 120_000);
});

interface RunningWorker {
  child: ChildProcess;
  lines: Record<string, unknown>[];
}

/** A worker in its own process (test/fixtures/fleet-worker.mjs, handleSignals), once it takes jobs. */
async function startWorker(url: string, id: string, scenario: Scenario): Promise<RunningWorker> {
  const agent = await box.agentConfig(scenario, { dataDir: join(box.root, `data-${id}`) });
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      [MARK]: mark,
      FLEET_WORKER: JSON.stringify({
        redisUrl: url,
        queue: queueName,
        workerId: id,
        lockDurationMs: 2_000,
        stalledIntervalMs: 1_000,
        shutdownGraceMs: 500,
        closeTimeoutMs: 1_000,
        agent,
      }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      const event = JSON.parse(text) as Record<string, unknown>;
      lines.push(event);
      if (event.type === 'ready') resolve();
    });
    child.once('exit', (code, signal) => reject(new Error(`worker ${id} exited (${signal ?? code})`)));
  });
  await ready;
  return { child, lines };
}

describe.skipIf(REDIS.skipReason !== '')('fleet jobs a worker cannot run', () => {
  const shared = useTestRedis();
  it('a bad job added straight through BullMQ fails once, unretried, naming the field; no agent is started', async () => {
    const url = shared.url;
    const w = await worker(url, 'w', { turns: [{ actions: [{ text: 'never' }] }] });
    const client = await queue(url);
    const bad: [unknown, RegExp][] = [
      [{ key: 'k', prompt: 'p', config: 'fast' }, /job\.config: must be/],
      [{ key: 5, prompt: 'p' }, /job\.key: must be a non-empty string/],
      [{ key: 'k', prompt: 7 }, /job\.prompt: must be a non-empty string/],
      [{ key: 'k', prompt: 'p', config: { turnTimeoutMs: 'soon' } }, /job\.config\.turnTimeoutMs/],
      [{ key: 'k', prompt: 'p', config: { turnTimeoutMs: Number.MAX_SAFE_INTEGER } }, /at most 2147483647/],
      [{ key: 'k', prompt: 'p', colour: 'red' }, /job\.colour: is not a fleet job field/],
    ];
    for (const [data, message] of bad) {
      const id = randomUUID();
      await client.queue.add('turn', data as never, { jobId: id });
      await expect(client.result(id, 30_000)).rejects.toThrow(message);
      const job = await client.queue.getJob(id);
      expect(job?.attemptsMade).toBe(1);
      expect(await job?.getState()).toBe('failed');
    }
    expect(w.pool.stats).toMatchObject({ crashed: 0, starts: { cold: 0, warm: 0, resumed: 0 } });
    // add() refuses the same jobs with the same schema, before anything is written.
    await expect(client.add({ key: 'k', prompt: 'p', config: 'fast' } as never)).rejects.toThrow(
      /job\.config/,
    );
  }, 90_000);

  it('more than 10 concurrent result() calls leak no listener (no MaxListenersExceededWarning)', async () => {
    const url = shared.url;
    await worker(url, 'w', { turns: [{ actions: [{ text: 'ok' }] }] });
    const client = await queue(url);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const handle = await client.add({ key: 'k', prompt: 'p' });
      const results = await Promise.all(Array.from({ length: 25 }, () => client.result(handle.id, 60_000)));
      expect(results.every((r) => r.status === 'success' && r.text === 'ok')).toBe(true);
      // A finished job's result is read from its state, at once.
      expect(await client.result(handle.id)).toEqual(results[0]);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      await expect(client.result('no-such-job')).rejects.toThrow(/no job/);
      await expect(client.result(handle.id, 2 ** 40)).rejects.toThrow(/timeoutMs/);
    } finally {
      process.off('warning', onWarning);
    }
  }, 60_000);
});
