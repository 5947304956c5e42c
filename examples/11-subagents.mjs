// Subagents: define custom agents (written into the session plugin as .agents/agents/<name>/agent.md) that
// agy's model can delegate to. A subagent's steps arrive in the same stream, marked with `step.subagent`;
// they never add to the turn's text or usage, which `result.subagentUsage` reports per subagent.
// Run after `npm run build`: node examples/11-subagents.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const scenario = await writeScenario({
  turns: [
    {
      actions: [
        {
          subagent: {
            // The reference's shape, where the subagent's steps stream on the parent's stdout (agy 1.3.1 itself
            // writes only the subagent step and the parent's answer).
            stream: true,
            name: 'researcher',
            prompt: 'Find where the CHANGELOG is.',
            actions: [
              {
                tool: { name: 'find_by_name', parameters: { Pattern: 'CHANGELOG*' }, output: 'CHANGELOG.md' },
              },
              { text: 'It is CHANGELOG.md at the root.' },
            ],
          },
        },
        { text: 'The researcher found it: CHANGELOG.md.' },
      ],
    },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  subagents: [
    {
      name: 'researcher',
      description: 'Finds files and facts in the repository; use it for lookups.',
      instructions: 'Search the workspace and answer in one sentence with the path you found.',
    },
  ],
});
try {
  const response = await agent.chat('Where is the changelog? Ask the researcher.');
  // steps() yields every update of every step (ACTIVE, then DONE); print each once, when it starts.
  for await (const step of response.steps()) {
    if (step.state !== 'ACTIVE') continue;
    if (step.type === 'subagent')
      console.log(`  delegating to: ${step.subagents?.map((s) => s.typeName).join(', ')}`);
    else if (step.subagent && step.tool) console.log(`  [${step.subagent.typeName}] tool ${step.tool.name}`);
  }
  const result = await response.result();
  console.log(`agent: ${result.text}`);
  for (const [id, usage] of Object.entries(result.subagentUsage ?? {}))
    console.log(`  subagent ${id.slice(0, 8)}… used ${usage.totalTokens ?? '?'} tokens`);
  console.log(`status: ${result.status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
