import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHookToolCall } from '../../../src/hooks/index.js';
import { type AskUserHandler, runAskUser } from '../../../src/policy/ask-user/index.js';
import { spyLogger } from '../../helpers/hooks.js';
import { ownTimers } from '../../helpers/own-timers.js';

const call = createHookToolCall({ id: '1', name: 'run_command', args: { CommandLine: 'ls' } });

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('runAskUser', () => {
  it('true / {allow:true} allow; false / {allow:false} deny', async () => {
    const opts = { policy: 'p', logger: spyLogger() };
    expect(await runAskUser(() => true, call, opts)).toEqual({ allow: true, status: 'answered' });
    expect(await runAskUser(async () => ({ allow: true }), call, opts)).toEqual({
      allow: true,
      status: 'answered',
    });
    expect(await runAskUser(async () => false, call, opts)).toEqual({
      allow: false,
      status: 'answered',
      message: "the user denied tool 'run_command'",
    });
    expect(await runAskUser(async () => ({ allow: false, message: 'nah' }), call, opts)).toMatchObject({
      allow: false,
      message: 'nah',
    });
  });

  it('passes policy, reason and an unaborted signal to the handler', async () => {
    const handler = vi.fn<AskUserHandler>(async () => true);
    await runAskUser(handler, call, { policy: 'confirm', reason: 'shell' });
    const ctx = handler.mock.calls[0]?.[1];
    expect(ctx).toMatchObject({ policy: 'confirm', reason: 'shell' });
    expect(ctx?.signal.aborted).toBe(false);
  });

  it('a sync throw, a rejection and an invalid answer all deny', async () => {
    const logger = spyLogger();
    const opts = { policy: 'p', logger };
    const thrown = await runAskUser(
      () => {
        throw new Error('no tty');
      },
      call,
      opts,
    );
    expect(thrown).toEqual({ allow: false, status: 'error', message: 'the approval handler failed: no tty' });
    expect((await runAskUser(() => Promise.reject(new Error('x')), call, opts)).allow).toBe(false);
    expect(await runAskUser(async () => 'yes' as never, call, opts)).toMatchObject({
      allow: false,
      status: 'error',
    });
    expect(logger.error).toHaveBeenCalledTimes(3);
  });

  it('times out: denies, aborts the signal, clears the timer; a late answer is ignored', async () => {
    vi.useFakeTimers();
    const timers = ownTimers('policy');
    const logger = spyLogger();
    let resolveLate: (v: boolean) => void = () => {};
    let signal: AbortSignal | undefined;
    const pending = runAskUser(
      (_call, ctx) => {
        signal = ctx.signal;
        return new Promise<boolean>((resolve) => {
          resolveLate = resolve;
        });
      },
      call,
      { policy: 'p', timeoutMs: 50, logger },
    );
    expect(timers.pending()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(await pending).toEqual({ allow: false, status: 'timeout', message: 'no approval within 50 ms' });
    expect(signal?.aborted).toBe(true);
    expect(timers.pending()).toBe(0);
    expect(logger.warn).toHaveBeenCalledOnce();
    resolveLate(true); // too late; must not throw or change anything
    await vi.advanceTimersByTimeAsync(10);
  });

  it('a late rejection after the timeout is absorbed (no unhandled rejection)', async () => {
    vi.useFakeTimers();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      let rejectLate: (e: Error) => void = () => {};
      const pending = runAskUser(
        () =>
          new Promise<boolean>((_resolve, reject) => {
            rejectLate = reject;
          }),
        call,
        { policy: 'p', timeoutMs: 10, logger: spyLogger() },
      );
      await vi.advanceTimersByTimeAsync(10);
      expect((await pending).status).toBe('timeout');
      rejectLate(new Error('late'));
      vi.useRealTimers();
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('clears its timer when the handler answers first', async () => {
    vi.useFakeTimers();
    const timers = ownTimers('policy');
    const pending = runAskUser(() => Promise.resolve(true), call, { policy: 'p', timeoutMs: 60_000 });
    expect((await pending).allow).toBe(true);
    expect(timers.pending()).toBe(0);
  });

  it('Infinity sets no timer; invalid timeouts throw', async () => {
    vi.useFakeTimers();
    const timers = ownTimers('policy');
    const pending = runAskUser(() => Promise.resolve(true), call, {
      policy: 'p',
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    expect(timers.pending()).toBe(0);
    expect((await pending).allow).toBe(true);
    await expect(runAskUser(() => true, call, { policy: 'p', timeoutMs: -1 })).rejects.toThrow(RangeError);
  });
});
