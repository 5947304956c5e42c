// The logger is validated at `new Agent`: a malformed one is a ConfigError naming the level, and missing
// levels are no-ops, so no log call of the SDK can throw `logger.warn is not a function` into the host.
import { describe, expect, it } from 'vitest';
import { Agent, ConfigError } from '../src/index.js';
import { checkedLogger } from '../src/logger.js';

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.field;
    throw err;
  }
  return undefined;
}

describe('logger validation', () => {
  it('a level that is not a function, or a logger that is not an object, is a ConfigError naming it', () => {
    expect(fieldOf(() => new Agent({ logger: { warn: 5 } as never }))).toBe('logger.warn');
    expect(fieldOf(() => new Agent({ logger: { error: 'x' } as never }))).toBe('logger.error');
    expect(fieldOf(() => new Agent({ logger: 5 as never }))).toBe('logger');
    expect(fieldOf(() => new Agent({ logger: null as never }))).toBe('logger');
  });

  it('an empty logger is accepted, and every level of it is a no-op that does not throw', () => {
    expect(() => new Agent({ logger: {} as never })).not.toThrow();
    const logger = checkedLogger({});
    for (const level of ['debug', 'info', 'warn', 'error'] as const)
      expect(() => logger[level]('message')).not.toThrow();
  });

  it('levels are called on the user’s object, with the message and details', () => {
    const seen: unknown[][] = [];
    const user = {
      prefix: 'P',
      warn(this: { prefix: string }, message: string, ...details: unknown[]) {
        seen.push([this.prefix, message, ...details]);
      },
    };
    const logger = checkedLogger(user);
    logger.warn('w', 1);
    logger.debug('not there');
    expect(seen).toEqual([['P', 'w', 1]]);
  });
});
