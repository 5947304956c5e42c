/**
 * Google's `tool_context_test.py` on agy-sdk's public API: the `ToolContext` a `tool()` handler gets, driven
 * through `ToolRunner` (`agy-sdk/testing`), whose state store plays the conversation's.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/tools/tool_context_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (5), not ported: ToolContextStateTest.test_update_state, test_update_state_exception_safety,
 * test_lock_and_context_manager, test_concurrent_set_state_thread_safety and
 * test_atomic_update_state_concurrent_threads. They test `update_state` and the `RLock` that make state changes
 * atomic across the thread pool Python runs sync tools on; a JavaScript handler runs on one thread, and a
 * `getState`/`setState` pair with no `await` between them cannot interleave with another call, so agy-sdk's
 * context has neither.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ToolContext, tool } from '../../../src/index.js';
import { ToolRunner } from '../../../src/testing/index.js';
import { quietLogger } from './kit.js';

/** Runs `body` inside a tool handler and returns what it returned; calls given one `state` share it. */
async function inTool<T>(body: (ctx: ToolContext) => T, state?: ToolRunner['state']): Promise<T> {
  let out: T | undefined;
  const probe = tool(
    { name: 'probe', description: 'runs the test body', input: z.object({}) },
    (_args, ctx) => {
      out = body(ctx);
      return 'ok';
    },
  );
  const result = await new ToolRunner([probe], { logger: quietLogger, state }).execute('probe');
  expect(result.isError).toBeFalsy();
  return out as T;
}

describe('ToolContextPropertyTest (tool_context_test.py)', () => {
  it('ToolContextPropertyTest.test_conversation_id (tool_context_test.py)', async () => {
    const probe = tool(
      { name: 'probe', description: 'id', input: z.object({}) },
      (_a, ctx) => ctx.conversationId,
    );
    const runner = new ToolRunner([probe], {
      logger: quietLogger,
      host: { conversationId: () => 'abc-123' },
    });
    const result = await runner.execute('probe');
    expect(result.content).toEqual([{ type: 'text', text: 'abc-123' }]);
  });
});

describe('ToolContextStateTest (tool_context_test.py)', () => {
  it('ToolContextStateTest.test_get_state_missing_returns_default (tool_context_test.py)', async () => {
    const [missing, fallback] = await inTool((ctx) => [
      ctx.getState('missing'),
      ctx.getState('missing', 'fallback'),
    ]);
    expect(missing).toBeUndefined();
    expect(fallback).toBe('fallback');
  });

  it('ToolContextStateTest.test_set_and_get_state (tool_context_test.py)', async () => {
    expect(
      await inTool((ctx) => {
        ctx.setState('counter', 42);
        return ctx.getState('counter');
      }),
    ).toBe(42);
  });

  it('ToolContextStateTest.test_set_state_overwrites (tool_context_test.py)', async () => {
    expect(
      await inTool((ctx) => {
        ctx.setState('key', 'old');
        ctx.setState('key', 'new');
        return ctx.getState('key');
      }),
    ).toBe('new');
  });

  it('ToolContextStateTest.test_state_isolation_between_instances (tool_context_test.py)', async () => {
    // Two sessions (two runners, as two conversations) do not share state; calls of one session do.
    const first = new ToolRunner([], { logger: quietLogger }).state;
    await inTool((ctx) => ctx.setState('shared_key', 'value1'), first);
    expect(await inTool((ctx) => ctx.getState('shared_key'), first)).toBe('value1');
    expect(await inTool((ctx) => ctx.getState('shared_key'))).toBeUndefined();
  });
});
