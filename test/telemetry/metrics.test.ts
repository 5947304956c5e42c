/**
 * The metric instruments on their own (`src/telemetry/metrics.ts`), read back through a real SDK
 * MeterProvider: names, units, descriptions and histogram buckets as documented
 * (docs/reference/observability.md#genai-semantic-conventions), and what each operation records.
 */
import type { MetricData } from '@opentelemetry/sdk-metrics';
import { afterAll, describe, expect, it } from 'vitest';
import { WatchdogTimeoutError } from '../../src/errors.js';
import type { TurnResult } from '../../src/model/turn-result.js';
import { AgentMetrics } from '../../src/telemetry/metrics.js';
import { otelKit, point } from '../helpers/otel-kit.js';

const kit = otelKit();
afterAll(() => kit.shutdown());

let processes: number | undefined = 1;
const metrics = new AgentMetrics(kit.meterProvider.getMeter('metrics-test'), {
  providerName: 'gcp.gemini',
  processesStarted: () => processes,
});
const usage = { inputTokens: 10, outputTokens: 4, thinkingTokens: 1, cacheReadTokens: 0, totalTokens: 14 };

function metric(all: MetricData[], name: string): MetricData {
  const found = all.find((m) => m.descriptor.name === name);
  if (!found) throw new Error(`no metric ${name}: ${all.map((m) => m.descriptor.name).join(', ')}`);
  return found;
}

/** The bucket boundaries of a histogram's first data point (what the instrument's advice set). */
function boundaries(data: MetricData): number[] | undefined {
  const value = data.dataPoints[0]?.value as { buckets?: { boundaries: number[] } } | undefined;
  return value?.buckets?.boundaries;
}

describe('AgentMetrics', () => {
  it('records turns, tokens, durations, tool outcomes, watchdog timeouts and restarts with their units and buckets', async () => {
    metrics.sessionStarted();
    metrics.turnEnded({ status: 'success', usage, model: 'gemini-x' } as unknown as TurnResult, 1500);
    processes = 3; // two processes started since the baseline: two restarts
    metrics.turnEnded(
      {
        status: 'error',
        error: new WatchdogTimeoutError('idle', 1000, 1200, undefined, ''),
      } as unknown as TurnResult,
      250,
    );
    metrics.toolCall('denied');
    metrics.toolCall('allowed');
    metrics.toolCall('allowed');
    metrics.duration(40, { 'gen_ai.operation.name': 'chat' });
    metrics.tokens(usage, { 'gen_ai.operation.name': 'chat' });

    const collected = await kit.collect();
    const all = collected.resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    const tokens = metric(all, 'gen_ai.client.token.usage');
    expect(tokens.descriptor.unit).toBe('{token}');
    expect(boundaries(tokens)).toEqual([
      1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ]);
    const duration = metric(all, 'gen_ai.client.operation.duration');
    expect(duration.descriptor.unit).toBe('s');
    expect(boundaries(duration)?.[0]).toBe(0.01);
    expect(boundaries(duration)?.at(-1)).toBe(81.92);
    expect(metric(all, 'agy_sdk.tool_calls').descriptor.description).toBe(
      'Tool calls by outcome (allowed, denied, error)',
    );

    expect(point(collected, 'agy_sdk.turns', { 'agy_sdk.turn.status': 'success' })?.sum).toBe(1);
    expect(point(collected, 'agy_sdk.turns', { 'agy_sdk.turn.status': 'error' })?.sum).toBe(1);
    const turn = point(collected, 'gen_ai.client.operation.duration', {
      'gen_ai.operation.name': 'invoke_agent',
      'agy_sdk.turn.status': 'success',
      'gen_ai.request.model': 'gemini-x',
    });
    expect(turn).toEqual({ sum: 1.5, count: 1 });
    expect(point(collected, 'gen_ai.client.operation.duration', { 'gen_ai.operation.name': 'chat' })).toEqual(
      {
        sum: 0.04,
        count: 1,
      },
    );
    // Input and output of the successful turn and of the chat operation, by token type.
    expect(point(collected, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'input' })).toEqual({
      sum: 20,
      count: 2,
    });
    expect(point(collected, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'output' })?.sum).toBe(8);
    expect(point(collected, 'agy_sdk.tool_calls', { 'agy_sdk.tool.outcome': 'allowed' })?.sum).toBe(2);
    expect(point(collected, 'agy_sdk.tool_calls', { 'agy_sdk.tool.outcome': 'denied' })?.sum).toBe(1);
    expect(point(collected, 'agy_sdk.watchdog.timeouts', { 'agy_sdk.watchdog.kind': 'idle' })?.sum).toBe(1);
    expect(point(collected, 'agy_sdk.restarts')?.sum).toBe(2);
  });
});
