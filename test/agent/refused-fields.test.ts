/**
 * Each Python-parity field a backend cannot honour is refused by name with an UnsupportedError naming the field
 * and the backend (each field's `python` rows in src/connection/config-fields.ts, generated into docs/backends.md).
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedError } from '../../src/connection/index.js';
import { Agent, ConfigError } from '../../src/index.js';

const ACP = { kind: 'acp', preset: 'gemini-cli' } as const;

function refusal(config: unknown): UnsupportedError {
  try {
    new Agent(config as never);
  } catch (err) {
    expect(err).toBeInstanceOf(UnsupportedError);
    return err as UnsupportedError;
  }
  throw new Error('expected an UnsupportedError');
}

describe('refused by name, per backend', () => {
  it('agy: vertex, project, location', () => {
    for (const [field, value] of [
      ['vertex', true],
      ['project', 'my-project'],
      ['location', 'europe-west4'],
    ] as const) {
      const err = refusal({ [field]: value });
      expect(err.feature).toBe(field);
      expect(err.message).toContain('agy (the default backend)');
    }
    // Not asking for Vertex is what agy does anyway.
    expect(() => new Agent({ vertex: false })).not.toThrow();
  });

  it("agy: systemInstructions { mode: 'replace' }; appended instructions still work", () => {
    const err = refusal({ systemInstructions: { mode: 'replace', text: 'You are terse.' } });
    expect(err.feature).toBe('systemInstructions');
    expect(err.message).toContain('cannot replace its system prompt');
    expect(() => new Agent({ systemInstructions: { identity: 'I am terse.', sections: [] } })).not.toThrow();
  });

  it('capabilities.compactionThreshold on both backends; enableSubagents: false on ACP', () => {
    expect(refusal({ capabilities: { compactionThreshold: 50_000 } }).feature).toBe(
      'capabilities.compactionThreshold',
    );
    const acp = refusal({ backend: ACP, capabilities: { compactionThreshold: 50_000 } });
    expect(acp.message).toContain('the ACP backend');
    expect(refusal({ backend: ACP, capabilities: { enableSubagents: false } }).feature).toBe(
      'capabilities.enableSubagents',
    );
    expect(() => new Agent({ capabilities: { enableSubagents: false } })).not.toThrow();
  });

  it("capabilities.agentBehavior (Python's AgentBehavior): 'autonomous' runs; 'minimal' and 'interactive' are refused by name", () => {
    const minimal = refusal({ capabilities: { agentBehavior: 'minimal' } });
    expect(minimal.feature).toBe('capabilities.agentBehavior');
    expect(minimal.message).toContain('prunes its system prompt');
    expect(refusal({ backend: ACP, capabilities: { agentBehavior: 'minimal' } }).message).toContain(
      'the ACP backend',
    );
    expect(refusal({ capabilities: { agentBehavior: 'interactive' } }).message).toContain('ask the user');
    expect(() => new Agent({ capabilities: { agentBehavior: 'autonomous' } })).not.toThrow();
  });

  it("Python's per-subagent model and subagent-only tools are refused by name on agy (agent.md cannot say them)", () => {
    const sub = { name: 'reviewer', description: 'Reviews diffs', instructions: 'Review.' };
    const model = refusal({ subagents: [{ ...sub, model: 'gemini-3-flash' } as typeof sub] });
    expect(model.feature).toBe('subagents[0].model');
    expect(model.message).toContain('no per-subagent model');
    expect(
      refusal({ subagents: [sub, { ...sub, capabilities: { enabledTools: ['view_file'] } } as typeof sub] })
        .feature,
    ).toBe('subagents[1].capabilities');
    expect(refusal({ subagents: [{ ...sub, tools: ['echo'] } as typeof sub] }).feature).toBe(
      'subagents[0].tools',
    );
    expect(() => new Agent({ subagents: [sub] })).not.toThrow();
  });

  it('ACP: replace-mode instructions only on the gemini-cli preset; appended ones are a ConfigError', () => {
    expect(
      () => new Agent({ backend: ACP, systemInstructions: { mode: 'replace', text: 'x' } }),
    ).not.toThrow();
    const other = refusal({
      backend: { kind: 'acp', preset: 'agy-acp' },
      systemInstructions: { mode: 'replace', text: 'x' },
    });
    expect(other.message).toContain("preset 'gemini-cli'");
    expect(() => new Agent({ backend: ACP, systemInstructions: 'be terse' })).toThrow(ConfigError);
  });

  it('ACP honours vertex, project and location', () => {
    expect(
      () => new Agent({ backend: ACP, vertex: true, project: 'p', location: 'us-central1' }),
    ).not.toThrow();
  });

  it('apiKey: not with provider mode, not with isolation none on agy, not twice', () => {
    const provider = {
      kind: 'openai-chat',
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: 'sk-x',
      model: 'gpt-x',
    } as const;
    expect(() => new Agent({ apiKey: 'k', provider })).toThrow(/apiKey: provider mode/);
    expect(() => new Agent({ apiKey: 'k', isolation: 'none' })).toThrow(/isolation: apiKey needs/);
    expect(() => new Agent({ apiKey: 'k', env: { GEMINI_API_KEY: 'j' } })).toThrow(/env.GEMINI_API_KEY/);
    expect(() => new Agent({ apiKey: 'k' })).not.toThrow();
  });
});
