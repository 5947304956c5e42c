/**
 * Google's `triggers/trigger_runner_test.py` on agy-sdk's public API. Python drives its `TriggerRunner`
 * directly; agy-sdk's is the Agent's own (`config.triggers`, `registerTrigger`), started with the agent and
 * stopped on close, so each test drives an Agent on the in-memory connection of `agy-sdk/testing`.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/triggers/trigger_runner_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (3), not ported: TriggerRunnerTest.test_start_twice_raises, test_restart_after_stop and
 * test_context_manager_starts_and_stops drive the runner's own `start`/`stop`/`async with`; agy-sdk's runner is
 * not exported, its lifecycle is the agent's (one start, one close: ported as test_start_runs_triggers and
 * test_stop_cancels_all_triggers).
 */
import { describe, expect, it } from 'vitest';
import { Agent, type Trigger, type TriggerContext } from '../../../src/index.js';
import { InMemoryConnection } from '../../../src/testing/index.js';

/** A logger that keeps what was logged at error level. */
function errorLog() {
  const errors: string[] = [];
  return {
    errors,
    logger: { debug() {}, info() {}, warn() {}, error: (message: string) => void errors.push(message) },
  };
}

/** A promise and the function that resolves it. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire, fired };
}

/** A function trigger that runs until the runner's signal aborts, as Python's `await asyncio.Event().wait()`. */
const untilStopped = (onStart: () => void, onStop: () => void = () => {}): Trigger =>
  async function keepAlive(_ctx: TriggerContext, abort: AbortSignal) {
    onStart();
    await new Promise<void>((resolve) => abort.addEventListener('abort', () => resolve(), { once: true }));
    onStop();
  };

describe('TriggerRunnerTest (trigger_runner_test.py)', () => {
  it('TriggerRunnerTest.test_start_runs_triggers (trigger_runner_test.py)', async () => {
    const started = signal();
    const stopped = signal();
    const agent = new Agent({
      connection: new InMemoryConnection().connect,
      triggers: [untilStopped(started.fire, stopped.fire)],
    });
    await agent.start();
    await started.fired;
    await agent.close();
    await stopped.fired;
  });

  it('TriggerRunnerTest.test_stop_cancels_all_triggers (trigger_runner_test.py)', async () => {
    let cancelled = 0;
    const agent = new Agent({
      connection: new InMemoryConnection().connect,
      triggers: [
        untilStopped(
          () => {},
          () => cancelled++,
        ),
        untilStopped(
          () => {},
          () => cancelled++,
        ),
      ],
    });
    await agent.start();
    await agent.close();
    expect(cancelled).toBe(2);
  });

  it('TriggerRunnerTest.test_exception_in_trigger_does_not_crash_others (trigger_runner_test.py)', async () => {
    const { errors, logger } = errorLog();
    const healthy = signal();
    let stillRunning = false;
    await using agent = new Agent({
      connection: new InMemoryConnection().connect,
      logger,
      triggers: [
        async function badTrigger() {
          throw new Error('boom');
        },
        untilStopped(
          () => {
            stillRunning = true;
            healthy.fire();
          },
          () => {
            stillRunning = false;
          },
        ),
      ],
    });
    await agent.start();
    await healthy.fired;
    expect(errors.some((m) => m.includes('boom'))).toBe(true);
    expect(stillRunning).toBe(true);
  });

  it('TriggerRunnerTest.test_stop_when_not_started_is_noop (trigger_runner_test.py)', async () => {
    const agent = new Agent({
      connection: new InMemoryConnection().connect,
      triggers: [untilStopped(() => {})],
    });
    await expect(agent.close()).resolves.toBeUndefined();
  });

  it('TriggerRunnerTest.test_empty_triggers_list (trigger_runner_test.py)', async () => {
    const agent = new Agent({ connection: new InMemoryConnection().connect, triggers: [] });
    await agent.start();
    await expect(agent.close()).resolves.toBeUndefined();
  });

  it('TriggerRunnerTest.test_trigger_receives_context_with_connection (trigger_runner_test.py)', async () => {
    const received: TriggerContext[] = [];
    const conn = new InMemoryConnection({ turns: [{ steps: [] }] });
    const sent = signal();
    await using agent = new Agent({
      connection: conn.connect,
      triggers: [
        async function capture(ctx: TriggerContext) {
          received.push(ctx);
          await ctx.send('from the trigger');
          sent.fire();
        },
      ],
    });
    await agent.start();
    await sent.fired;
    // The message queued a turn; a task queued after it runs once that turn has ended.
    await agent.conversation.whenIdle(async () => {});
    expect(received).toHaveLength(1);
    // The context reaches the conversation: its message became a turn.
    expect(conn.requests.map((r) => r.text.join('\n'))).toEqual([
      expect.stringContaining('from the trigger'),
    ]);
  });
});
