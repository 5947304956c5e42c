/**
 * The pool's OpenTelemetry metrics, read through the SDK's in-memory metric reader (test/helpers/otel-kit.ts):
 * the busy, idle, queued and paused gauges report what `pool.stats` says at each collection, the queue-wait and
 * agent-start histograms count every run and start, a closed pool reports nothing more, and a pool with no
 * provider (or `enabled: false`) records nothing. The pool without `@opentelemetry/api` installed at all is
 * test/telemetry/without-otel.process.test.ts.
 */
import type { CollectionResult } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AgentConfig, ConfigError } from '../../src/index.js';
import { AgentPool } from '../../src/pool/index.js';
import { METRIC } from '../../src/telemetry/attributes.js';
import { InMemoryConnection, silentLogger } from '../../src/testing/index.js';
import { type OtelKit, otelKit, point } from '../helpers/otel-kit.js';

let kit: OtelKit | undefined;
afterEach(async () => {
  await kit?.shutdown();
  kit = undefined;
});

/**
 * Agents on InMemoryConnection. Key `limited` runs on model `limited` and its turns end `rate_limited` with a
 * reset time ten minutes away (the model stays paused for the whole test); other keys' turns wait for `gate`.
 */
function agents(gate: Promise<void>): (key: string) => AgentConfig {
  return (key) => ({
    logger: silentLogger,
    ...(key === 'limited' && { model: 'limited' }),
    connection: (host) => {
      const conn = new InMemoryConnection({
        conversationId: `conv-${key}`,
        turns: Array.from({ length: 5 }, () =>
          key === 'limited'
            ? {
                result: {
                  status: 'rate_limited' as const,
                  retryAfterMs: 600_000,
                  resetsAt: new Date(Date.now() + 600_000),
                  errorMessage: 'RESOURCE_EXHAUSTED (code 429)',
                },
              }
            : { steps: [{ type: 'agent_response' as const, textDelta: `${key}!` }] },
        ),
      });
      if (key !== 'limited') {
        const runTurn = conn.runTurn.bind(conn);
        conn.runTurn = async (request, sink) => {
          await gate;
          return runTurn(request, sink);
        };
      }
      return conn.connect(host);
    },
  });
}

function gauges(result: CollectionResult): Record<string, number | undefined> {
  const value = (name: string) => point(result, name)?.sum;
  return {
    busy: value(METRIC.poolBusy),
    idle: value(METRIC.poolIdle),
    queued: value(METRIC.poolQueued),
    paused: value(METRIC.poolPaused),
  };
}

/** Resolves once `ready()` holds, checked once per event-loop turn (no timer, no wall-clock margin). */
function statsReach(ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (ready() ? resolve() : setImmediate(check));
    check();
  });
}

describe('AgentPool metrics (OpenTelemetry)', () => {
  it('busy, idle, queued and paused gauges read pool.stats; queue waits and agent starts are histograms', async () => {
    kit = otelKit();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const pool = new AgentPool({
      size: 2,
      agent: agents(gate),
      telemetry: { meterProvider: kit.meterProvider },
    });
    await pool.start();
    expect(gauges(await kit.collect())).toEqual({ busy: 0, idle: 0, queued: 0, paused: 0 });

    // A rate-limited turn pauses its model; its agent stays, idle.
    expect((await (await pool.run('limited', 'go')).result()).status).toBe('rate_limited');
    const a = pool.run('a', '1');
    const b = pool.run('b', '2'); // evicts the idle `limited` agent
    const c = pool.run('c', '3'); // no room: waits
    await statsReach(() => pool.stats.busy === 2 && pool.stats.queued === 1);
    const during = gauges(await kit.collect());
    expect(during).toEqual({ busy: 2, idle: 0, queued: 1, paused: 1 });
    const { busy, idle, queued, paused } = pool.stats;
    expect(during).toEqual({ busy, idle, queued, paused });

    release();
    const results = await Promise.all([a, b, c].map(async (r) => (await r).result()));
    expect(results.map((r) => r.text)).toEqual(['a!', 'b!', 'c!']);
    await statsReach(() => pool.stats.busy === 0);
    const after = await kit.collect();
    expect(gauges(after)).toEqual({ busy: 0, idle: 2, queued: 0, paused: 1 });
    // Four runs left the queue; four agents started cold (one per key).
    expect(point(after, METRIC.poolQueueWait)?.count).toBe(4);
    expect(point(after, METRIC.poolAgentStart, { 'agy_sdk.pool.start_reason': 'cold' })?.count).toBe(4);
    expect(point(after, METRIC.poolAgentStart)?.sum).toBeGreaterThan(0);

    // A closed pool is no longer read (the meter drops its callback, and with it the pool).
    await pool.close();
    const reads = vi.spyOn(pool, 'stats', 'get');
    await kit.collect();
    expect(reads).not.toHaveBeenCalled();
  });

  it('goes to the global meter provider by default', async () => {
    kit = otelKit({ global: true });
    await using pool = new AgentPool({ size: 3, warm: 1, agent: agents(Promise.resolve())('x') });
    await pool.start();
    const result = await kit.collect();
    expect(gauges(result)).toEqual({ busy: 0, idle: 1, queued: 0, paused: 0 });
    expect(point(result, METRIC.poolAgentStart, { 'agy_sdk.pool.start_reason': 'warm' })?.count).toBe(1);
  });

  it('enabled: false records nothing, even with a global meter provider', async () => {
    kit = otelKit({ global: true });
    const open = Promise.resolve();
    await using off = new AgentPool({
      size: 3,
      warm: 2,
      agent: agents(open)('x'),
      telemetry: { enabled: false },
    });
    await off.start();
    expect((await (await off.run('k', 'hi')).result()).status).toBe('success');
    const result = await kit.collect();
    expect(gauges(result)).toEqual({
      busy: undefined,
      idle: undefined,
      queued: undefined,
      paused: undefined,
    });
    expect(point(result, METRIC.poolAgentStart)).toBeUndefined();
    expect(point(result, METRIC.poolQueueWait)).toBeUndefined();
  });

  it('without a meter provider the pool runs unchanged and records nothing, even if one is registered later', async () => {
    await using pool = new AgentPool({ size: 1, agent: agents(Promise.resolve()) });
    await pool.start();
    const r = await (await pool.run('k', 'hi')).result();
    expect(r).toMatchObject({ status: 'success', text: 'k!' });
    expect(pool.stats).toMatchObject({ busy: 0, idle: 1, queued: 0, paused: 0, turns: 1 });
    // The pool looked for a provider at its first start(): none then, so none now.
    kit = otelKit({ global: true });
    const result = await kit.collect();
    expect(gauges(result)).toEqual({
      busy: undefined,
      idle: undefined,
      queued: undefined,
      paused: undefined,
    });
    expect(point(result, METRIC.poolQueueWait)).toBeUndefined();
  });

  it('a telemetry option that is not an object with a meter provider is a ConfigError naming the field', () => {
    const agent = agents(Promise.resolve());
    const bad = (telemetry: unknown) => () =>
      new AgentPool({ size: 1, agent, telemetry: telemetry as { enabled?: boolean } });
    expect(bad(5)).toThrow(expect.objectContaining({ name: 'ConfigError', field: 'telemetry' }));
    expect(bad({ enabled: 'yes' })).toThrow(expect.objectContaining({ field: 'telemetry.enabled' }));
    expect(bad({ meterProvider: {} })).toThrow(ConfigError);
    expect(bad({ meterProvider: {} })).toThrow(expect.objectContaining({ field: 'telemetry.meterProvider' }));
  });
});
