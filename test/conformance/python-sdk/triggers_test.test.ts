/**
 * Google's `triggers/triggers_test.py` on agy-sdk's public API: the trigger context, what counts as a trigger,
 * and the `FileChange` a file trigger receives.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/triggers/triggers_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (2), not ported: TriggerDecoratorTest.test_not_async_raises_value_error and
 * test_wrong_signature_raises_value_error inspect a function's `async`-ness and parameter count; agy-sdk has no
 * `@trigger` decorator (any function returning a promise is one, its arity unknowable from outside).
 */
import { describe, expect, it } from 'vitest';
import { Agent, type Trigger, type TriggerContext } from '../../../src/index.js';
import { InMemoryConnection } from '../../../src/testing/index.js';

describe('TriggerContextTest (triggers_test.py)', () => {
  it('TriggerContextTest.test_send_calls_connection_send_trigger_notification (triggers_test.py)', async () => {
    const conn = new InMemoryConnection({ turns: [{ steps: [] }] });
    let sent!: () => void;
    const wasSent = new Promise<void>((resolve) => {
      sent = resolve;
    });
    await using agent = new Agent({
      connection: conn.connect,
      triggers: [async (ctx: TriggerContext) => ctx.send('hello').then(sent)],
    });
    await agent.start();
    await wasSent;
    // The message queued a turn; a task queued after it runs once that turn has ended.
    await agent.conversation.whenIdle(async () => {});
    expect(conn.requests.map((r) => r.text)).toEqual([['hello']]);
  });
});

describe('TriggerTypeTest (triggers_test.py)', () => {
  it('TriggerTypeTest.test_trigger_is_callable_type (triggers_test.py)', () => {
    const myTrigger: Trigger = async (_ctx: TriggerContext) => {};
    expect(typeof myTrigger).toBe('function');
  });
});

describe('TriggerDecoratorTest (triggers_test.py)', () => {
  it('TriggerDecoratorTest.test_valid_trigger_accepted (triggers_test.py)', async () => {
    await using agent = new Agent({ connection: new InMemoryConnection().connect });
    expect(() => agent.registerTrigger(async (_ctx: TriggerContext) => {})).not.toThrow();
    expect(() => agent.registerTrigger('not a trigger' as never)).toThrow(TypeError);
  });
});
