/**
 * Google's `hooks_test.py` on agy-sdk's public API: the hook classes (subclass and implement `run`) and the
 * `hooks.*` factories (Python's decorators), sync and async.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/hooks/hooks_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Python's tests call `run` with a bare `HookContext()`; the factories hand whatever context they get to the
 * function untouched, so a plain object stands in for it here and is checked for identity.
 *
 * Not applicable (9), not ported: Python's decorators inspect the function's signature (parameter names, type
 * hints, defaults) to decide whether the context comes first, second or at all; agy-sdk calls every hook
 * function as `(data, ctx)`, and JavaScript has no signatures to inspect:
 * BaseHookTest.test_decorator_pre_turn_compatibility_edge_case, test_decorator_pre_turn_with_type_hint,
 * test_decorator_on_session_start_with_type_hint, test_decorator_pre_turn_reversed_order,
 * test_decorator_pre_turn_with_string_type_hint, test_decorator_invalid_signature_fails_early,
 * test_decorator_pre_turn_optional_param_before_context, test_decorator_pre_turn_context_only; and
 * BaseHookTest.test_hook_result_defaults: `HookResult` is a pydantic model with defaults, agy-sdk's decision a
 * plain `{ allow, message? }` literal (or a boolean) with none.
 */
import { describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../../../src/hooks/index.js';
import {
  Agent,
  type HookToolCall,
  type HookToolResult,
  hooks,
  OnCompactionHook,
  OnToolErrorHook,
  type OperationContext,
  PostToolCallHook,
  PreToolCallHook,
  PreTurnHook,
  type SessionContext,
  type ToolErrorEvent,
  type TurnContext,
} from '../../../src/index.js';
import { InMemoryConnection } from '../../../src/testing/index.js';
import { toolCall } from './kit.js';

/** Stands in for Python's bare `HookContext()`: the factories pass the context through untouched. */
const ctx = { stands: 'for HookContext()' } as unknown as TurnContext & OperationContext & SessionContext;

describe('BaseHookTest (hooks_test.py)', () => {
  it('BaseHookTest.test_inspect_hook (hooks_test.py)', async () => {
    class DummyInspect extends PostToolCallHook {
      run(data: HookToolResult) {
        (data as HookToolResult & { called?: boolean }).called = true;
      }
    }
    const hook: PostToolCallHook = new DummyInspect();
    const data: HookToolResult & { called?: boolean } = { call: toolCall('t') };
    await hook.run(data, ctx);
    expect(hook.category).toBe('inspect');
    expect(data.called).toBe(true);
  });

  it('BaseHookTest.test_decide_hook (hooks_test.py)', async () => {
    class DummyDecide extends PreToolCallHook {
      run(_call: HookToolCall) {
        return { allow: true, message: 'allowed' };
      }
    }
    const hook: PreToolCallHook = new DummyDecide();
    expect(hook.category).toBe('decide');
    expect(await hook.run(toolCall('t'), ctx)).toEqual({ allow: true, message: 'allowed' });
  });

  it('BaseHookTest.test_pre_turn_hook (hooks_test.py)', async () => {
    class DummyPreTurn extends PreTurnHook {
      run(_text: string, turn: TurnContext) {
        return { allow: Array.isArray(turn.prompt), message: 'checked' };
      }
    }
    const decisions: unknown[] = [];
    const conn = new InMemoryConnection({ turns: [{ steps: [] }] });
    await using agent = new Agent({
      connection: conn.connect,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      hooks: [
        new DummyPreTurn(),
        hooks.preTurn((text, turn) => {
          decisions.push([text, turn.prompt]);
          return true;
        }),
      ],
    });
    // Differs by design: the prompt's parts are `turn.prompt` (the first argument is its text), where Python's hook
    // receives the list.
    expect((await (await agent.chat(['multimodal', 'prompt'])).result()).status).toBe('success');
    expect(decisions).toEqual([['multimodal\nprompt', ['multimodal', 'prompt']]]);
  });

  it('BaseHookTest.test_transform_hook (hooks_test.py)', async () => {
    class DummyTransform extends OnToolErrorHook {
      run(event: ToolErrorEvent) {
        return `${event.error.message}_modified`;
      }
    }
    const hook: OnToolErrorHook = new DummyTransform();
    expect(hook.category).toBe('transform');
    expect(await hook.run({ call: toolCall('t'), error: { message: 'original' } }, ctx)).toBe(
      'original_modified',
    );
  });

  it('BaseHookTest.test_on_compaction_hook (hooks_test.py)', async () => {
    let called = false;
    class DummyCompaction extends OnCompactionHook {
      run(_event: CompactionEvent) {
        called = true;
      }
    }
    const hook: OnCompactionHook = new DummyCompaction();
    await hook.run({ stepIndex: 0 }, ctx);
    expect(called).toBe(true);
  });

  it('BaseHookTest.test_decorator_pre_turn (hooks_test.py)', async () => {
    let calledWith: string | undefined;
    const hook = hooks.preTurn(async (data) => {
      calledWith = data;
      return { allow: true };
    });
    expect(await hook.run('prompt_data', ctx)).toEqual({ allow: true });
    expect(calledWith).toBe('prompt_data');
  });

  it('BaseHookTest.test_decorator_on_session_start (hooks_test.py)', async () => {
    let called = false;
    const hook = hooks.onSessionStart(async () => {
      called = true;
    });
    await hook.run({ conversationId: undefined }, ctx);
    expect(called).toBe(true);
  });

  it('BaseHookTest.test_decorator_pre_turn_with_context (hooks_test.py)', async () => {
    let calledWith: string | undefined;
    let contextPassed: unknown;
    const hook = hooks.preTurn(async (data, context) => {
      calledWith = data;
      contextPassed = context;
      return { allow: true };
    });
    expect((await hook.run('prompt_data', ctx)) as unknown).toEqual({ allow: true });
    expect(calledWith).toBe('prompt_data');
    expect(contextPassed).toBe(ctx);
  });

  it('BaseHookTest.test_decorator_on_session_start_with_context (hooks_test.py)', async () => {
    let contextPassed: unknown;
    const hook = hooks.onSessionStart(async (_info, context) => {
      contextPassed = context;
    });
    await hook.run({ conversationId: undefined }, ctx);
    expect(contextPassed).toBe(ctx);
  });

  it('BaseHookTest.test_decorator_sync_pre_turn (hooks_test.py)', async () => {
    let calledWith: string | undefined;
    const hook = hooks.preTurn((data) => {
      calledWith = data;
      return { allow: true, message: 'sync_allowed' };
    });
    expect(await hook.run('prompt_data', ctx)).toEqual({ allow: true, message: 'sync_allowed' });
    expect(calledWith).toBe('prompt_data');
  });

  it('BaseHookTest.test_decorator_sync_on_session_start (hooks_test.py)', async () => {
    let called = false;
    const hook = hooks.onSessionStart(() => {
      called = true;
    });
    await hook.run({ conversationId: undefined }, ctx);
    expect(called).toBe(true);
  });

  it('BaseHookTest.test_decorator_sync_pre_turn_with_context (hooks_test.py)', async () => {
    let contextPassed: unknown;
    const hook = hooks.preTurn((data, context) => {
      contextPassed = context;
      return data === 'prompt_data';
    });
    expect(await hook.run('prompt_data', ctx)).toBe(true);
    expect(contextPassed).toBe(ctx);
  });

  it('BaseHookTest.test_decorator_sync_direct_call (hooks_test.py)', async () => {
    // Python calls the decorated function itself; a hook here is a plain object, so its `run` is the call.
    const hook = hooks.preTurn(((data: string) => `echo: ${data}`) as never);
    expect(await hook.run('test', ctx)).toBe('echo: test');
  });
});
