// The name each tool is served under is visible (`agent.toolNames`, `agent.servedName`), and a scenario that
// calls that name reaches that tool, even when a clash gave it a hash suffix.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { ConfigError } from '../../../src/errors.js';
import { policy } from '../../../src/policy/index.js';
import { tool } from '../../../src/tools/tool.js';
import { toolResults, useSandboxAgents } from '../../helpers/agents.js';

const sb = useSandboxAgents();

function recorder(name: string, calls: string[]) {
  return tool({ name, description: `records ${name}`, input: z.object({}) }, () => {
    calls.push(name);
    return `ran ${name}`;
  });
}

describe('served tool names', () => {
  it('exposes the served names, with a hash suffix for the tool that lost a clash', () => {
    const calls: string[] = [];
    const exact = recorder('lookup_order', calls);
    const dotted = recorder('lookup.order', calls);
    const agent = new Agent({ tools: [dotted, exact], policies: [policy.allowAll()] });
    expect(agent.toolServerName).toBe('agy-sdk_tools');
    // The already-safe name keeps it; the one that normalizes onto it gets `_<8 hex>`.
    expect(agent.servedName(exact)).toBe('lookup_order');
    expect(agent.servedName(dotted)).toMatch(/^lookup_order_[0-9a-f]{8}$/);
    expect(agent.servedName('lookup.order')).toBe(agent.servedName(dotted));
    expect([...agent.toolNames]).toEqual([
      ['lookup.order', agent.servedName(dotted)],
      ['lookup_order', 'lookup_order'],
    ]);
    expect(() => agent.servedName(recorder('other', calls))).toThrow(ConfigError);
    expect(() => agent.servedName('lookup_order_x')).toThrow(ConfigError);
  });

  it('a name changed for dots or accents gets no suffix; only an over-long, emptied or clashing one does (README, docs/guides/tools.md)', () => {
    const calls: string[] = [];
    const long = 'x'.repeat(70);
    const agent = new Agent({
      tools: ['files.read', 'café', 'a/b c', long, '読む'].map((n) => recorder(n, calls)),
      policies: [policy.allowAll()],
    });
    expect(agent.servedName('files.read')).toBe('files_read');
    expect(agent.servedName('café')).toBe('cafe');
    expect(agent.servedName('a/b c')).toBe('a_b_c');
    expect(agent.servedName(long)).toMatch(/^x+_[0-9a-f]{8}$/);
    expect(agent.servedName(long)).toHaveLength(64);
    expect(agent.servedName('読む')).toMatch(/^tool_[0-9a-f]{8}$/);
  });

  it('a scenario calling the served name reaches that tool, not the one it clashed with', async () => {
    const calls: string[] = [];
    const exact = recorder('lookup_order', calls);
    const dotted = recorder('lookup.order', calls);
    const config = { tools: [exact, dotted], policies: [policy.allowAll()] };
    const names = new Agent(config);
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              {
                mcpTool: { server: names.toolServerName, tool: names.servedName(dotted), expectError: false },
              },
              {
                mcpTool: { server: names.toolServerName, tool: names.servedName(exact), expectError: false },
              },
              { text: 'done' },
            ],
          },
        ],
      },
      config,
    );
    const r = await agent.chat('look up');
    const results = await toolResults(r);
    // toolCalls() show each call under the tool's own name; agy's wrapper keeps the served one.
    expect(results.map((c) => [c.name, c.mcpServer, c.wire?.args.ToolName])).toEqual([
      ['lookup.order', names.toolServerName, names.servedName(dotted)],
      ['lookup_order', names.toolServerName, 'lookup_order'],
    ]);
    expect(calls).toEqual(['lookup.order', 'lookup_order']);
    expect((await r.result()).status).toBe('success');
    expect([...agent.toolNames]).toEqual([...names.toolNames]);
  });
});
