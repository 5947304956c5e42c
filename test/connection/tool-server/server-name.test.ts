// The MCP server name `tools` belongs to the agent's own tool server: refused in the constructor, not at start.
import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { ConfigError } from '../../../src/errors.js';

describe('reserved MCP server name', () => {
  it('new Agent({ mcpServers: { tools } }) throws ConfigError naming mcpServers.tools', () => {
    let caught: unknown;
    try {
      new Agent({ mcpServers: { tools: { command: 'node', args: ['server.js'] } } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).field).toBe('mcpServers.tools');
    expect((caught as ConfigError).message).toMatch(/reserved for the agent's own tools/);
  });

  it('other names are fine, and a non-object mcpServers is refused', () => {
    expect(
      () => new Agent({ mcpServers: { mytools: { command: 'node', args: ['server.js'] } } }),
    ).not.toThrow();
    expect(() => new Agent({ mcpServers: 'tools' as never })).toThrow(ConfigError);
  });
});
