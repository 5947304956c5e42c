// User callbacks run inside stream and socket handlers; callContained keeps their failures there.
import { describe, expect, it } from 'vitest';
import { callContained } from '../../src/internal/contain.js';
import type { Logger } from '../../src/logger.js';

function recorder(): Logger & { errors: unknown[][] } {
  const errors: unknown[][] = [];
  return { errors, debug: () => {}, info: () => {}, warn: () => {}, error: (...args) => errors.push(args) };
}

describe('callContained', () => {
  it('passes the arguments through and logs nothing when the callback succeeds', () => {
    const logger = recorder();
    const seen: unknown[] = [];
    callContained(logger, 'cb', (a: number, b: string) => seen.push(a, b), 1, 'x');
    callContained(logger, 'absent', undefined);
    expect(seen).toEqual([1, 'x']);
    expect(logger.errors).toEqual([]);
  });

  it('logs a synchronous throw, including a non-Error throw', () => {
    const logger = recorder();
    const boom = new Error('boom');
    callContained(logger, 'onBadLine', () => {
      throw boom;
    });
    callContained(logger, 'onStderr', () => {
      throw 'a string';
    });
    expect(logger.errors.map((e) => e[0])).toEqual([
      'onBadLine threw; the SDK carried on without it',
      'onStderr threw; the SDK carried on without it',
    ]);
    expect(logger.errors[0]![1]).toBe(boom);
    expect(logger.errors[1]![1]).toBe('a string');
  });

  it('logs the rejection of an async callback instead of leaving it unhandled', async () => {
    const logger = recorder();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      callContained(logger, 'onBadLine', async () => {
        throw new Error('later');
      });
      // Two macrotask turns: the rejection handler and Node's unhandled-rejection check have both run.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect((logger.errors[0]![1] as Error).message).toBe('later');
  });

  it('survives a logger that throws too', () => {
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: () => {
        throw new Error('logger down');
      },
    };
    expect(() =>
      callContained(logger, 'cb', () => {
        throw new Error('x');
      }),
    ).not.toThrow();
  });
});
