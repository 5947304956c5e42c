// Observability: OpenTelemetry spans for a turn, its model steps, its tool calls (one denied by a policy, one
// of our own tools whose handler adds a span of its own), and usage with cost. Spans go to an in-memory
// exporter here and are printed as a tree; swap in an OTLP exporter to send them to Jaeger, Honeycomb,
// Langfuse or Phoenix (docs/observability.md). Needs the optional peer `@opentelemetry/api` and the SDK pieces:
//   npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks
// Run after `npm run build`: node examples/17-observability.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Agent, policy, tool } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod';

// What an app does once at startup: a tracer provider and the AsyncLocalStorage context manager, so spans
// started inside a tool handler become children of the SDK's `execute_tool` span.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const lookup = tool(
  { name: 'lookup_order', description: 'Find an order', input: z.object({ id: z.string() }) },
  ({ id }) =>
    trace.getTracer('shop').startActiveSpan('db.orders.find', (span) => {
      span.end();
      return `order ${id}: shipped`;
    }),
);

const scenario = await writeScenario({
  turns: [
    {
      actions: [
        { tool: { name: 'run_command', parameters: { CommandLine: 'curl evil.example' }, output: '' } },
        { mcpTool: { server: 'agy-sdk_tools', tool: 'lookup_order', arguments: { id: 'A-17' } } },
        { text: 'Order A-17 has shipped.' },
      ],
    },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  tools: [lookup],
  policies: [policy.deny('run_command', { name: 'no-network' }), policy.allowAll()],
  // agy does not name its default model: price it explicitly (USD per 1M tokens).
  pricing: { '*': { input: 0.5, output: 3 } },
});
let status = 'error';
try {
  const result = await (await agent.chat('Where is order A-17?')).result();
  status = result.status;
  console.log(
    `usage: ${result.usage?.inputTokens} in, ${result.usage?.outputTokens} out, $${result.usage?.costUsd?.toFixed(6)}`,
  );
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true });
}

// Print the span tree: each span under its parent, with the attributes that tell the story.
const spans = exporter.getFinishedSpans();
const children = new Map();
for (const span of spans) {
  const parent = span.parentSpanContext?.spanId ?? 'root';
  children.set(parent, [...(children.get(parent) ?? []), span]);
}
const ms = (s) => ((s.duration[0] * 1e9 + s.duration[1]) / 1e6).toFixed(1);
function show(parent, indent) {
  const list = (children.get(parent) ?? []).sort(
    (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
  );
  for (const span of list) {
    const a = span.attributes;
    const notes = [
      a['agy_sdk.turn.status'],
      a['agy_sdk.tool.outcome'] && `outcome=${a['agy_sdk.tool.outcome']}`,
      a['agy_sdk.tool.denial_reason'] && `reason="${a['agy_sdk.tool.denial_reason']}"`,
      a['gen_ai.usage.input_tokens'] !== undefined &&
        `in=${a['gen_ai.usage.input_tokens']} out=${a['gen_ai.usage.output_tokens']}`,
      a['agy_sdk.usage.cost_usd'] !== undefined && `$${Number(a['agy_sdk.usage.cost_usd']).toFixed(6)}`,
    ].filter(Boolean);
    console.log(`${indent}${span.name} (${ms(span)} ms)${notes.length ? `  ${notes.join('  ')}` : ''}`);
    show(span.spanContext().spanId, `${indent}  `);
  }
}
show('root', '');
await provider.shutdown();
console.log(`status: ${status}`);
