import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  every,
  type FileChange,
  onFileChange,
  type TriggerContext,
  type TriggerObject,
  TriggerRunner,
} from '../../src/triggers/index.js';
import { spyLogger } from '../helpers/hooks.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Active libuv resources of one type (fs watchers are `FSEventWrap`, timers `Timeout`). */
const active = (type: string) => process.getActiveResourcesInfo().filter((r) => r === type).length;

describe('TriggerRunner', () => {
  it('starts object triggers with a context and function triggers with (ctx, signal)', async () => {
    const send = vi.fn(async (_text: string) => {});
    const logger = spyLogger();
    let objectCtx: TriggerContext | undefined;
    const obj: TriggerObject = {
      name: 'obj',
      start: (ctx) => {
        objectCtx = ctx;
      },
      stop: vi.fn(),
    };
    let fnSignal: AbortSignal | undefined;
    let fnSent: () => void = () => {};
    const sent = new Promise<void>((resolve) => {
      fnSent = resolve;
    });
    const fn = vi.fn(async (ctx: TriggerContext, signal: AbortSignal) => {
      fnSignal = signal;
      await ctx.send('from fn');
      fnSent();
    });
    const runner = new TriggerRunner([obj, fn], { send, logger });
    await runner.start();
    expect(runner.running).toBe(true);
    expect(objectCtx?.logger).toBe(logger);
    await objectCtx?.send('from obj');
    await sent;
    expect(send.mock.calls.map((c) => c[0]).sort()).toEqual(['from fn', 'from obj']);
    expect(fnSignal).toBe(objectCtx?.signal);
    await runner.stop();
    expect(obj.stop).toHaveBeenCalledOnce();
    expect(fnSignal?.aborted).toBe(true);
    expect(runner.running).toBe(false);
  });

  it('send rejects after stop', async () => {
    let ctx: TriggerContext | undefined;
    const runner = new TriggerRunner(
      [
        {
          start: (c) => {
            ctx = c;
          },
          stop: () => {},
        },
      ],
      { send: async () => {} },
    );
    await runner.start();
    await runner.stop();
    await expect(ctx?.send('late')).rejects.toThrow(/stopped/);
  });

  it('errors from triggers are logged and never propagate', async () => {
    const logger = spyLogger();
    const good = { start: vi.fn(), stop: vi.fn() };
    const runner = new TriggerRunner(
      [
        {
          name: 'bad-start',
          start: () => {
            throw new Error('cannot start');
          },
          stop: () => {},
        },
        async function badFn() {
          throw new Error('fn failed');
        },
        {
          name: 'bad-stop',
          start: () => {},
          stop: async () => {
            throw new Error('cannot stop');
          },
        },
        good,
      ],
      { send: async () => {}, logger },
    );
    await expect(runner.start()).resolves.toBeUndefined();
    expect(good.start).toHaveBeenCalled();
    await expect(runner.stop()).resolves.toBeUndefined();
    expect(good.stop).toHaveBeenCalled();
    const messages = logger.error.mock.calls.map((c) => c[0]).join('\n');
    expect(messages).toContain("'bad-start' failed: cannot start");
    expect(messages).toContain("'badFn' failed: fn failed");
    expect(messages).toContain("'bad-stop' failed to stop: cannot stop");
  });

  it('a function trigger ending on abort is not an error', async () => {
    const logger = spyLogger();
    const runner = new TriggerRunner(
      [
        (_ctx, signal) =>
          new Promise<void>((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason)),
          ),
      ],
      { send: async () => {}, logger },
    );
    await runner.start();
    await runner.stop();
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('stop waits for triggers, but not forever: a trigger ignoring the signal is abandoned with a warning', async () => {
    vi.useFakeTimers();
    const logger = spyLogger();
    const runner = new TriggerRunner(
      [
        async function stubborn() {
          await new Promise(() => {});
        },
      ],
      {
        send: async () => {},
        logger,
        stopTimeoutMs: 1000,
      },
    );
    await runner.start();
    const stopping = runner.stop();
    await vi.advanceTimersByTimeAsync(1000);
    await stopping;
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining("'stubborn' did not stop within 1000 ms"),
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  it('start twice throws; stop is idempotent; restart after stop works', async () => {
    const start = vi.fn();
    const runner = new TriggerRunner([{ start, stop: () => {} }], { send: async () => {} });
    await runner.stop(); // not started: no-op
    await runner.start();
    await expect(runner.start()).rejects.toThrow(/already started/);
    await Promise.all([runner.stop(), runner.stop()]);
    await runner.start();
    expect(start).toHaveBeenCalledTimes(2);
    await runner.stop();
  });

  it('validates its arguments', () => {
    expect(() => new TriggerRunner([{} as never], { send: async () => {} })).toThrow(TypeError);
    expect(() => new TriggerRunner([], {} as never)).toThrow(TypeError);
  });

  it('with fake timers: every() through the runner, and stop leaves no timer', async () => {
    vi.useFakeTimers();
    const send = vi.fn(async (_t: string) => {});
    const runner = new TriggerRunner([every('60s', (ctx) => ctx.send('tick'))], { send });
    await runner.start();
    await vi.advanceTimersByTimeAsync(180_000);
    expect(send).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(1);
    await runner.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with real timers and a real watcher: stop leaves no timer or watcher running', {
    timeout: 20_000,
  }, async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'agy-runner-')));
    try {
      const watchersBefore = active('FSEventWrap') + active('StatWatcher');
      // Count only the timers the triggers create: the test runner's own come and go on a loaded machine.
      const ours: NodeJS.Timeout[] = [];
      const fromTriggers = () => /[\\/]src[\\/]triggers[\\/]/.test(new Error().stack ?? '');
      const realInterval = globalThis.setInterval;
      const realTimeout = globalThis.setTimeout;
      vi.spyOn(globalThis, 'setInterval').mockImplementation(((...args: Parameters<typeof setInterval>) => {
        const handle = realInterval(...args);
        if (fromTriggers()) ours.push(handle);
        return handle;
      }) as typeof setInterval);
      vi.spyOn(globalThis, 'setTimeout').mockImplementation(((...args: Parameters<typeof setTimeout>) => {
        const handle = realTimeout(...args);
        if (fromTriggers()) ours.push(handle);
        return handle;
      }) as typeof setTimeout);
      let resolveChange: (c: FileChange[]) => void = () => {};
      const changed = new Promise<FileChange[]>((resolve) => {
        resolveChange = resolve;
      });
      const send = vi.fn(async (_t: string) => {});
      const runner = new TriggerRunner(
        [
          every('50ms', () => {}),
          onFileChange(
            dir,
            async (changes, ctx) => {
              await ctx.send(`changed: ${changes.map((c) => path.basename(c.path)).join(',')}`);
              resolveChange(changes);
            },
            { debounceMs: 20 },
          ),
        ],
        { send },
      );
      await runner.start();
      expect(active('FSEventWrap') + active('StatWatcher')).toBeGreaterThan(watchersBefore);
      await writeFile(path.join(dir, 'x.txt'), 'x');
      await changed;
      expect(send).toHaveBeenCalledWith('changed: x.txt');
      await runner.stop();
      expect(active('FSEventWrap') + active('StatWatcher')).toBe(watchersBefore);
      vi.restoreAllMocks();
      // The interval and the debounce timer were made, and every one is cleared (or has fired) after stop.
      expect(ours.length).toBeGreaterThanOrEqual(2);
      for (const handle of ours) expect((handle as unknown as { _destroyed: boolean })._destroyed).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
