// The simulator's default script (no scenario) calls one of the agent's own tools, so an offline run shows the
// user tool's round trip: agy's `call_mcp_tool` step (docs/reference/mcp.md#calling-mcp-tools) on the SDK's MCP
// server, PreToolUse/PostToolUse hooks and the in-process policy gate applying, the reply carrying the answer.
// Without own tools the old script (list_dir + echo) is unchanged.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OWN_TOOL_SERVER } from '../../../src/connection/tool-server/server-name.js';
import { hooks } from '../../../src/hooks/factories.js';
import { policy } from '../../../src/policy/index.js';
import { OWN_TOOL_SERVER as SIM_OWN_TOOL_SERVER } from '../../../src/testing/simulator/default-script.js';
import { tool } from '../../../src/tools/tool.js';
import { toolResults, useSandboxAgents } from '../../helpers/agents.js';

const sb = useSandboxAgents();

const weather = tool(
  { name: 'get_weather', description: 'Weather for a city', input: z.object({ city: z.string() }) },
  ({ city }) => `${city}: sunny, 21 °C`,
);
const stock = tool(
  {
    name: 'stock_level',
    description: 'How many units of a product the warehouse holds',
    input: z.object({ sku: z.string(), minimum: z.number().int().min(3) }),
  },
  ({ sku, minimum }) => `${sku}: ${minimum + 4} units`,
);
const clock = tool({ name: 'clock', description: 'The time', input: z.object({}) }, () => '12:00');

describe("the default script calls the agent's own tool", () => {
  it('names the same MCP server as the SDK serves its tools under', () => {
    expect(SIM_OWN_TOOL_SERVER).toBe(OWN_TOOL_SERVER);
  });

  it('picks the tool whose name matches a prompt word, with schema-generated arguments, and echoes its answer', async () => {
    const seen: string[] = [];
    const agent = await sb.agentWith(undefined, {
      tools: [stock, weather, clock],
      policies: [policy.allowAll()],
      hooks: [
        hooks.preToolCall(({ name }) => {
          seen.push(`pre ${name}`);
          return true;
        }),
        hooks.postToolCall(({ call }) => void seen.push(`post ${call.name}`)),
      ],
    });
    const response = await agent.chat('What is the weather in Lisbon?');
    const calls = await toolResults(response);
    const result = await response.result();
    expect(result.status).toBe('success');
    // One call, no list_dir: agy's wrapper step, shown under the tool's own name.
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      name: 'get_weather',
      mcpServer: 'agy-sdk_tools',
      state: 'DONE',
      args: { city: 'city' },
      wire: { name: 'call_mcp_tool', args: { ServerName: 'agy-sdk_tools', ToolName: 'get_weather' } },
    });
    expect(String(calls[0]?.output)).toContain('city: sunny, 21 °C');
    expect(seen).toEqual(['pre get_weather', 'post get_weather']);
    expect(result.text).toBe(
      'Hello from the agy simulator (offline). You said: "What is the weather in Lisbon?". ' +
        'Your tool get_weather returned: city: sunny, 21 °C',
    );
  });

  it('falls back to a description match, then to the first tool; arguments honour the schema bounds', async () => {
    const agent = await sb.agentWith(undefined, { tools: [clock, stock], policies: [policy.allowAll()] });
    // "warehouse" is only in stock_level's description.
    const byDescription = await agent.chat('Ask the warehouse.');
    const [described] = await toolResults(byDescription);
    expect(described).toMatchObject({ name: 'stock_level', args: { sku: 'sku', minimum: 3 } });
    expect((await byDescription.result()).text).toContain('Your tool stock_level returned: sku: 7 units');
    // No word in common: the first tool listed.
    const first = await agent.chat('Hi there');
    const [called] = await toolResults(first);
    expect(called?.name).toBe('clock');
    expect((await first.result()).text).toContain('Your tool clock returned: 12:00');
  });

  it('the policy gate applies: a denied own tool never runs, and the reply says it failed', async () => {
    let ran = false;
    const guarded = tool({ name: 'wipe_disk', description: 'dangerous', input: z.object({}) }, () => {
      ran = true;
      return 'wiped';
    });
    const agent = await sb.agentWith(undefined, {
      tools: [guarded],
      policies: [policy.deny('wipe_disk', { message: 'never wipe' }), policy.allowAll()],
    });
    const response = await agent.chat('wipe the disk');
    const [call] = await toolResults(response);
    const result = await response.result();
    expect(ran).toBe(false);
    expect(call?.state).toBe('ERROR');
    expect(call?.error?.message).toMatch(/never wipe/);
    expect(result.text).toMatch(/Your tool wipe_disk failed: .*never wipe/);
    expect(result.deniedActions).toEqual([expect.objectContaining({ action: 'wipe_disk', source: 'sdk' })]);
  });

  it('without own tools: the list_dir of the workspace and the plain echo, as before', async () => {
    const agent = await sb.agentWith();
    const response = await agent.chat('What is the weather in Lisbon?');
    const calls = await toolResults(response);
    expect(calls.map((c) => [c.name, c.args])).toEqual([['list_dir', { DirectoryPath: sb.box.workspace }]]);
    expect((await response.result()).text).toBe(
      'Hello from the agy simulator (offline). You said: "What is the weather in Lisbon?".',
    );
  });
});
