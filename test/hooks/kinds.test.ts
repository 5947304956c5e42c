/**
 * Each hook kind exists as a class to subclass, as in the Python SDK's hook taxonomy
 * (docs/reference/design-sources.md#seed-003-the-python-sdk); instances and the `hooks.*` factories' plain
 * objects run through the same HookRunner.
 */
import { describe, expect, it } from 'vitest';
import { HookRunner } from '../../src/hooks/runner.js';
import {
  Agent,
  type HookToolCall,
  hooks,
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
