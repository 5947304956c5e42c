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
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Agent,
  type FileChange,
  onFileChange,
  type Trigger,
  type TriggerContext,
} from '../../../src/index.js';
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

describe('FileChangeTest (triggers_test.py)', () => {
  it('FileChangeTest.test_file_change_is_immutable (triggers_test.py)', { timeout: 60_000 }, async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'agy-sdk-conformance-change-')));
    let received!: (change: FileChange) => void;
    const first = new Promise<FileChange>((resolve) => {
      received = resolve;
    });
    const trigger = onFileChange(dir, (changes) => received(changes[0]!));
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    try {
      await trigger.start({ send: async () => {}, signal: new AbortController().signal, logger });
      await writeFile(path.join(dir, 'bar'), 'x');
      const change = await first;
      // ESM code is strict: writing a frozen object's field throws.
      expect(() => {
        (change as { path: string }).path = '/foo/baz';
      }).toThrow(TypeError);
      expect(() => {
        (change as { kind: string }).kind = 'deleted';
      }).toThrow(TypeError);
      expect(change).toEqual({ kind: 'added', path: path.join(dir, 'bar') });
    } finally {
      await trigger.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
