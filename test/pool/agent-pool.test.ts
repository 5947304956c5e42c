/**
 * AgentPool on InMemoryConnection: stickiness, eviction and resume ids, warm start, the 429 storm, the bounded
 * queue, abort of queued work, fairness across keys, close. The real-process paths (a killed agy resumed, a
 * quota turn pausing the pool, many simulator sessions) are in agent-pool.simulator.process.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ClosedError } from '../../src/connection/index.js';
import { type AgentConfig, ConfigError, type TurnResult } from '../../src/index.js';
import {
  AgentPool,
  type PoolAdmission,
  type PoolEvent,
  QueuedWorkAbortedError,
  QueueFullError,
} from '../../src/pool/index.js';
import { backoffMs } from '../../src/pool/pause-store.js';
import { InMemoryConnection, silentLogger, type TurnScript } from '../../src/testing/index.js';

/** An event that can be awaited. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Agents on InMemoryConnection: each key's connections are kept, each turn echoes `<key>:<prompt>`. */
function memoryAgents(turn?: (key: string, prompt: string, n: number) => TurnScript, gate?: Promise<void>) {
  const connections = new Map<string, InMemoryConnection[]>();
  let made = 0;
  const agent = (key: string): AgentConfig => ({
    logger: silentLogger,
    connection: (host) => {
      const n = ++made;
      const conn = new InMemoryConnection({
        conversationId: `conv-${key}-${n}`,
        turns: Array.from({ length: 50 }, (_, i) => (request, index) => {
          const prompt = request.text.join('');
          const script = turn?.(key, prompt, i) ?? {
            steps: [{ type: 'agent_response', textDelta: `${key}:${prompt}` }],
          };
          return typeof script === 'function' ? script(request, index) : script;
        }),
      });
      if (gate) {
        // Every turn waits for the gate first: a turn that stays running until the test releases it.
        const runTurn = conn.runTurn.bind(conn);
        conn.runTurn = async (request, sink) => {
          await gate;
          return runTurn(request, sink);
        };
      }
      const list = connections.get(key) ?? [];
      list.push(conn);
      connections.set(key, list);
      return conn.connect(host);
    },
  });
  return { agent, connections };
}

async function runText(pool: AgentPool, key: string, prompt: string): Promise<TurnResult> {
  return (await pool.run(key, prompt)).result();
}

describe('AgentPool', () => {
  it('rejects bad options with a ConfigError naming the field', () => {
    expect(() => new AgentPool({ size: 0, agent: {} })).toThrow(ConfigError);
    expect(() => new AgentPool({ size: 2, warm: 3, agent: {} })).toThrow(/warm/);
    expect(() => new AgentPool({ size: 2, warm: 1, agent: () => ({}) })).toThrow(/warm/);
    expect(() => new AgentPool({ size: 1, maxQueue: -1, agent: {} })).toThrow(/maxQueue/);
  });

  it('keys are sticky: the same key runs on the same agent and conversation while it lives', async () => {
    const { agent, connections } = memoryAgents();
    await using pool = new AgentPool({ size: 3, agent });
    const a1 = await runText(pool, 'a', 'one');
    const b1 = await runText(pool, 'b', 'one');
    const a2 = await runText(pool, 'a', 'two');
    expect(a1.text).toBe('a:one');
    expect(a2.text).toBe('a:two');
    expect(a1.conversationId).toBe(a2.conversationId);
    expect(b1.conversationId).not.toBe(a1.conversationId);
    // One agent (one connection) per key; a's connection saw both of a's prompts, in order.
    expect(connections.get('a')).toHaveLength(1);
    expect(connections.get('a')![0]!.requests.map((r) => r.text.join(''))).toEqual(['one', 'two']);
    expect(pool.stats).toMatchObject({
      busy: 0,
      idle: 2,
      queued: 0,
      turns: 3,
      starts: { cold: 2, resumed: 0 },
    });
  });

  it('an evicted agent is resumed by its conversation id on its key’s next run', async () => {
    const { agent, connections } = memoryAgents();
    const events: PoolEvent[] = [];
    await using pool = new AgentPool({ size: 1, agent, onEvent: (e) => events.push(e) });
    const a1 = await runText(pool, 'a', 'one');
    await runText(pool, 'b', 'one'); // evicts a (size 1)
    const admissions: PoolAdmission[] = [];
    const response = await pool.run('a', 'two', { onAdmitted: (x) => admissions.push(x) });
    await response.result();
    expect(events.filter((e) => e.type === 'agent_evicted').map((e) => e.key)).toEqual(['a', 'b']);
    expect(admissions[0]).toMatchObject({ key: 'a', resumedFrom: a1.conversationId, firstTurn: true });
    expect(connections.get('a')).toHaveLength(2);
    expect(connections.get('a')![0]!.closed).toBe(true);
    expect(pool.stats.starts).toEqual({ cold: 2, warm: 0, resumed: 1 });
    expect(pool.stats.evicted).toBe(2);
  });

  it('warm start: start() launches agents ahead of demand and reports their start latency', async () => {
    const { connections } = memoryAgents();
    let made = 0;
    const config: AgentConfig = {
      logger: silentLogger,
      connection: (host) => {
        made++;
        return new InMemoryConnection({
          conversationId: `warm-${made}`,
          turns: [{ steps: [{ type: 'agent_response', textDelta: 'hi' }] }],
        }).connect(host);
      },
    };
    const started: PoolEvent[] = [];
    await using pool = new AgentPool({ size: 3, warm: 2, agent: config, onEvent: (e) => started.push(e) });
    await pool.start();
    expect(made).toBe(2);
    expect(pool.stats).toMatchObject({ idle: 2, busy: 0, starts: { warm: 2, cold: 0 } });
    expect(pool.stats.startLatency.count).toBe(2);
    expect(pool.stats.startLatency.maxMs).toBeGreaterThanOrEqual(pool.stats.startLatency.lastMs);
    expect(started.map((e) => e.type === 'agent_started' && e.reason)).toEqual(['warm', 'warm']);
    const admissions: PoolAdmission[] = [];
    const response = await pool.run('k', 'go', { onAdmitted: (x) => admissions.push(x) });
    expect((await response.result()).text).toBe('hi');
    // The run took a warm agent: no start on the run's path, no new agent.
    expect(admissions[0]).toMatchObject({ startMs: undefined, firstTurn: true });
    expect(made).toBe(2);
    expect(connections.size).toBe(0);
  });

  it('a 429 storm: one rate-limited turn pauses the model, 50 queued turns wait it out together, then all complete', async () => {
    const starts: number[] = [];
    let pauseUntil = 0;
    let first = true;
    const { agent } = memoryAgents((key, prompt) => () => {
      starts.push(Date.now());
      if (first) {
        first = false;
        const resetsAt = new Date(Date.now() + 600);
        return {
          result: {
            status: 'rate_limited',
            retryAfterMs: 600,
            resetsAt,
            errorMessage: 'RESOURCE_EXHAUSTED (code 429)',
          },
        };
      }
      return { steps: [{ type: 'agent_response', textDelta: `${key}:${prompt}` }] };
    });
    const paused = deferred<PoolEvent>();
    await using pool = new AgentPool({
      size: 4,
      agent,
      onEvent: (e) => {
        if (e.type === 'model_paused') {
          pauseUntil = e.untilMs;
          paused.resolve(e);
        }
      },
    });
    const storm = pool.run('k0', 'first');
    const queued = Array.from({ length: 50 }, (_, i) => pool.run(`k${(i % 10) + 1}`, `p${i}`));
    const event = await paused.promise;
    expect(event).toMatchObject({ type: 'model_paused', model: 'agy:default', source: 'reset_time' });
    const startsBeforePause = starts.length;
    expect(pool.stats.paused).toBe(1);
    expect(pool.stats.queued).toBeGreaterThan(40);
    const results = await Promise.all(queued.map(async (r) => (await r).result()));
    expect((await (await storm).result()).status).toBe('rate_limited');
    expect(results.every((r) => r.status === 'success')).toBe(true);
    expect(results.map((r) => r.text)).toEqual(
      Array.from({ length: 50 }, (_, i) => `k${(i % 10) + 1}:p${i}`),
    );
    // Only turns already running when the limit hit (at most size - 1 more) started before the reset time.
    expect(startsBeforePause).toBeLessThanOrEqual(4);
    const late = starts.slice(startsBeforePause);
    expect(late.length).toBe(51 - startsBeforePause);
    expect(late.every((t) => t >= pauseUntil)).toBe(true);
    expect(pool.stats).toMatchObject({ paused: 0, queued: 0, rateLimited: 1, turns: 51 });
  });

  it('without a stated reset time the pause is a jittered exponential back-off', async () => {
    expect(backoffMs(1, { baseMs: 1000 }, () => 0)).toBe(500);
    expect(backoffMs(3, { baseMs: 1000 }, () => 0.999_999)).toBe(4000);
    expect(backoffMs(20, { baseMs: 1000, maxMs: 5000 }, () => 0)).toBe(2500);
    let n = 0;
    const { agent } = memoryAgents(
      () => () =>
        n++ === 0
          ? { result: { status: 'rate_limited', errorMessage: '429' } }
          : { steps: [{ type: 'agent_response', textDelta: 'ok' }] },
    );
    const events: PoolEvent[] = [];
    await using pool = new AgentPool({
      size: 2,
      agent,
      backoff: { baseMs: 200 },
      onEvent: (e) => events.push(e),
    });
    const before = Date.now();
    expect((await runText(pool, 'a', 'x')).status).toBe('rate_limited');
    const pause = events.find((e) => e.type === 'model_paused');
    expect(pause).toMatchObject({ source: 'backoff' });
    const until = (pause as { untilMs: number }).untilMs;
    expect(until - before).toBeGreaterThanOrEqual(100);
    const next = await pool.run('b', 'y');
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect((await next.result()).text).toBe('ok');
  });

  it('the queue is bounded: past maxQueue run rejects at once with QueueFullError', async () => {
    const release = deferred();
    const { agent } = memoryAgents(undefined, release.promise);
    // The first turn runs; the next two wait; the fourth is refused before anything ends.
    await using pool = new AgentPool({ size: 1, maxQueue: 2, agent: (key) => agent(key) });
    const running = pool.run('a', '1');
    const waiting = [pool.run('a', '2'), pool.run('b', '3')];
    await new Promise((r) => setImmediate(r));
    expect(pool.stats.busy).toBe(1);
    const refused = pool.run('c', '4');
    await expect(refused).rejects.toBeInstanceOf(QueueFullError);
    await expect(refused).rejects.toMatchObject({ code: 'queue_full', maxQueue: 2 });
    expect(pool.stats.queued).toBe(2);
    release.resolve();
    for (const r of [running, ...waiting]) expect((await (await r).result()).status).toBe('success');
  });

  it('aborting queued work removes it: run rejects with QueuedWorkAbortedError and the prompt never reaches an agent', async () => {
    const release = deferred();
    const { agent, connections } = memoryAgents(undefined, release.promise);
    await using pool = new AgentPool({ size: 1, agent });
    const running = pool.run('a', 'first');
    const controller = new AbortController();
    const queued = pool.run('a', 'aborted', { signal: controller.signal });
    const after = pool.run('a', 'third');
    await new Promise((r) => setImmediate(r));
    expect(pool.stats).toMatchObject({ busy: 1, queued: 2 });
    controller.abort(new Error('user gave up'));
    await expect(queued).rejects.toBeInstanceOf(QueuedWorkAbortedError);
    await expect(queued).rejects.toMatchObject({ code: 'queued_work_aborted' });
    expect(pool.stats.queued).toBe(1);
    // An already aborted signal is refused at once.
    await expect(pool.run('a', 'x', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      QueuedWorkAbortedError,
    );
    release.resolve();
    await (await running).result();
    await (await after).result();
    expect(connections.get('a')![0]!.requests.map((r) => r.text.join(''))).toEqual(['first', 'third']);
  });

  it('fairness: keys are served round-robin, so one key with many turns queued does not starve another', async () => {
    const order: string[] = [];
    const { agent } = memoryAgents((key, prompt) => () => {
      order.push(`${key}${prompt}`);
      return { steps: [{ type: 'agent_response', textDelta: 'x' }] };
    });
    await using pool = new AgentPool({ size: 1, agent });
    const runs = [
      ...Array.from({ length: 8 }, (_, i) => pool.run('A', String(i + 1))),
      pool.run('B', '1'),
      pool.run('C', '1'),
    ];
    for (const r of runs) await (await r).result();
    // A's first turn was already running; B and C each get the next turn before A's backlog.
    expect(order.slice(0, 4)).toEqual(['A1', 'B1', 'C1', 'A2']);
    expect(order).toHaveLength(10);
  });

  it('close() rejects waiting runs with ClosedError and cancels the running turn', async () => {
    const { agent, connections } = memoryAgents(() => ({ hang: true }));
    const pool = new AgentPool({ size: 1, agent });
    const running = await pool.run('a', 'hangs');
    const waiting = pool.run('b', 'never');
    await pool.close();
    await expect(waiting).rejects.toBeInstanceOf(ClosedError);
    expect((await running.result()).status).toBe('canceled');
    expect(connections.get('a')![0]!.closed).toBe(true);
    await expect(pool.run('a', 'late')).rejects.toBeInstanceOf(ClosedError);
    expect(pool.stats).toMatchObject({ busy: 0, idle: 0, queued: 0 });
  });

  it('an agent that cannot start rejects its run with the start error; a throwing onAdmitted costs nothing', async () => {
    let fail = true;
    const pool = new AgentPool({
      size: 1,
      logger: silentLogger,
      agent: () => ({
        logger: silentLogger,
        connection: (host) => {
          const conn = new InMemoryConnection({
            turns: [{ steps: [{ type: 'agent_response', textDelta: 'ok' }] }],
          });
          if (fail) conn.start = async () => Promise.reject(new ConfigError('agyPath', 'no such binary'));
          return conn.connect(host);
        },
      }),
    });
    await expect(pool.run('a', 'x')).rejects.toThrow(/no such binary/);
    expect(pool.stats).toMatchObject({ crashed: 1, busy: 0, idle: 0 });
    fail = false;
    const response = await pool.run('a', 'y', {
      onAdmitted: () => {
        throw new Error('caller bug');
      },
    });
    expect((await response.result()).text).toBe('ok');
    expect(pool.stats).toMatchObject({ crashed: 1, idle: 1 });
    await pool.close();
  });

  it('warm: a key that took a warm agent keeps its conversation: after an eviction its next run resumes it', async () => {
    let made = 0;
    const config: AgentConfig = {
      logger: silentLogger,
      connection: (host) => {
        made++;
        return new InMemoryConnection({
          conversationId: `conv-${made}`,
          turns: Array.from({ length: 5 }, () => ({ steps: [{ type: 'agent_response', textDelta: 'ok' }] })),
        }).connect(host);
      },
    };
    await using pool = new AgentPool({ size: 1, warm: 1, agent: config });
    await pool.start();
    const a1 = await runText(pool, 'a', 'one'); // on the warm agent
    await runText(pool, 'b', 'one'); // size 1: a's agent is evicted
    const admissions: PoolAdmission[] = [];
    const response = await pool.run('a', 'two', { onAdmitted: (x) => admissions.push(x) });
    expect((await response.result()).status).toBe('success');
    expect(a1.conversationId).toBe('conv-1');
    // The new agent was started with conversationId conv-1 (agy's --conversation), so agy resumes it.
    expect(admissions[0]).toMatchObject({ key: 'a', resumedFrom: 'conv-1', firstTurn: true });
    expect(pool.stats.starts).toEqual({ warm: 1, cold: 1, resumed: 1 });
  });

  it('a bad per-turn option is refused before any agent is touched: the key keeps its live agent', async () => {
    const { agent, connections } = memoryAgents();
    const events: PoolEvent[] = [];
    await using pool = new AgentPool({ size: 1, agent, onEvent: (e) => events.push(e) });
    await runText(pool, 'k', 'one');
    const bad = [
      { turnTimeoutMs: 'soon' as unknown as number },
      // Past Node's timer maximum a timeout would fire after 1 ms: refused, never shortened.
      { turnTimeoutMs: Number.MAX_SAFE_INTEGER },
      { responseSchema: 5 as unknown as undefined },
      { onAdmitted: 'log' as unknown as undefined },
      { signal: {} as AbortSignal },
    ];
    for (const options of bad) await expect(pool.run('k', 'x', options)).rejects.toBeInstanceOf(ConfigError);
    await expect(pool.run('k', 'x', bad[0])).rejects.toThrow(/options\.turnTimeoutMs/);
    await expect(pool.run('k', 'x', bad[1])).rejects.toThrow(/at most 2147483647/);
    // Nothing was queued, retired or started: the next run continues on the same agent.
    expect(pool.stats).toMatchObject({ crashed: 0, queued: 0, turns: 1 });
    expect(events.filter((e) => e.type === 'agent_crashed')).toEqual([]);
    expect((await runText(pool, 'k', 'two')).text).toBe('k:two');
    expect(connections.get('k')).toHaveLength(1);
    expect(connections.get('k')![0]!.requests.map((r) => r.text.join(''))).toEqual(['one', 'two']);
  });

  it('durations past the timer maximum are refused by name in the pool options', () => {
    const agent = {};
    expect(() => new AgentPool({ size: 1, agent, backoff: { baseMs: 2 ** 31 } })).toThrow(/backoff\.baseMs/);
    expect(() => new AgentPool({ size: 1, agent, backoff: { maxMs: -1 } })).toThrow(/backoff\.maxMs/);
    expect(() => new AgentPool({ size: 1, agent, onEvent: 1 as unknown as undefined })).toThrow(/onEvent/);
  });

  it('a far quota reset (~29 days, past the timer maximum) waits quietly: no timer storm, no overflow warning', async () => {
    let first = true;
    const { agent } = memoryAgents(() => () => {
      if (!first) return { steps: [{ type: 'agent_response', textDelta: 'late' }] };
      first = false;
      // agy's "Resets in 700h12m3s" (docs/reference/stream-json.md#quota).
      const ms = (700 * 3600 + 12 * 60 + 3) * 1000;
      return {
        result: {
          status: 'quota_exhausted',
          retryAfterMs: ms,
          resetsAt: new Date(Date.now() + ms),
          errorMessage: 'quota',
        },
      };
    });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    let stats = 0;
    const pool = new AgentPool({ size: 2, agent, onStats: () => stats++ });
    try {
      expect((await runText(pool, 'a', 'x')).status).toBe('quota_exhausted');
      const waiting = pool.run('b', 'y');
      waiting.catch(() => {});
      const before = stats;
      // An absence is observed over a window: with the storm the pool woke every 1 ms (~100 wakes here).
      await new Promise((r) => setTimeout(r, 200));
      expect(stats - before).toBeLessThan(5);
      expect(pool.stats).toMatchObject({ queued: 1, paused: 1 });
      expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
      await pool.close();
      await expect(waiting).rejects.toBeInstanceOf(ClosedError);
    } finally {
      process.off('warning', onWarning);
      await pool.close();
    }
  });

  it('onStats sees the gauges change (the hook point for metrics)', async () => {
    const { agent } = memoryAgents();
    const seen: { busy: number; queued: number }[] = [];
    await using pool = new AgentPool({
      size: 1,
      agent,
      onStats: (s) => seen.push({ busy: s.busy, queued: s.queued }),
    });
    await Promise.all([runText(pool, 'a', '1'), runText(pool, 'b', '2')]);
    await new Promise((r) => setImmediate(r));
    expect(seen.some((s) => s.busy === 1 && s.queued === 1)).toBe(true);
    expect(seen.at(-1)).toEqual({ busy: 0, queued: 0 });
  });
});
