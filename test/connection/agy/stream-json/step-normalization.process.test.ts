// Tool calls show under the tool's own name: agy wraps every MCP call in `call_mcp_tool` (docs/reference/mcp.md#calling-mcp-tools), and serves
// our tools under provider-safe names (src/tools/names.ts); toolCalls() maps both back.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { policy } from '../../../../src/policy/index.js';
import { tool } from '../../../../src/tools/tool.js';
import { collect, useSandboxAgents } from '../../../helpers/agents.js';

const sb = useSandboxAgents();

describe('own tools under their own names', () => {
  it('a tool served as lookup_order shows as lookup.order on agy-sdk_tools, in toolCalls() and the result', async () => {
    const lookup = tool(
      { name: 'lookup.order', description: 'Finds an order', input: z.object({ id: z.number() }) },
      ({ id }) => `order ${id}: shipped`,
    );
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_tools', tool: 'lookup_order', arguments: { id: 7 } } },
              { text: 'done' },
            ],
          },
        ],
      },
      { tools: [lookup], policies: [policy.allowAll()] },
    );
    const r = await agent.chat('find order 7');
    const calls = await collect(r.toolCalls());
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      name: 'lookup.order',
      mcpServer: 'agy-sdk_tools',
      args: { id: 7 },
      wire: { name: 'call_mcp_tool', args: { ServerName: 'agy-sdk_tools', ToolName: 'lookup_order' } },
    });
    const result = await r.result();
    expect(result.status).toBe('success');
    expect(result.toolCalls.map((c) => c.name)).toEqual(['lookup.order']);
    expect(String(result.toolCalls[0]?.output)).toContain('order 7: shipped');
  });
});
