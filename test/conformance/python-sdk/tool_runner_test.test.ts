/**
 * Google's `tool_runner_test.py` on agy-sdk's `ToolRunner` (`agy-sdk/testing`): `tool()`s run by name through
 * the same call path the session listener serves them on, so a result is the MCP `CallToolResult` the model would
 * get (`content`, `isError`), not the bare return value.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/tools/tool_runner_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (28), not ported:
 * - register/unregister (test_unregister, test_unregister_missing_raises, test_unregister_cleans_context_param_cache):
 *   a `ToolRunner` takes its tools at construction and has no registry to edit.
 * - threads (test_execute_sync_tool_in_thread, test_tool_with_schema_async_does_not_use_thread): a JavaScript
 *   handler runs on the event loop; there is no thread pool to dispatch to.
 * - `ToolWithSchema` (test_tool_with_schema_sync, test_tool_with_schema_async, test_tool_with_schema_no_name,
 *   test_process_tool_calls_with_schema, test_coerce_args_with_tool_with_schema,
 *   test_tool_with_schema_and_context_receives_it, test_nested_tool_with_schema_and_context_receives_it): Python's
 *   wrapper attaching a JSON schema to a callable; every `tool()` carries its zod schema.
 * - callable objects and Python names (test_execute_sync_callable_object, test_register_callable_object_no_name):
 *   a `tool()` names itself; there is no `__call__` or `__name__` to fall back on.
 * - `_coerce_args` (test_coerce_args_basic_types, test_coerce_args_string_annotations,
 *   test_coerce_args_optional_and_union, test_coerce_args_fallback_on_error): a private method of Python's runner,
 *   coercing by type annotations; the observable behaviour is ported as test_execute_coerces_arguments.
 * - signature inspection for the context parameter (test_tool_with_pep604_union_context_receives_it,
 *   test_return_type_not_mistaken_for_param, test_context_not_injected_when_already_in_kwargs, and
 *   SchemaGenerationTest's 6 tests on `get_public_callable`): a handler gets its context as the second argument,
 *   never as a named parameter, so it can never appear in the tool's input schema.
 * - test_exception_excluded_from_serialization: pydantic's `model_dump` of `ToolResult`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CallToolResult, type ToolContext, tool } from '../../../src/index.js';
import { ToolRunner } from '../../../src/testing/index.js';
import { quietLogger } from './kit.js';

const sampleTool = tool(
  { name: '_sample_tool', description: 'greets', input: z.object({ arg1: z.string() }) },
  ({ arg1 }) => `Hello ${arg1}`,
);
const asyncTool = tool(
  { name: '_async_tool', description: 'adds', input: z.object({ x: z.number(), y: z.number() }) },
  async ({ x, y }) => x + y,
);
const failing = (name: string, message: string, ErrorClass: ErrorConstructor = Error) =>
  tool({ name, description: 'fails', input: z.object({}) }, () => {
    throw new ErrorClass(message);
  });

const text = (result: CallToolResult) =>
  result.content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('');
const runner = (tools: ReadonlyArray<ReturnType<typeof tool>>, host = {}) =>
  new ToolRunner(tools, { logger: quietLogger, host });

describe('ToolRunnerTest (tool_runner_test.py)', () => {
  it('ToolRunnerTest.test_register_and_list (tool_runner_test.py)', () => {
    expect(runner([sampleTool]).toolNames).toEqual(['_sample_tool']);
  });

  it('ToolRunnerTest.test_register_with_custom_name (tool_runner_test.py)', () => {
    const greet = tool({ name: 'greet', description: 'greets', input: z.object({}) }, () => 'hi');
    expect(runner([greet]).toolNames).toEqual(['greet']);
  });

  it('ToolRunnerTest.test_register_duplicate_raises (tool_runner_test.py)', () => {
    expect(() => runner([sampleTool, sampleTool])).toThrow(TypeError);
  });

  it('ToolRunnerTest.test_execute_sync_tool (tool_runner_test.py)', async () => {
    const result = await runner([sampleTool]).execute('_sample_tool', { arg1: 'World' });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Hello World');
  });

  it('ToolRunnerTest.test_execute_async_tool (tool_runner_test.py)', async () => {
    expect(text(await runner([asyncTool]).execute('_async_tool', { x: 3, y: 4 }))).toBe('7');
  });

  it('ToolRunnerTest.test_execute_unknown_tool_raises (tool_runner_test.py)', async () => {
    // Differs by design: an error result (what the model would get), never a throw; Python raises KeyError.
    const result = await runner([]).execute('nonexistent');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Unknown tool');
  });

  it('ToolRunnerTest.test_init_with_tools_list (tool_runner_test.py)', () => {
    const names = runner([sampleTool, asyncTool]).toolNames;
    expect(names).toHaveLength(2);
    expect(names).toEqual(expect.arrayContaining(['_sample_tool', '_async_tool']));
  });

  it('ToolRunnerTest.test_execute_tool_failure_raises_exception (tool_runner_test.py)', async () => {
    // Differs by design: the failure is an error result carrying the message; Python re-raises the exception.
    const result = await runner([failing('_failing_tool', 'Something went wrong')]).execute('_failing_tool');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Something went wrong');
  });

  it('ToolRunnerTest.test_tools_property (tool_runner_test.py)', () => {
    const r = runner([sampleTool]);
    const names = r.toolNames;
    names.push('other');
    expect(r.toolNames).toEqual(['_sample_tool']);
  });

  it('ToolRunnerTest.test_execute_coerces_arguments (tool_runner_test.py)', async () => {
    const sum = tool(
      { name: '_sum_tool', description: 'sums', input: z.object({ x: z.number().int(), y: z.number() }) },
      ({ x, y }) => x + y,
    );
    // Differs by design: zod validates, it does not coerce "10" to 10; Python's runner coerces by annotation.
    const strings = await runner([sum]).execute('_sum_tool', { x: '10', y: '5.5' });
    expect(strings.isError).toBe(true);
    expect(text(strings)).toContain('Invalid arguments');
    expect(text(await runner([sum]).execute('_sum_tool', { x: 10, y: 5.5 }))).toBe('15.5');
  });
});

describe('ProcessToolCallsTest (tool_runner_test.py)', () => {
  it('ProcessToolCallsTest.test_single_tool_call (tool_runner_test.py)', async () => {
    const results = await runner([asyncTool]).processToolCalls([
      { name: '_async_tool', args: { x: 3, y: 7 } },
    ]);
    expect(results).toHaveLength(1);
    expect(text(results[0]!)).toBe('10');
    expect(results[0]!.isError).toBeFalsy();
  });

  it('ProcessToolCallsTest.test_multiple_tool_calls (tool_runner_test.py)', async () => {
    const results = await runner([sampleTool, asyncTool]).processToolCalls([
      { name: '_sample_tool', args: { arg1: 'World' } },
      { name: '_async_tool', args: { x: 1, y: 2 } },
    ]);
    expect(results.map(text)).toEqual(['Hello World', '3']);
  });

  it('ProcessToolCallsTest.test_unknown_tool_returns_error_result (tool_runner_test.py)', async () => {
    const results = await runner([]).processToolCalls([{ name: 'nonexistent', args: {} }]);
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(true);
    expect(text(results[0]!)).toContain('Unknown tool');
  });

  it('ProcessToolCallsTest.test_failing_tool_returns_error_result (tool_runner_test.py)', async () => {
    const results = await runner([failing('_bad_tool', 'kaboom')]).processToolCalls([{ name: '_bad_tool' }]);
    expect(results[0]!.isError).toBe(true);
    expect(text(results[0]!)).toContain('kaboom');
  });

  it('ProcessToolCallsTest.test_missing_args_defaults_to_empty (tool_runner_test.py)', async () => {
    const noArgs = tool({ name: '_no_args_tool', description: 'ok', input: z.object({}) }, () => 'ok');
    const results = await runner([noArgs]).processToolCalls([{ name: '_no_args_tool' }]);
    expect(results.map(text)).toEqual(['ok']);
  });

  it('ProcessToolCallsTest.test_failing_tool_preserves_original_exception (tool_runner_test.py)', async () => {
    // Differs by design: the result carries the exception's message (all the model sees), not the object.
    const results = await runner([failing('_typed_error_tool', 'bad input', TypeError)]).processToolCalls([
      { name: '_typed_error_tool' },
    ]);
    expect(results[0]!.isError).toBe(true);
    expect(text(results[0]!)).toContain('bad input');
  });

  it('ProcessToolCallsTest.test_mixed_batch_failure_does_not_swallow_successes (tool_runner_test.py)', async () => {
    const good = tool(
      { name: '_good_tool', description: 'x10', input: z.object({ x: z.number() }) },
      ({ x }) => x * 10,
    );
    const results = await runner([good, failing('_bad_tool', 'kaboom')]).processToolCalls([
      { name: '_good_tool', args: { x: 1 } },
      { name: '_bad_tool', args: {} },
      { name: '_good_tool', args: { x: 2 } },
    ]);
    expect(results.map((r) => [Boolean(r.isError), text(r).includes('kaboom') ? 'kaboom' : text(r)])).toEqual(
      [
        [false, '10'],
        [true, 'kaboom'],
        [false, '20'],
      ],
    );
  });

  it('ProcessToolCallsTest.test_successful_tool_has_no_exception (tool_runner_test.py)', async () => {
    const results = await runner([asyncTool]).processToolCalls([
      { name: '_async_tool', args: { x: 1, y: 2 } },
    ]);
    expect(results[0]!.isError).toBeFalsy();
  });
});

describe('ContextInjectionTest (tool_runner_test.py)', () => {
  const host = { conversationId: () => 'test-id' };

  function contextTool(name: string, received: ToolContext[]) {
    return tool({ name, description: 'ctx', input: z.object({ arg1: z.string() }) }, ({ arg1 }, ctx) => {
      received.push(ctx);
      return `got ${arg1}`;
    });
  }

  it('ContextInjectionTest.test_tool_with_context_receives_it (tool_runner_test.py)', async () => {
    const received: ToolContext[] = [];
    const result = await runner([contextTool('_context_tool', received)], host).execute('_context_tool', {
      arg1: 'hello',
    });
    expect(text(result)).toBe('got hello');
    expect(received).toHaveLength(1);
    expect(received[0]!.conversationId).toBe('test-id');
  });

  it('ContextInjectionTest.test_tool_without_context_works_normally (tool_runner_test.py)', async () => {
    expect(text(await runner([sampleTool], host).execute('_sample_tool', { arg1: 'World' }))).toBe(
      'Hello World',
    );
  });

  it('ContextInjectionTest.test_async_tool_with_context (tool_runner_test.py)', async () => {
    let seen: string | undefined;
    const doubler = tool(
      { name: '_async_context_tool', description: 'x2', input: z.object({ x: z.number() }) },
      async ({ x }, ctx) => {
        seen = ctx.conversationId;
        return x * 2;
      },
    );
    expect(text(await runner([doubler], host).execute('_async_context_tool', { x: 5 }))).toBe('10');
    expect(seen).toBe('test-id');
  });

  it('ContextInjectionTest.test_no_context_set_skips_injection (tool_runner_test.py)', async () => {
    // Differs by design: every handler gets a context; with no conversation attached it has no id and its
    // `send` rejects (Python passes no context at all).
    const received: ToolContext[] = [];
    await runner([contextTool('_optional_ctx_tool', received)]).execute('_optional_ctx_tool', {
      arg1: 'test',
    });
    expect(received[0]!.conversationId).toBeUndefined();
    await expect(received[0]!.send('x')).rejects.toThrow(/no conversation is attached/);
  });

  it('ContextInjectionTest.test_process_tool_calls_with_context (tool_runner_test.py)', async () => {
    const received: ToolContext[] = [];
    const batchTool = tool(
      { name: '_batch_ctx_tool', description: 'ctx', input: z.object({}) },
      (_args, ctx) => {
        received.push(ctx);
        return 'ok';
      },
    );
    const results = await runner([batchTool], host).processToolCalls([{ name: '_batch_ctx_tool', args: {} }]);
    expect(results[0]!.isError).toBeFalsy();
    expect(received[0]!.conversationId).toBe('test-id');
  });
});
