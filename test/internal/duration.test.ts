/**
 * One duration check everywhere a time in ms is accepted (src/internal/duration.ts): past Node's timer maximum
 * (2^31−1 ms) a timer fires after 1 ms, so such values are refused with a ConfigError naming the field — in the
 * Agent's config, per-turn options, the fleet's options and the gateway's — never silently shortened.
 */
import { describe, expect, it } from 'vitest';
import { createFleetQueue, createFleetWorker } from '../../src/fleet/index.js';
import { createGateway } from '../../src/gateway/index.js';
import { Agent, ConfigError } from '../../src/index.js';
import { checkDuration, durationProblem } from '../../src/internal/duration.js';
import { MAX_TIMER_MS } from '../../src/internal/timing.js';
import { InMemoryConnection, silentLogger } from '../../src/testing/index.js';

const HUGE = Number.MAX_SAFE_INTEGER;

function fieldOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).field;
  }
  return undefined;
}

describe('durations', () => {
  it('the check: positive, finite, at most the timer maximum; 0 only where it means off', () => {
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    expect(durationProblem(MAX_TIMER_MS)).toBeUndefined();
    expect(durationProblem(MAX_TIMER_MS + 1)).toMatch(/at most 2147483647/);
    expect(durationProblem(0)).toBeDefined();
    expect(durationProblem(0, { allowZero: true })).toBeUndefined();
    expect(durationProblem(1.5, { integer: true })).toBeDefined();
    expect(durationProblem(50, { min: 100 })).toBeDefined();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1, '10', null])
      expect(durationProblem(bad)).toBeDefined();
    expect(() => checkDuration('x', undefined)).not.toThrow();
    expect(() => checkDuration('x', HUGE)).toThrow(`x: must be a number of ms, at most ${MAX_TIMER_MS}`);
  });

  it('AgentConfig: turnTimeoutMs, idleTimeoutMs, startTimeoutMs and the other timeouts', () => {
    for (const field of [
      'turnTimeoutMs',
      'idleTimeoutMs',
      'startTimeoutMs',
      'interruptGraceMs',
      'closeGraceMs',
      'hookTimeoutMs',
      'askUserTimeoutMs',
    ])
      expect(fieldOf(() => new Agent({ [field]: HUGE }))).toBe(field);
    // 0 is "off" for the turn and idle watchdogs, as before.
    expect(
      fieldOf(() => new Agent({ turnTimeoutMs: 0, idleTimeoutMs: 0, logger: silentLogger })),
    ).toBeUndefined();
  });

  it('a per-turn turnTimeoutMs past the maximum is refused, not turned into a 1 ms timeout', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'ok' }] }],
    });
    await using agent = new Agent({ logger: silentLogger, connection: conn.connect });
    await agent.start();
    await expect(agent.chat('x', { turnTimeoutMs: HUGE })).rejects.toMatchObject({
      field: 'options.turnTimeoutMs',
    });
    expect(await (await agent.chat('x', { turnTimeoutMs: 60_000 })).text()).toBe('ok');
  });

  it('fleet and gateway options are refused before anything connects or listens', async () => {
    const connection = 'redis://127.0.0.1:1';
    await expect(createFleetQueue({ connection, connectTimeoutMs: HUGE })).rejects.toThrow(
      /connectTimeoutMs/,
    );
    await expect(createFleetQueue({ connection, closeTimeoutMs: -5 })).rejects.toThrow(/closeTimeoutMs/);
    const pool = { size: 1, agent: {} };
    for (const field of [
      'lockDurationMs',
      'stalledIntervalMs',
      'shutdownGraceMs',
      'progressBatchMs',
      'closeTimeoutMs',
    ])
      await expect(createFleetWorker({ connection, pool, [field]: HUGE })).rejects.toThrow(
        new RegExp(`^${field}: must be`),
      );
    const upstream = { kind: 'openai-chat' as const, baseUrl: 'http://127.0.0.1:1', apiKey: 'k' };
    await expect(createGateway({ upstream, keepAliveMs: HUGE })).rejects.toThrow(/keepAliveMs/);
    await expect(createGateway({ upstream, headersGuardMs: 2 ** 31 })).rejects.toBeInstanceOf(ConfigError);
  });
});
