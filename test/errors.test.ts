/** One error hierarchy: every error the SDK raises is an AgySdkError with a code from one literal union. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ClosedError, UsageError } from '../src/connection/index.js';
import {
  AgyNotFoundError,
  AgySdkError,
  type AgySdkErrorCode,
  ConfigError,
  MissingPeerError,
  PolicyConfigError,
} from '../src/index.js';
import { enforce } from '../src/policy/index.js';
import { InMemoryConnection } from '../src/testing/index.js';
import { createToolContext, StateStore } from '../src/tools/tool-context.js';
import { every } from '../src/triggers/index.js';

/** Compiles only while the switch covers every code: the union is what users switch on. */
function describeCode(code: AgySdkErrorCode): string {
  switch (code) {
    case 'config_invalid':
    case 'policy_config_invalid':
    case 'misuse':
    case 'unsupported':
    case 'peer_missing':
      return 'caller';
    case 'agy_not_found':
    case 'start_failed':
    case 'process_exited':
    case 'watchdog_timeout':
    case 'line_too_long':
      return 'agy';
    case 'structured_output_invalid':
    case 'budget_exceeded':
    case 'closed':
    case 'content_invalid':
      return 'turn input or output';
    case 'queue_full':
    case 'queued_work_aborted':
      return 'pool';
    case 'cassette_invalid':
    case 'cassette_mismatch':
      return 'testing';
    case 'redis_unavailable':
      return 'fleet';
    case 'turn_success':
    case 'turn_denied':
    case 'turn_timeout':
    case 'turn_quota_exhausted':
    case 'turn_rate_limited':
    case 'turn_auth_failed':
    case 'turn_interrupted':
    case 'turn_canceled':
    case 'turn_budget_exceeded':
    case 'turn_error':
      return 'turn';
    default: {
      const never: never = code;
      return never;
    }
  }
}

describe('error hierarchy', () => {
  it('PolicyConfigError is an AgySdkError with its own code and the policy name', () => {
    let error: unknown;
    try {
      enforce([{ tool: 'run_command', decision: 'ask_user', name: 'confirm_shell' }]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AgySdkError);
    expect(error).toBeInstanceOf(PolicyConfigError);
    expect(error).toMatchObject({ code: 'policy_config_invalid', policyName: 'confirm_shell' });
    expect(describeCode((error as AgySdkError).code)).toBe('caller');
  });

  it('AgyNotFoundError names the way out: AGY_PATH, agyPath, PATH, and the bundled simulator', () => {
    const error = new AgyNotFoundError(['/usr/local/bin/agy']);
    expect(error.message).toContain('AGY_PATH=node_modules/.bin/agy-sim');
    expect(error.message).toContain('simulatorPath()');
    expect(error.message).toContain('/usr/local/bin/agy');
  });

  it('MissingPeerError names the package and the install command', () => {
    const error = new MissingPeerError('bullmq', 'agy-sdk/fleet', 'npm install bullmq ioredis');
    expect(error).toMatchObject({
      code: 'peer_missing',
      packageName: 'bullmq',
      install: 'npm install bullmq ioredis',
    });
    expect(error.message).toContain('`npm install bullmq ioredis`');
    expect(describeCode(error.code)).toBe('caller');
  });

  it('code is typed as the literal union, not string', () => {
    expectTypeOf(new ClosedError().code).toEqualTypeOf<AgySdkErrorCode>();
    expect(new ConfigError('x', 'bad').code).toBe('config_invalid');
  });

  it('a second turn on a connection while one runs is a UsageError (misuse)', async () => {
    const conn = new InMemoryConnection({ turns: [{ hang: true }] });
    await conn.start();
    const first = conn.runTurn({ text: ['a'] }, { onStep() {} });
    await expect(conn.runTurn({ text: ['b'] }, { onStep() {} })).rejects.toSatisfy(
      (e) => e instanceof UsageError && (e as UsageError).code === 'misuse',
    );
    await conn.interrupt();
    expect((await first).status).toBe('interrupted');
  });

  it("a tool context's send with no conversation attached is a UsageError", async () => {
    const ctx = createToolContext({}, new StateStore(), new AbortController().signal);
    await expect(ctx.send('hi')).rejects.toBeInstanceOf(UsageError);
  });

  it('starting a trigger that is already started is a UsageError', async () => {
    const trigger = every('60s', () => undefined);
    const ctx = { send: async () => {}, signal: new AbortController().signal, logger: undefined } as never;
    await trigger.start(ctx);
    try {
      expect(() => trigger.start(ctx)).toThrow(UsageError);
    } finally {
      await trigger.stop();
    }
  });
});
