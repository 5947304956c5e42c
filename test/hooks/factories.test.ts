import { describe, expect, it } from 'vitest';
import { HOOK_KINDS, type HookKind, hooks, type PreToolCallHook } from '../../src/hooks/index.js';

describe('hooks namespace', () => {
  it('has a factory for every hook kind, producing a hook of that kind and category', () => {
    const categories: Record<HookKind, unknown> = {
      onSessionStart: 'inspect',
      onSessionEnd: 'inspect',
      preTurn: 'decide',
      postTurn: 'inspect',
      preToolCall: 'decide',
      postToolCall: 'inspect',
      onToolError: 'transform',
      onInteraction: 'transform',
      onCompaction: 'inspect',
      stop: 'decide',
    };
    for (const kind of HOOK_KINDS) {
      const hook = (hooks[kind] as (fn: () => undefined) => { kind: string; category: string })(
        () => undefined,
      );
      expect(hook.kind).toBe(kind);
      expect(hook.category).toBe(categories[kind]);
      // Hooks are plain, frozen objects: no class to subclass, nothing to mutate after registration.
      expect(Object.getPrototypeOf(hook)).toBe(Object.prototype);
      expect(Object.isFrozen(hook)).toBe(true);
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

  it('factory hooks carry their kind; run calls the function', async () => {
    const hook = hooks.onToolError((event) => `x:${event.error.message}`);
    expect(hook.kind).toBe('onToolError');
    expect(hooks.stop(() => undefined).kind).toBe('stop');
    const call = { id: '1', name: 'n', args: {}, normalizedArgs: {} };
    expect(await hook.run({ call, error: { message: 'm' } }, undefined as never)).toBe('x:m');
  });

  it('a hand-written hook object is a hook like any other', () => {
    const noRm: PreToolCallHook = { kind: 'preToolCall', category: 'decide', name: 'NoRm', run: () => true };
    expect(noRm.name).toBe('NoRm');
    expect(noRm.category).toBe('decide');
  });
});
