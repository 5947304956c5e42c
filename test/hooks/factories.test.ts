import { describe, expect, it } from 'vitest';
import {
  DecideHook,
  HOOK_KINDS,
  type HookKind,
  hooks,
  InspectHook,
  OnToolErrorHook,
  PreToolCallHook,
  StopHook,
  TransformHook,
} from '../../src/hooks/index.js';

describe('hooks namespace', () => {
  it('has a factory for every hook kind, producing a hook of that kind and category', () => {
    const categories: Record<HookKind, unknown> = {
      onSessionStart: InspectHook,
      onSessionEnd: InspectHook,
      preTurn: DecideHook,
      postTurn: InspectHook,
      preToolCall: DecideHook,
      postToolCall: InspectHook,
      onToolError: TransformHook,
      onInteraction: TransformHook,
      onCompaction: InspectHook,
      stop: DecideHook,
    };
    for (const kind of HOOK_KINDS) {
      const hook = (hooks[kind] as (fn: () => undefined) => { kind: string })(() => undefined);
      expect(hook.kind).toBe(kind);
      expect(hook).toBeInstanceOf(categories[kind] as abstract new () => unknown);
    }
  });

  it('names hooks after the option, then the function, then the kind', () => {
    expect(hooks.preToolCall(() => true, { name: 'explicit' }).name).toBe('explicit');
    function guard() {
      return true;
    }
    expect(hooks.preToolCall(guard).name).toBe('guard');
    expect(hooks.stop(() => undefined).name).toBe('stop');
  });

  it('factory hooks are instances of the kind classes; run calls the function', async () => {
    const hook = hooks.onToolError((event) => `x:${event.error.message}`);
    expect(hook).toBeInstanceOf(OnToolErrorHook);
    expect(hooks.stop(() => undefined)).toBeInstanceOf(StopHook);
    const call = { id: '1', name: 'n', args: {}, normalizedArgs: {} };
    expect(await hook.run({ call, error: { message: 'm' } }, undefined as never)).toBe('x:m');
  });

  it('class hooks default their name to the class name', () => {
    class NoRm extends PreToolCallHook {
      run() {
        return true;
      }
    }
    expect(new NoRm().name).toBe('NoRm');
    expect(new NoRm({ name: 'custom' }).name).toBe('custom');
    expect(new NoRm().category).toBe('decide');
  });
});
