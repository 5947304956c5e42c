/**
 * Each hook kind exists as a class to subclass, as in the Python SDK's hook taxonomy
 * (docs/reference/design-sources.md#seed-003-the-python-sdk); instances and the `hooks.*` factories' plain
 * objects run through the same HookRunner.
 */
import { describe, expect, it } from 'vitest';
import { HookRunner } from '../../src/hooks/runner.js';
import { HOOK_KINDS } from '../../src/hooks/types.js';
import {
  Agent,
  type Hook,
  type HookToolCall,
  hooks,
  OnCompactionHook,
  OnInteractionHook,
  OnSessionEndHook,
  OnSessionStartHook,
  OnToolErrorHook,
  PostToolCallHook,
  PostTurnHook,
  PreToolCallHook,
  PreTurnHook,
  StopHook,
} from '../../src/index.js';
import { InMemoryConnection } from '../../src/testing/index.js';

class NoShell extends PreToolCallHook {
  run(call: HookToolCall) {
    return call.name !== 'run_command';
  }
}

describe('hook classes', () => {
  it('a subclass carries its kind, category and class name, like a factory hook', () => {
    const hook = new NoShell();
    expect([hook.kind, hook.category, hook.name]).toEqual(['preToolCall', 'decide', 'NoShell']);
    expect(new NoShell({ name: 'custom' }).name).toBe('custom');
    const factory = hooks.preToolCall(() => true);
    expect([factory.kind, factory.category]).toEqual([hook.kind, hook.category]);
    const stop = new (class extends StopHook {
      run() {
        return undefined;
      }
    })();
    expect([stop.kind, stop.category]).toEqual(['stop', 'decide']);
    // An anonymous class has no name to offer: the kind is the label.
    expect(stop.name).toBe('stop');
  });

  it('every class carries the kind and category of its factory, and the fields a factory hook has', () => {
    const classes = [
      OnSessionStartHook,
      OnSessionEndHook,
      PreTurnHook,
      PostTurnHook,
      PreToolCallHook,
      PostToolCallHook,
      OnToolErrorHook,
      OnInteractionHook,
      OnCompactionHook,
      StopHook,
    ];
    const kinds: string[] = [];
    for (const Base of classes) {
      // biome-ignore lint/suspicious/noExplicitAny: one concrete subclass per abstract class, whatever its run types.
      const Concrete = class extends (Base as any) {
        run() {
          return undefined;
        }
      };
      Object.defineProperty(Concrete, 'name', { value: `My${Base.name}` });
      const hook = new Concrete() as unknown as Hook;
      kinds.push(hook.kind);
      const factory = (hooks as unknown as Record<string, (fn: () => undefined) => Hook>)[hook.kind]?.(
        () => undefined,
      );
      expect(factory, Base.name).toBeDefined();
      expect([hook.category, hook.name], Base.name).toEqual([factory?.category, `My${Base.name}`]);
      expect(Object.keys(hook), Base.name).toEqual(['kind', 'category', 'name']);
    }
    expect(kinds).toEqual([...HOOK_KINDS]);
  });

  it('instances run through the HookRunner and the Agent', async () => {
    const runner = new HookRunner({ hooks: [new NoShell()] });
    const denied = await runner.dispatchPreToolCall(runner.beginTurn(), {
      name: 'run_command',
      args: {},
    } as unknown as HookToolCall);
    expect(denied.allow).toBe(false);

    const seen: string[] = [];
    class Gate extends PreTurnHook {
      run(prompt: string) {
        return !prompt.includes('forbidden');
      }
    }
    class Log extends PostTurnHook {
      run(text: string) {
        seen.push(text);
      }
    }
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'hi' }] }],
    });
    await using agent = new Agent({ connection: conn.connect, hooks: [new Gate(), new Log()] });
    expect((await (await agent.chat('forbidden topic')).result()).status).toBe('denied');
    expect(await (await agent.chat('hello')).text()).toBe('hi');
    expect(seen).toEqual(['hi']);
  });
});
