/** AgentConfig is validated once, by one zod schema whose issue paths become ConfigError.field. */
import { describe, expect, it } from 'vitest';
import { Agent, BuiltinTools, ConfigError } from '../../src/index.js';

function fieldOf(config: unknown): string | undefined {
  try {
    new Agent(config as never);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).field;
  }
  return undefined;
}

describe('AgentConfig schema', () => {
  it('names the field of the first issue, nested paths included', () => {
    expect(fieldOf({ budget: { maxToolCalls: 1.5 } })).toBe('budget.maxToolCalls');
    expect(fieldOf({ budget: { scope: 'forever' } })).toBe('budget.scope');
    expect(fieldOf({ env: { FOO: 3 } })).toBe('env.FOO');
    expect(fieldOf({ workspaces: ['/tmp', 7] })).toBe('workspaces[1]');
    expect(fieldOf({ effort: 'ultra' })).toBe('effort');
    expect(fieldOf({ reminder: 42 })).toBe('reminder');
    expect(fieldOf({ extraArgs: ['--x', 1] })).toBe('extraArgs[1]');
    expect(fieldOf({ idleTimeoutMs: -1 })).toBe('idleTimeoutMs');
    expect(fieldOf({ isolation: 'sandbox' })).toBe('isolation');
    expect(fieldOf({ connection: 'not a function' })).toBe('connection');
    expect(fieldOf(null)).toBe('config');
  });

  it("agy's turn flags: effort up to xhigh/max, mode plan|accept-edits, sandbox a boolean", () => {
    for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'])
      expect(fieldOf({ effort })).toBeUndefined();
    expect(fieldOf({ mode: 'plan' })).toBeUndefined();
    expect(fieldOf({ mode: 'accept-edits' })).toBeUndefined();
    expect(fieldOf({ sandbox: true })).toBeUndefined();
    expect(fieldOf({ mode: 'yolo' })).toBe('mode');
    expect(fieldOf({ mode: 'acceptEdits' })).toBe('mode');
    expect(fieldOf({ sandbox: 'yes' })).toBe('sandbox');
  });

  it('bad tools, hooks and systemInstructions entries are a ConfigError naming the entry, not a TypeError', () => {
    expect(fieldOf({ tools: [5] })).toBe('tools[0]');
    expect(fieldOf({ tools: [{ name: 'x' }] })).toBe('tools[0]');
    expect(fieldOf({ tools: 'all' })).toBe('tools');
    expect(fieldOf({ hooks: [null] })).toBe('hooks[0]');
    expect(fieldOf({ hooks: [{ kind: 'onWhatever', run: () => {} }] })).toBe('hooks[0]');
    expect(fieldOf({ systemInstructions: 5 })).toBe('systemInstructions');
    expect(fieldOf({ systemInstructions: { sections: [{ title: 1 }] } })).toBe('systemInstructions');
    expect(() => new Agent({ tools: [5 as never] })).toThrow(/tools\[0\]: must be a tool built by tool/);
    expect(fieldOf({ systemInstructions: 'Be brief.', logger: undefined })).toBeUndefined();
    expect(
      fieldOf({ systemInstructions: { identity: 'A', sections: [{ title: 't', content: 'c' }] } }),
    ).toBeUndefined();
  });

  it('says what was wrong and what it got', () => {
    expect(() => new Agent({ maxLineBytes: 0 })).toThrow('maxLineBytes: must be a positive number, got 0');
    expect(() => new Agent({ historyLimit: -1 })).toThrow(
      'historyLimit: must be a number >= 0 (0: no limit), got -1',
    );
  });

  it('then checks what needs several fields: isolation-only options, the write guard', () => {
    expect(fieldOf({ workspaces: ['/tmp'], settingsOverrides: {} })).toBe('settingsOverrides');
    expect(fieldOf({ workspaces: ['/tmp'], dangerouslySkipPermissions: true, policies: [] })).toBe(
      'policies',
    );
  });

  it("the write guard counts agy's accept-edits mode and sandbox: agy then skips its own check", () => {
    // Read-only capabilities, so only the mode or the sandbox makes the setup write-capable.
    const readOnly = { capabilities: { enabledTools: BuiltinTools.readOnly() } };
    for (const extra of [{ mode: 'accept-edits' }, { sandbox: true }])
      expect(() => new Agent({ workspaces: ['/tmp'], policies: [], ...readOnly, ...extra } as never)).toThrow(
        /^policies: write/,
      );
    expect(() => new Agent({ workspaces: ['/tmp'], policies: [], ...readOnly, mode: 'plan' })).not.toThrow();
  });

  it('a valid config passes, 0 turning the watchdogs off', () => {
    expect(() => new Agent({ workspaces: ['/tmp'], idleTimeoutMs: 0, turnTimeoutMs: 0 })).not.toThrow();
  });
});
