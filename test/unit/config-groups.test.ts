// validateConfig hands the agy backend its config as named groups, each holding only the fields set, typed by
// the lower layers' option interfaces, so nothing is copied field by field on the way down.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/agent/validate-config.js';
import { ConfigError } from '../../src/errors.js';
import { policy } from '../../src/policy/index.js';

describe('validateConfig groups', () => {
  it('splits the set fields into the session, launch and watchdog groups', () => {
    const onStderr = (_line: string) => {};
    const v = validateConfig({
      model: 'gemini-x',
      agyPath: '/bin/agy',
      extraArgs: ['--flag'],
      onStderr,
      notes: 'be brief',
      hookTimeoutMs: 1234,
      isolation: 'none',
      turnTimeoutMs: 5000,
      idleTimeoutMs: 6000,
      historyLimit: 3,
      policies: [policy.allowAll()],
    });
    expect(v.launch).toEqual({ model: 'gemini-x', agyPath: '/bin/agy', extraArgs: ['--flag'], onStderr });
    expect(v.session).toEqual({ notes: 'be brief', hookTimeoutMs: 1234, isolation: 'none' });
    expect(v.watchdog).toEqual({ turnTimeoutMs: 5000, idleTimeoutMs: 6000 });
    // Fields of the Agent's own (not the backend's) stay out of every group.
    for (const group of [v.launch, v.session, v.watchdog]) expect(group).not.toHaveProperty('historyLimit');
  });

  it('leaves the groups empty for an empty config', () => {
    const v = validateConfig({});
    expect([v.session, v.launch, v.watchdog]).toEqual([{}, {}, {}]);
  });

  it('still rejects a bad field before any group is built', () => {
    expect(() => validateConfig({ turnTimeoutMs: -1 })).toThrow(ConfigError);
  });
});
