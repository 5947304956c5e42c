// The README's code, type-checked by `tsc --noEmit` so the docs cannot drift from the API.
// (Imports the sources; user code imports the same names from 'agy-sdk'.)
import { z } from 'zod';
import { Agent, every, hooks, policy, terminalApproval, tool } from '../src/index.js';
import { simulatorPath, writeScenario } from '../src/testing/index.js';

export async function quickStart(): Promise<void> {
  const agent = new Agent({ workspaces: [process.cwd()], idleTimeoutMs: 120_000 });
  try {
    const response = await agent.chat('Summarize the README in one line.');
    for await (const delta of response) process.stdout.write(delta);
    const result = await response.result();
    if (result.status !== 'success') console.error(result.status, result.errorMessage);
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
    mcpServers: { files: { command: 'npx', args: ['-y', 'some-mcp-server'], enabledTools: ['read'] } },
    policies: [
      policy.deny('run_command', { when: (a) => /rm -rf/.test(String(a.commandLine)) }),
      policy.allowAll(),
    ],
    hooks: [hooks.postTurn((text) => console.log('turn done:', text.length, 'chars'))],
    triggers: [every(60_000, (ctx) => ctx.send('Any new orders?'))],
    budget: { maxToolCalls: 20 },
  });
  await agent.steer('Prefer short answers.', { when: 'next-step' });
  await agent.close();
  new Agent({ policies: [policy.confirmRunCommand(terminalApproval())] });
}

export async function offline(): Promise<void> {
  const scenario = await writeScenario({
    turns: [
      {
        actions: [
          { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'a\nb' } },
          { text: 'Two files.' },
        ],
      },
    ],
  });
  const agent = new Agent({ agyPath: simulatorPath(), env: { AGY_SIM_SCENARIO: scenario } });
  await agent.close();
}
