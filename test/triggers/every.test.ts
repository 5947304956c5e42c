import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
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
    const trigger = every('1s', fn);
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
    const trigger = every('100ms', fn);
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
    const trigger = every('10ms', () => {
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
    const trigger = every('10ms', async () => {
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
    const trigger = every('10ms', fn);
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

  it('names itself after the function, else after the interval as written', () => {
    function poll() {}
    expect(every('5ms', poll).name).toBe('every(poll)');
    expect(every('5ms', poll, { name: 'x' }).name).toBe('x');
    expect(every('1.5m', () => {}).name).toBe('every(1.5m)');
  });
});

/** The ConfigError `every(...args)` throws (fails the test when it throws none or another kind). */
function refusal(...args: unknown[]): ConfigError {
  try {
    (every as (...a: unknown[]) => unknown)(...args);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`every(${args.map((a) => JSON.stringify(a)).join(', ')}) did not throw`);
}

describe('every: the interval cannot be misread (Python takes seconds, a bare number here is ms)', () => {
  it("every(60, fn), as ported from Python's every(60, fn), is refused, naming both readings", () => {
    const err = refusal(60, () => {});
    expect(err.field).toBe('every.interval');
    expect(err.message).toContain("every('60s', fn) for 60 seconds");
    expect(err.message).toContain("every('60ms', fn) for 60 milliseconds");
    expect(refusal(999, () => {}).message).toMatch(/every\(999\) is ambiguous/);
    expect(refusal(0.5, () => {}).message).toContain("every('0.5s', fn)");
  });

  it("every('60s', fn) fires once a minute: not at 60 ms, at 60 000 ms", async () => {
    const fn = vi.fn();
    const trigger = every('60s', fn);
    trigger.start(context().ctx);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledTimes(1);
    await trigger.stop();
  });

  it.each([
    ['250ms', 250],
    ['1s', 1000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
  ] as const)('%s is %i ms', async (interval, ms) => {
    const fn = vi.fn();
    const trigger = every(interval, fn);
    trigger.start(context().ctx);
    await vi.advanceTimersByTimeAsync(ms - 1);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledTimes(1);
    await trigger.stop();
  });

  it('an interval without a readable unit, or out of range, is a ConfigError naming what was written', () => {
    for (const bad of ['60', '60 sec', '60S', '1d', 's', '', '-5s', '1e3ms']) {
      const err = refusal(bad, () => {});
      expect(err.field).toBe('every.interval');
      expect(err.message).toContain(`${JSON.stringify(bad)} is not an interval`);
    }
    expect(refusal('0ms', () => {}).message).toContain('"0ms" is 0 ms; an interval must be at least 1 ms');
    expect(refusal('0.5ms', () => {}).message).toContain(
      '"0.5ms" is 0.5 ms; an interval must be at least 1 ms',
    );
    expect(refusal('25d', () => {}).message).toMatch(/not an interval/);
    expect(refusal('600h', () => {}).message).toContain(
      '"600h" is 2160000000 ms; an interval must be at least 1 ms and at most 2147483647 ms',
    );
    expect(refusal(2 ** 31, () => {}).message).toContain('2147483648 is 2147483648 ms; an interval must be');
    expect(refusal(0, () => {}).field).toBe('every.interval');
    expect(refusal(Number.NaN, () => {}).field).toBe('every.interval');
    expect(refusal(-1000, () => {}).field).toBe('every.interval');
    expect(refusal({ seconds: 60 }, () => {}).message).toMatch(/must be a string with a unit .* got object/);
    expect(refusal('1s', 'not a function').field).toBe('every.fn');
  });

  it('a bare number of at least 1000 still runs as milliseconds, with one warning at start naming the unit form', async () => {
    const fn = vi.fn();
    const trigger = every(60_000, fn);
    const { ctx, logger } = context();
    trigger.start(ctx);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(String(logger.warn.mock.calls[0]?.[0])).toContain(
      "every(60000): a bare number is read as milliseconds (60 s); write every('60000ms', fn) or every('60s', fn)",
    );
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    await trigger.stop();
  });

  it('an interval with its unit starts without a warning', async () => {
    const { ctx, logger } = context();
    const trigger = every('60s', () => {});
    trigger.start(ctx);
    expect(logger.warn).not.toHaveBeenCalled();
    await trigger.stop();
  });
});
