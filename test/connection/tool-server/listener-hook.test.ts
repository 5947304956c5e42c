import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  SessionListener,
  type SessionListenerOptions,
} from '../../../src/connection/tool-server/listener.js';
import type { HookHandler } from '../../../src/connection/tool-server/listener-hook.js';
import { defaultHookFallback } from '../../../src/connection/tool-server/listener-hook.js';
import { activeTimers, captureLogger, deferred } from '../../helpers/listener.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function start(onHook: HookHandler, options: Partial<SessionListenerOptions> = {}) {
  const logger = captureLogger();
  const listener = await SessionListener.start({ logger, hooks: { answer: onHook }, ...options });
  cleanups.push(() => listener.close());
  return { listener, logger };
}

async function post(url: string, body: string, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  return { status: res.status, json: (await res.json()) as unknown };
}

const preToolUse = {
  hookEventName: 'PreToolUse',
  conversationId: 'c1',
  stepIdx: 7,
  toolCall: { name: 'run_command', args: { CommandLine: 'ls' } },
};

describe('SessionListener hook route', () => {
  it('passes event and input to onHook and answers its JSON', async () => {
    const calls: Array<[string, unknown]> = [];
    const { listener } = await start(async (event, input) => {
      calls.push([event, input]);
      return { decision: 'allow', reason: 'ok' };
    });
    // curl -d sends a form content type; the hook route does not care.
    const res = await post(
      listener.hookUrl('PreToolUse'),
      JSON.stringify(preToolUse),
      'application/x-www-form-urlencoded',
    );
    expect(res).toEqual({ status: 200, json: { decision: 'allow', reason: 'ok' } });
    expect(calls).toEqual([['PreToolUse', preToolUse]]);
  });

  it('answers {} when the hook returns nothing; sync hooks work too', async () => {
    const { listener } = await start(() => undefined);
    expect(await post(listener.hookUrl('Stop'), '{}')).toEqual({ status: 200, json: {} });
  });

  it('fails closed: a throwing PreToolUse hook answers an explicit deny, others {}', async () => {
    const { listener, logger } = await start(async () => {
      throw new Error('db down');
    });
    expect(await post(listener.hookUrl('PreToolUse'), JSON.stringify(preToolUse))).toEqual({
      status: 200,
      json: { decision: 'deny', reason: 'agy-sdk hook failed: db down' },
    });
    expect(await post(listener.hookUrl('PostToolUse'), '{}')).toEqual({ status: 200, json: {} });
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    expect(warnings.map((e) => e.fields?.event)).toEqual(['PreToolUse', 'PostToolUse']);
    expect(warnings[0]!.fields?.error).toBe('db down');
  });

  it('answers the fallback when the hook exceeds hookTimeoutMs, aborts its signal and leaves no timer', async () => {
    const before = activeTimers();
    const aborted = deferred<unknown>();
    const { listener, logger } = await start(
      (_event, _input, { signal }) => {
        signal.addEventListener('abort', () => aborted.resolve(signal.reason));
        return new Promise(() => {}); // never settles
      },
      { hookTimeoutMs: 50 },
    );
    const started = performance.now();
    const res = await post(listener.hookUrl('PreToolUse'), JSON.stringify(preToolUse));
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(res).toEqual({
      status: 200,
      json: { decision: 'deny', reason: 'agy-sdk hook failed: hook PreToolUse timed out after 50 ms' },
    });
    expect(((await aborted.promise) as Error).message).toMatch(/timed out/);
    expect(logger.entries.some((e) => e.level === 'warn' && /timed out/.test(String(e.fields?.error)))).toBe(
      true,
    );
    // The timeout was cleared by the hook path; after close nothing of ours is left.
    await listener.close();
    expect(activeTimers()).toBeLessThanOrEqual(before);
  });

  it('clears the timeout when the hook answers in time', async () => {
    const before = activeTimers();
    const { listener } = await start(async () => ({ decision: 'allow' }), { hookTimeoutMs: 60_000 });
    await post(listener.hookUrl('PreToolUse'), '{}');
    await listener.close();
    // A leaked 60 s timer would still be counted here.
    expect(activeTimers()).toBeLessThanOrEqual(before);
  });

  it('uses a custom hookFallback, and the default when that throws', async () => {
    const { listener } = await start(
      async () => {
        throw new Error('nope');
      },
      { hookFallback: (event, error) => ({ custom: event, message: error.message }) },
    );
    expect((await post(listener.hookUrl('Stop'), '{}')).json).toEqual({ custom: 'Stop', message: 'nope' });

    const { listener: second, logger } = await start(
      async () => {
        throw new Error('nope');
      },
      {
        hookFallback: () => {
          throw new Error('fallback broken');
        },
      },
    );
    expect((await post(second.hookUrl('PreToolUse'), '{}')).json).toEqual({
      decision: 'deny',
      reason: 'agy-sdk hook failed: nope',
    });
    expect(logger.entries.some((e) => e.level === 'error' && e.fields?.error === 'fallback broken')).toBe(
      true,
    );
  });

  it('answers the fallback to an answer that cannot be serialized', async () => {
    const { listener } = await start(async () => ({ big: 10n }));
    const res = await post(listener.hookUrl('PreToolUse'), '{}');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ decision: 'deny' });
    expect((res.json as { reason: string }).reason).toMatch(/^agy-sdk hook failed: .*BigInt/);
  });

  it('answers 400 with an explicit deny when the hook input is not JSON', async () => {
    let ran = false;
    const { listener } = await start(async () => {
      ran = true;
      return {};
    });
    expect(await post(listener.hookUrl('PreToolUse'), 'not json')).toEqual({
      status: 400,
      json: { decision: 'deny', reason: 'agy-sdk hook failed: hook input is not valid JSON' },
    });
    expect(ran).toBe(false);
  });

  it('aborts a pending hook on close()', async () => {
    const inside = deferred();
    const aborted = deferred<unknown>();
    const { listener } = await start((_event, _input, { signal }) => {
      signal.addEventListener('abort', () => aborted.resolve(signal.reason));
      inside.resolve();
      return new Promise(() => {});
    });
    const pending = fetch(listener.hookUrl('Stop'), { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    await inside.promise;
    await listener.close();
    expect(((await aborted.promise) as Error).message).toBe('listener closed');
    expect(await pending).toBeInstanceOf(Error);
  });

  it('a caller that goes away (agy interrupted) is an expected ending: logged at debug, never as a warning', async () => {
    const inside = deferred();
    const aborted = deferred<unknown>();
    const { listener, logger } = await start((_event, _input, { signal }) => {
      signal.addEventListener('abort', () => aborted.resolve(signal.reason));
      inside.resolve();
      return new Promise(() => {});
    });
    const caller = new AbortController();
    const pending = fetch(listener.hookUrl('PreToolUse'), {
      method: 'POST',
      body: JSON.stringify(preToolUse),
      signal: caller.signal,
    }).catch((error: unknown) => error);
    await inside.promise;
    caller.abort();
    expect(((await aborted.promise) as Error).message).toBe('hook caller went away');
    expect(await pending).toBeInstanceOf(Error);
    await vi.waitFor(() =>
      expect(
        logger.entries.some((e) => e.level === 'debug' && /ended before its answer/.test(e.message)),
      ).toBe(true),
    );
    expect(logger.entries.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
    await listener.close();
  });

  it('defaultHookFallback denies only PreToolUse', () => {
    expect(defaultHookFallback('PreToolUse', new Error('x'))).toEqual({
      decision: 'deny',
      reason: 'agy-sdk hook failed: x',
    });
    expect(defaultHookFallback('PreInvocation', new Error('x'))).toEqual({});
    expect(defaultHookFallback('Stop', new Error('x'))).toEqual({});
  });
});
