/**
 * Provider mode traced end to end: the simulator (as agy, in endpoint mode) → the in-process gateway → the
 * mock OpenAI Chat upstream of test/helpers/gateway/mocks/. Each upstream request is a `chat` span under the turn, with
 * the upstream model, time to first token and the upstream's usage, and its W3C `traceparent` reaches the
 * upstream (docs/reference/observability.md#trace-context-to-the-upstream).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { useSandboxAgents } from '../helpers/agents.js';
import { OpenAiChatMock } from '../helpers/gateway/mocks/openai-chat.js';
import { one, otelKit, parentOf, point } from '../helpers/otel-kit.js';
import { ensureSimulatorBuilt } from '../helpers/sim-process.js';

const kit = otelKit();
afterAll(() => kit.shutdown());
const sb = useSandboxAgents();

describe('provider mode traces', () => {
  it('a span per upstream request under the turn, with usage and TTFT; traceparent sent upstream', async () => {
    await ensureSimulatorBuilt();
    const mock = await OpenAiChatMock.start();
    try {
      mock.script({
        parts: [{ toolCall: { id: 'call_p1', name: 'list_dir', args: { DirectoryPath: sb.box.workspace } } }],
        usage: { input: 40, output: 6 },
      });
      mock.script({ parts: [{ text: 'Listed.', chunks: 3 }], usage: { input: 60, output: 9, cached: 20 } });
      const agent = await sb.agentWith(undefined, {
        provider: { kind: 'openai-chat', baseUrl: mock.baseUrl, apiKey: mock.apiKey, model: 'gpt-5' },
        telemetry: { tracerProvider: kit.tracerProvider, meterProvider: kit.meterProvider },
      });
      const result = await (await agent.chat('what is in the workspace?')).result();
      await agent.close();
      expect(result.status, result.errorMessage).toBe('success');

      const spans = kit.spans();
      const turn = one(spans, 'invoke_agent agy');
      expect(turn.attributes['gen_ai.provider.name']).toBe('openai');
      const upstream = spans.filter((s) => s.attributes['agy_sdk.upstream.kind'] === 'openai-chat');
      expect(upstream).toHaveLength(2);
      for (const span of upstream) {
        expect(parentOf(spans, span)).toBe(turn);
        expect(span.name).toBe('chat gpt-5');
        expect(span.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-5',
        });
        expect(Number(span.attributes['agy_sdk.upstream.time_to_first_token_ms'])).toBeGreaterThanOrEqual(0);
      }
      // The upstream's own counts, per request, summing to TurnResult.providerUsage.
      const sum = (key: string) => upstream.reduce((n, s) => n + Number(s.attributes[key]), 0);
      expect(sum('gen_ai.usage.input_tokens')).toBe(result.providerUsage?.inputTokens);
      expect(sum('gen_ai.usage.output_tokens')).toBe(result.providerUsage?.outputTokens);
      expect(sum('gen_ai.usage.cache_read.input_tokens')).toBe(20);
      // gpt-5 is priced (prices.json: $1.25 in, $10 out, $0.125 cache read per 1M).
      expect(result.providerUsage?.costUsd).toBeCloseTo((80 * 1.25 + 15 * 10 + 20 * 0.125) / 1e6, 12);
      expect(sum('agy_sdk.usage.cost_usd')).toBeCloseTo(result.providerUsage?.costUsd ?? Number.NaN, 12);

      // W3C trace context: each upstream request carried its own span as the parent.
      const sent = mock.requests.map((r) => r.headers.traceparent);
      const expected = upstream.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`);
      expect(new Set(sent)).toEqual(new Set(expected));

      const metrics = await kit.collect();
      expect(
        point(metrics, 'gen_ai.client.token.usage', {
          'gen_ai.provider.name': 'openai',
          'gen_ai.operation.name': 'chat',
          'gen_ai.token.type': 'input',
        })?.sum,
      ).toBe(80);
    } finally {
      await mock.close();
    }
  });
});
