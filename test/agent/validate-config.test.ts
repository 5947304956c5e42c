// validateConfig hands each backend its config as named groups (agy: session, launch, watchdog; ACP: one), each
// holding only the fields set, typed by the lower layers' option interfaces, so nothing is copied field by field
// on the way down.
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

  it('gives the ACP backend its one group: the fields it takes as they are, and what validation derives for it', () => {
    const onStderr = (_line: string) => {};
    const v = validateConfig({
      backend: { kind: 'acp', preset: 'gemini-cli' },
      model: 'gemini-x',
      conversationId: 'c-1',
      startTimeoutMs: 1000,
      closeGraceMs: 200,
      maxLineBytes: 4096,
      onStderr,
      isolation: 'shadow-home',
      settingsOverrides: { ui: { theme: 'x' } },
      capabilities: { disabledTools: ['run_command'] },
      systemInstructions: { mode: 'replace', text: 'you are terse' },
      historyLimit: 3,
      policies: [policy.allowAll()],
    });
    expect(v.acp).toEqual({
      model: 'gemini-x',
      conversationId: 'c-1',
      startTimeoutMs: 1000,
      closeGraceMs: 200,
      maxLineBytes: 4096,
      onStderr,
      isolation: 'shadow-home',
      // The user's overrides over what the parity fields add (Gemini CLI's tools.exclude).
      settingsOverrides: { tools: { exclude: ['run_shell_command'] }, ui: { theme: 'x' } },
      systemPrompt: 'you are terse',
    });
    expect(v.acp).not.toHaveProperty('historyLimit');
  });

  it("puts the ACP agent under a shadow HOME in provider mode, as agy's", () => {
    const v = validateConfig({
      backend: { kind: 'acp', preset: 'gemini-cli' },
      provider: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'gpt-x' },
      policies: [policy.allowAll()],
    });
    expect(v.acp.isolation).toBe('shadow-home');
  });

  it('still rejects a bad field before any group is built', () => {
    expect(() => validateConfig({ turnTimeoutMs: -1 })).toThrow(ConfigError);
  });
});

// The start-up safety guard with agy 1.3.1's tools (docs/reference/stream-json.md#built-in-tools): as Python's
// guard, any built-in tool outside BuiltinTools.readOnly() left on needs a policy or a preToolCall hook.
describe('the safety guard and the built-in tool classes', () => {
  it('skipping permissions with sed_file, schedule or run_workflow enabled and no policies is a ConfigError', () => {
    for (const tool of ['sed_file', 'schedule', 'run_workflow']) {
      const config = {
        dangerouslySkipPermissions: true,
        policies: [],
        capabilities: { enabledTools: ['view_file', tool] },
      };
      // The guard's error, not the schema's: each name is a known built-in tool.
      expect(() => validateConfig(config), tool).toThrow(/without a safety policy/);
    }
  });

  it("sed_file, schedule or run_workflow left on with no policies is a ConfigError, as Python's guard refuses", () => {
    for (const tool of ['sed_file', 'schedule', 'run_workflow'])
      expect(
        () => validateConfig({ policies: [], capabilities: { enabledTools: ['view_file', tool] } }),
        tool,
      ).toThrow(/without a safety policy/);
    expect(() =>
      validateConfig({ policies: [], capabilities: { enabledTools: ['view_file'] } }),
    ).not.toThrow();
  });
});
