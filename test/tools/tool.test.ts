import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/errors.js';
import { tool } from '../../src/tools/tool.js';
import { createToolContext, StateStore, type ToolContext } from '../../src/tools/tool-context.js';
import { isCallToolResult, toCallToolResult, toolError, toolResult } from '../../src/tools/tool-result.js';

describe('tool()', () => {
  it('returns a frozen definition and infers argument types', async () => {
    const def = tool(
      {
        name: 'greet',
        description: 'Greets',
        input: z.object({ who: z.string(), times: z.number().int().default(1) }),
        annotations: { readOnlyHint: true },
      },
      ({ who, times }, ctx) => {
        expectTypeOf(who).toEqualTypeOf<string>();
        expectTypeOf(times).toEqualTypeOf<number>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return `hi ${who} x${times}`;
      },
    );
    expect(Object.isFrozen(def)).toBe(true);
    expect(def).toMatchObject({ name: 'greet', description: 'Greets', annotations: { readOnlyHint: true } });
    expect(def.output).toBeUndefined();
    const ctx = createToolContext({}, new StateStore(), new AbortController().signal);
    expect(await def.handler({ who: 'Ann', times: 2 }, ctx)).toBe('hi Ann x2');
  });

  it('types the result by the output schema', () => {
    const def = tool(
      {
        name: 'sum',
        description: 'Sums',
        input: z.object({ a: z.number() }),
        output: z.object({ sum: z.number() }),
      },
      async ({ a }) => ({ sum: a }),
    );
    expect(def.output).toBeDefined();
    tool(
      { name: 'sum2', description: 'Sums', input: z.object({}), output: z.object({ sum: z.number() }) },
      // @ts-expect-error: a string does not match the output schema.
      () => 'nope',
    );
  });

  it('refuses bad specs', () => {
    const input = z.object({});
    expect(() => tool({ name: '', description: 'x', input }, () => '')).toThrow(ConfigError);
    // A JSON Schema input is refused by name (docs/guides/tools.md says zod only).
    expect(() =>
      // @ts-expect-error: a JSON Schema is not a zod schema.
      tool({ name: 'j', description: 'x', input: { type: 'object', properties: {} } }, () => ''),
    ).toThrow(/tool\(j\)\.input: must be a zod object schema/);
    // @ts-expect-error: arguments must be an object schema.
    expect(() => tool({ name: 'x', description: 'x', input: z.string() }, () => '')).toThrow(
      /zod object schema/,
    );
    // @ts-expect-error: structured output must be an object schema.
    expect(() => tool({ name: 'x', description: 'x', input, output: z.array(z.string()) }, () => [])).toThrow(
      /output: must be a zod object schema/,
    );
  });
});

describe('tool results', () => {
  it('toolResult and toolError build CallToolResults', () => {
    expect(toolResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(toolResult({ type: 'text', text: 'a' }, { isError: true })).toEqual({
      content: [{ type: 'text', text: 'a' }],
      isError: true,
    });
    expect(toolResult([], { structuredContent: { x: 1 } })).toEqual({
      content: [],
      structuredContent: { x: 1 },
    });
    expect(toolError('bad')).toEqual({ content: [{ type: 'text', text: 'bad' }], isError: true });
  });

  it('isCallToolResult accepts results and rejects lookalike domain objects', () => {
    expect(isCallToolResult(toolResult('x'))).toBe(true);
    expect(
      isCallToolResult({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: false }),
    ).toBe(true);
    expect(isCallToolResult({ content: [] })).toBe(true);
    expect(isCallToolResult({ content: 'text' })).toBe(false);
    expect(isCallToolResult({ content: [{ type: 'paragraph', body: 'x' }] })).toBe(false);
    expect(isCallToolResult({ content: [{ type: 'text', text: 'x' }], author: 'me' })).toBe(false);
    expect(isCallToolResult({ content: [], isError: 'yes' })).toBe(false);
    expect(isCallToolResult({ content: [], structuredContent: [1] })).toBe(false);
    expect(isCallToolResult(null)).toBe(false);
    expect(isCallToolResult([{ content: [] }])).toBe(false);
  });

  it('converts handler return values', () => {
    expect(toCallToolResult('plain')).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'plain' }] },
    });
    expect(toCallToolResult({ a: [1, 2] })).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: '{"a":[1,2]}' }] },
    });
    expect(toCallToolResult(42)).toEqual({ ok: true, result: { content: [{ type: 'text', text: '42' }] } });
    expect(toCallToolResult(null)).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'null' }] },
    });
    expect(toCallToolResult(undefined)).toEqual({ ok: true, result: { content: [] } });
    const passthrough = toolResult('as is', { isError: true });
    expect(toCallToolResult(passthrough)).toEqual({ ok: true, result: passthrough });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(toCallToolResult(circular)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/cannot be serialized/),
    });
    expect(toCallToolResult(10n)).toMatchObject({ ok: false });
    expect(toCallToolResult(() => 1)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/function/),
    });
  });

  it('validates and structures output against an output schema', () => {
    const output = z.object({ n: z.number(), when: z.string().default('now') });
    expect(toCallToolResult({ n: 1 }, output)).toEqual({
      ok: true,
      result: {
        content: [{ type: 'text', text: '{"n":1,"when":"now"}' }],
        structuredContent: { n: 1, when: 'now' },
      },
    });
    expect(toCallToolResult({ n: 'x' }, output)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/does not match its output schema: n: /),
    });
    expect(toCallToolResult('text', output)).toMatchObject({ ok: false });
  });
});

describe('ToolContext and StateStore', () => {
  it('StateStore stores by reference with defaults that are not stored', () => {
    const store = new StateStore();
    expect(store.get('missing')).toBeUndefined();
    expect(store.get('missing', 5)).toBe(5);
    expect(store.has('missing')).toBe(false);
    const list: number[] = [];
    store.set('list', list);
    store.get<number[]>('list')!.push(1);
    expect(list).toEqual([1]);
    store.set('undef', undefined);
    expect(store.has('undef')).toBe(true);
    expect(store.get('undef', 'default')).toBeUndefined();
    expect(store.keys()).toEqual(['list', 'undef']);
    expect(store.delete('list')).toBe(true);
    store.clear();
    expect(store.keys()).toEqual([]);
  });

  it('reads the conversation id live, shares state and delegates send', async () => {
    let id: string | undefined;
    const sent: string[] = [];
    const state = new StateStore();
    const controller = new AbortController();
    const ctx = createToolContext(
      { conversationId: () => id, send: async (m) => void sent.push(m) },
      state,
      controller.signal,
    );
    expect(ctx.conversationId).toBeUndefined();
    id = 'c-1';
    expect(ctx.conversationId).toBe('c-1');
    ctx.setState('k', 1);
    expect(createToolContext({}, state, controller.signal).getState('k')).toBe(1);
    expect(ctx.getState('absent', 'd')).toBe('d');
    await ctx.send('hello');
    expect(sent).toEqual(['hello']);
    expect(ctx.signal.aborted).toBe(false);
    controller.abort();
    expect(ctx.signal.aborted).toBe(true);
  });

  it('send rejects when no conversation is attached', async () => {
    const ctx = createToolContext({}, new StateStore(), new AbortController().signal);
    await expect(ctx.send('x')).rejects.toThrow(/no conversation is attached/);
  });
});
