/**
 * `ToolRunner` in agy-sdk/testing (Python `ToolRunner.execute` / `process_tool_calls`,
 * docs/reference/design-sources.md#seed-003-the-python-sdk): a `tool()` run by name with validation and a
 * `ToolContext` (its state store shared), sequentially or concurrently; an unknown tool is an error result.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool } from '../../src/index.js';
import { ToolRunner } from '../../src/testing/index.js';

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

const weather = tool(
  { name: 'get_weather', description: 'weather for a city', input: z.object({ city: z.string() }) },
  ({ city }) => `It's sunny in ${city}.`,
);
const counter = tool(
  {
    name: 'record_fruit',
    description: 'counts fruit',
    input: z.object({ sku: z.string(), count: z.number().int() }),
  },
  ({ sku, count }, ctx) => {
    const counts = ctx.getState<Record<string, number>>('fruit_counts', {});
    counts[sku] = (counts[sku] ?? 0) + count;
    ctx.setState('fruit_counts', counts);
    return `Total for ${sku}: ${counts[sku]} (idle: ${ctx.isIdle})`;
  },
);
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

describe('ToolRunner', () => {
  it('execute runs a tool by name with validated args', async () => {
    const runner = new ToolRunner([weather], { logger: quietLogger });
    const result = await runner.execute('get_weather', { city: 'Tokyo' });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe("It's sunny in Tokyo.");
  });

  it('bad arguments and unknown tools are error results, not throws', async () => {
    const runner = new ToolRunner([weather], { logger: quietLogger });
    const bad = await runner.execute('get_weather', { city: 7 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('Invalid arguments');
    const unknown = await runner.execute('no_such_tool', {});
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('Unknown tool');
  });

  it('processToolCalls shares the state store, sequentially and concurrently, in call order', async () => {
    const runner = new ToolRunner([counter, weather], { logger: quietLogger });
    const sequential = await runner.processToolCalls(
      [
        { name: 'record_fruit', args: { sku: 'apple', count: 2 } },
        { name: 'record_fruit', args: { sku: 'apple', count: 3 } },
      ],
      { concurrent: false },
    );
    expect(sequential.map(text)).toEqual([
      'Total for apple: 2 (idle: true)',
      'Total for apple: 5 (idle: true)',
    ]);
    const concurrent = await runner.processToolCalls([
      { name: 'get_weather', args: { city: 'Osaka' } },
      { name: 'missing' },
    ]);
    expect(text(concurrent[0]!)).toBe("It's sunny in Osaka.");
    expect(concurrent[1]?.isError).toBe(true);
    expect(runner.state.get('fruit_counts')).toEqual({ apple: 5 });
  });

  it('a throwing handler is an error result', async () => {
    const boom = tool({ name: 'boom', description: 'fails', input: z.object({}) }, () => {
      throw new Error('kaboom');
    });
    const result = await new ToolRunner([boom], { logger: quietLogger }).execute('boom');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('kaboom');
  });
});
