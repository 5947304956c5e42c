// Custom tools: a TypeScript/JavaScript function the model can call. agy takes tools over MCP, so the SDK
// serves your tools on a private, token-guarded 127.0.0.1 listener for the session.
// Offline, a scenario makes the simulated model call the tool (real agy decides by itself).
// Run after `npm run build`: node examples/03-custom-tools.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent, policy, tool } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod';

const orders = new Map([
  ['42', 'shipped'],
  ['43', 'packing'],
]);
const lookupOrder = tool(
  {
    name: 'lookup_order',
    description: 'Find the status of an order by id',
    input: z.object({ id: z.string().describe('The order id') }),
  },
  // Bad input never reaches the handler: the SDK validates it with the zod schema and tells the model.
  async ({ id }) => ({ id, status: orders.get(id) ?? 'unknown' }),
);

// The scenario's model calls our tool by its served name on the SDK's MCP server (both printed below).
const scenario = await writeScenario({
  turns: [
    {
      actions: [
        {
          mcpTool: {
            server: 'agy-sdk_tools',
            tool: 'lookup_order',
            arguments: { id: '42' },
            expectError: false,
          },
        },
        { text: 'Order 42 has shipped.' },
      ],
    },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  tools: [lookupOrder],
  policies: [policy.allow('lookup_order')],
});
try {
  console.log(`served as ${agent.toolServerName}/${agent.servedName(lookupOrder)}`);
  const response = await agent.chat('Where is order 42? Use lookup_order.');
  for await (const call of response.toolResults())
    console.log(`  ✓ ${call.name} → ${JSON.stringify(call.output ?? null)}`);
  const result = await response.result();
  console.log(`agent: ${result.text}`);
  console.log(`status: ${result.status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
