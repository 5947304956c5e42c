import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { every, type TriggerContext } from '../../src/triggers/index.js';
import { spyLogger } from '../helpers/hooks.js';
import { ownTimers } from '../helpers/own-timers.js';

function context() {
  const controller = new AbortController();
  const logger = spyLogger();
  const ctx: TriggerContext = { send: vi.fn(async () => {}), signal: controller.signal, logger };
  return { ctx, controller, logger };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('every', () => {
  it('first runs one interval after start (not immediately), then every interval', async () => {
    const fn = vi.fn();
    const trigger = every(1000, fn);
    const { ctx } = context();
    trigger.start(ctx);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(999);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith(ctx);
    await vi.advanceTimersByTimeAsync(3000);
    expect(fn).toHaveBeenCalledTimes(4);
    await trigger.stop();
  });

  it('never overlaps runs: ticks during a slow run are skipped', async () => {
    let finish: () => void = () => {};
    let active = 0;
    let maxActive = 0;
    const fn = vi.fn(async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      active--;
    });
    const trigger = every(100, fn);
    const { ctx, logger } = context();
    trigger.start(ctx);
    await vi.advanceTimersByTimeAsync(100);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500); // five ticks while the first run is still going
    expect(fn).toHaveBeenCalledTimes(1);
    expect(logger.debug).toHaveBeenCalled();
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(fn).toHaveBeenCalledTimes(2);
    expect(maxActive).toBe(1);
    finish();
    await trigger.stop();
  });

  it('logs errors (sync and async) and keeps ticking', async () => {
    let n = 0;
    const trigger = every(10, () => {
      n++;
      if (n === 1) throw new Error('sync boom');
      if (n === 2) return Promise.reject(new Error('async boom'));
      return undefined;
    });
    const { ctx, logger } = context();
    trigger.start(ctx);
    await vi.advanceTimersByTimeAsync(30);
    expect(n).toBe(3);
    expect(logger.error).toHaveBeenCalledTimes(2);
    expect(logger.error.mock.calls[0]?.[0]).toContain('sync boom');
    await trigger.stop();
  });

  it('stop clears the timer and waits for the run in progress', async () => {
    const timers = ownTimers('triggers');
    let finish: () => void = () => {};
    let finished = false;
    const trigger = every(10, async () => {
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      finished = true;
    });
    trigger.start(context().ctx);
    await vi.advanceTimersByTimeAsync(10);
    expect(timers.pending()).toBe(1);
    let stopped = false;
    const stopping = Promise.resolve(trigger.stop()).then(() => {
      stopped = true;
    });
    expect(timers.pending()).toBe(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(finished).toBe(true);
  });

  it('does not run after the signal aborted, and can be restarted after stop', async () => {
    const timers = ownTimers('triggers');
    const fn = vi.fn();
    const trigger = every(10, fn);
    const first = context();
    trigger.start(first.ctx);
    first.controller.abort();
    await vi.advanceTimersByTimeAsync(50);
    expect(fn).not.toHaveBeenCalled();
    await trigger.stop();
    trigger.start(context().ctx);
    expect(() => trigger.start(context().ctx)).toThrow(/already started/);
    await vi.advanceTimersByTimeAsync(10);
    expect(fn).toHaveBeenCalledTimes(1);
    await trigger.stop();
    expect(timers.pending()).toBe(0);
  });

  it('rejects invalid intervals and names itself after the function', () => {
    expect(() => every(0, () => {})).toThrow(RangeError);
    expect(() => every(Number.NaN, () => {})).toThrow(RangeError);
    expect(() => every(2 ** 31, () => {})).toThrow(RangeError);
    function poll() {}
    expect(every(5, poll).name).toBe('every(poll)');
    expect(every(5, poll, { name: 'x' }).name).toBe('x');
  });
});
