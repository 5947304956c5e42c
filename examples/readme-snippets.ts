// The README's code blocks, type-checked by `tsc --noEmit` so the docs cannot drift from the API (the README
// blocks themselves are run offline by `test/package/readme.process.test.ts`). Imports the sources; user code
// imports the same names from 'agy-sdk'.
import { z } from 'zod';
import { Agent, every, hooks, policy, terminalApproval, tool } from '../src/index.js';
import { simulatorPath, writeScenario } from '../src/testing/index.js';

export async function quickStart(): Promise<void> {
  const agent = new Agent({ workspaces: [process.cwd()], idleTimeoutMs: 120_000 });
  try {
    const response = await agent.chat('Summarize the README in one line.');
    for await (const delta of response) process.stdout.write(delta);
    const result = await response.result();
    console.log(`\n${result.status}`);
    if (result.status !== 'success') console.error(result.errorMessage);
  } finally {
    await agent.close();
  }
}

export async function tour(): Promise<void> {
  const weather = tool(
    { name: 'get_weather', description: 'Weather for a city', input: z.object({ city: z.string() }) },
    ({ city }) => `${city}: sunny, 21 °C`,
  );
  const agent = new Agent({
    workspaces: [process.cwd()],
    tools: [weather],
    policies: [policy.deny('run_command'), policy.allowAll()],
    hooks: [hooks.postToolCall(({ call }) => console.error(`tool done: ${call.name}`))],
    budget: { maxToolCalls: 10 },
    idleTimeoutMs: 120_000,
  });
  try {
    const response = await agent.chat('What is the weather in Lisbon?');
    for await (const delta of response) process.stdout.write(delta);
    for await (const call of response.toolCalls()) console.error(`called ${call.name}`);
    const result = await response.result();
    console.error(`${result.usage?.totalTokens ?? 'unknown'} tokens in ${result.durationMs} ms`);
    console.log(`\n${result.status}`);
  } finally {
    await agent.close();
  }
}

export async function toolsAndPolicies(): Promise<void> {
  const lookup = tool(
    { name: 'lookup_order', description: 'Find an order', input: z.object({ id: z.string() }) },
    async ({ id }, ctx) => ({ id, status: 'shipped', seenBefore: ctx.getState(id) ?? false }),
  );
  const agent = new Agent({
    tools: [lookup],
    mcpServers: { files: { command: 'node', args: ['my-mcp-server.js'], enabledTools: ['read'] } },
    policies: [
      policy.deny('run_command', { when: (a) => /rm -rf/.test(String(a.commandLine)) }),
      policy.allowAll(),
    ],
    hooks: [hooks.postTurn((text) => console.log('turn done:', text.length, 'chars'))],
    triggers: [every('60s', (ctx) => ctx.send('Any new orders?'))],
    budget: { maxToolCalls: 20 },
  });
  try {
    await agent.steer('Prefer short answers.', { when: 'next-step' });
    const result = await (await agent.chat('Where is order 42?')).result();
    console.log(result.status);
  } finally {
    await agent.close();
  }
  new Agent({ policies: [policy.confirmRunCommand(terminalApproval())] });
}

export async function offline(): Promise<void> {
  const lookup = tool(
    { name: 'lookup_order', description: 'Find an order', input: z.object({ id: z.string() }) },
    ({ id }) => `order ${id}: shipped`,
  );
  const scenario = await writeScenario({
    turns: [
      {
        actions: [
          { tool: { name: 'view_file', parameters: { AbsolutePath: '/orders.csv' }, output: '42,shipped' } },
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
    agyPath: simulatorPath(),
    env: { AGY_SIM_SCENARIO: scenario },
    tools: [lookup],
    policies: [policy.allowAll()],
  });
  try {
    console.log(agent.toolServerName, agent.servedName(lookup));
    const response = await agent.chat('Where is order 42?');
    for await (const call of response.toolResults()) console.log(call.name, call.state, call.args);
    const result = await response.result();
    console.log(result.text, result.status);
  } finally {
    await agent.close();
  }
}

export async function structuredOutput(): Promise<void> {
  const Analysis = z.object({ summary: z.string(), risk: z.enum(['low', 'high']) });
  const scenario = await writeScenario({
    turns: [{ actions: [{ text: 'Done.' }], end: { structuredOutput: { summary: 'tidy', risk: 'low' } } }],
  });
  const agent = new Agent({
    agyPath: simulatorPath(),
    env: { AGY_SIM_SCENARIO: scenario },
    responseSchema: Analysis,
  });
  try {
    const analysis = await (await agent.chat('Assess this repository.')).structuredOutput();
    // Typed by the schema under strict: no cast, no undefined check (TS18046 before).
    const risk: 'low' | 'high' = analysis.risk;
    console.log(`risk: ${risk}`);
  } finally {
    await agent.close();
  }
}
