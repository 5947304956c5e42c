/**
 * One export through the real OTLP/HTTP exporter (`@opentelemetry/exporter-trace-otlp-http`, JSON encoding) to
 * a local receiver on 127.0.0.1, which decodes what arrived: the span tree an OTLP backend (Jaeger, Honeycomb,
 * Langfuse, Phoenix) would get from one traced turn.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { InMemoryConnection } from '../../src/testing/index.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: OtlpValue }[];
}
interface OtlpRequest {
  resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

const attr = (span: OtlpSpan, key: string): unknown => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return (
    v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : (v?.doubleValue ?? v?.boolValue))
  );
};

describe('OTLP/HTTP export', () => {
  it('a traced turn arrives at an OTLP receiver with its tree and GenAI attributes', async () => {
    const received: OtlpRequest[] = [];
    const paths: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` });
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    try {
      const conn = new InMemoryConnection({
        turns: [
          {
            steps: [
              {
                type: 'agent_response',
                textDelta: 'hi',
                usage: {
                  inputTokens: 12,
                  outputTokens: 3,
                  thinkingTokens: 1,
                  cacheReadTokens: 0,
                  totalTokens: 15,
                },
              },
            ],
            result: {
              usage: {
                inputTokens: 12,
                outputTokens: 3,
                thinkingTokens: 1,
                cacheReadTokens: 0,
                totalTokens: 15,
              },
            },
          },
        ],
      });
      const agent = new Agent({ connection: conn.connect, telemetry: { tracerProvider: provider } });
      expect((await (await agent.chat('hello')).result()).status).toBe('success');
      await agent.close();
      await provider.forceFlush();
    } finally {
      await provider.shutdown();
      await new Promise((r) => server.close(r));
    }
    expect(paths[0]).toBe('POST /v1/traces application/json');
    const spans = received.flatMap((r) =>
      r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans)),
    );
    const scopes = received.flatMap((r) =>
      r.resourceSpans.flatMap((rs) => rs.scopeSpans.map((s) => s.scope.name)),
    );
    expect(new Set(scopes)).toEqual(new Set(['agy-sdk']));
    const byName = (name: string) => spans.find((s) => s.name === name);
    const session = byName('agy_sdk.session');
    const turn = byName('invoke_agent agy');
    const chat = byName('chat default');
    expect(turn?.parentSpanId).toBe(session?.spanId);
    expect(chat?.parentSpanId).toBe(turn?.spanId);
    expect(attr(turn!, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attr(turn!, 'gen_ai.usage.input_tokens')).toBe(12);
    expect(attr(turn!, 'gen_ai.usage.reasoning.output_tokens')).toBe(1);
    expect(attr(chat!, 'gen_ai.usage.output_tokens')).toBe(3);
  });
});
