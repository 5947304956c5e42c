/**
 * The config schema is strict: an unknown key is a ConfigError naming it, with the nearest known field and, for
 * the Python SDK's spelling, the TypeScript one (issue 23; the Python names: docs/reference/design-sources.md#seed-003-the-python-sdk).
 */
import { describe, expect, it } from 'vitest';
import { Agent, ConfigError } from '../../src/index.js';

function configError(config: unknown): ConfigError {
  try {
    new Agent(config as never);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('strict AgentConfig', () => {
  it('a typo is refused with the nearest field: workspace → workspaces', () => {
    const err = configError({ workspace: '/tmp' });
    expect(err.field).toBe('workspace');
    expect(err.message).toContain('did you mean workspaces?');
  });

  it("the Python SDK's spellings name the TypeScript field", () => {
    for (const [python, ts] of [
      ['system_instructions', 'systemInstructions'],
      ['mcp_servers', 'mcpServers'],
      ['response_schema', 'responseSchema'],
      ['conversation_id', 'conversationId'],
      ['skills_paths', 'skillsPaths'],
      ['api_key', 'apiKey'],
      ['save_dir', 'dataDir'],
    ] as const) {
      const err = configError({ [python]: 'x' });
      expect(err.field).toBe(python);
      expect(err.message).toContain(`Python SDK's spelling`);
      expect(err.message).toContain(ts);
    }
    expect(configError({ gemini_config: {} }).message).toContain('apiKey, vertex, project, location');
  });

  it('nested objects are strict too, with the path of the unknown key', () => {
    const budget = configError({ budget: { maxToolCall: 3 } });
    expect(budget.field).toBe('budget.maxToolCall');
    expect(budget.message).toContain('did you mean maxToolCalls?');
    const caps = configError({ capabilities: { disabled_tools: ['run_command'] } });
    expect(caps.field).toBe('capabilities.disabled_tools');
    expect(caps.message).toContain('disabledTools');
    expect(configError({ telemetry: { enable: true } }).field).toBe('telemetry.enable');
    expect(configError({ backend: { kind: 'agy', preset: 'gemini-cli' } }).field).toBe('backend.preset');
  });

  it('an unknown key far from every field says so without a guess', () => {
    const err = configError({ zzzzzzzzzzzz: 1 });
    expect(err.message).toBe('zzzzzzzzzzzz: is not a known field');
  });

  it('capabilities: the lists are mutually exclusive and name known built-in tools', () => {
    expect(
      configError({ capabilities: { enabledTools: ['view_file'], disabledTools: ['run_command'] } }).message,
    ).toContain('mutually exclusive');
    const typo = configError({ capabilities: { disabledTools: ['run_comand'] } });
    expect(typo.field).toBe('capabilities.disabledTools[0]');
    expect(typo.message).toContain("did you mean 'run_command'?");
  });

  it('a secret is never echoed in a message', () => {
    const err = configError({ apiKey: 12345678 });
    expect(err.field).toBe('apiKey');
    expect(err.message).not.toContain('12345678');
  });

  it('effort takes the ThinkingLevel names, minimal included, and xhigh/max', () => {
    for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const)
      expect(() => new Agent({ effort })).not.toThrow();
    expect(configError({ effort: 'ultra' }).message).toContain('minimal, low, medium, high, xhigh, max');
  });
});
