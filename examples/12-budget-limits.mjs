// Budget limits: cap model calls, tool calls or tokens per turn (or per conversation, `scope`). Crossing a
// limit interrupts the turn, which ends `budget_exceeded` with `result.budget` naming the limit; the
// conversation stays usable.
// Run after `npm run build`: node examples/12-budget-limits.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent, policy } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const view = (n) => ({
  tool: { name: 'view_file', parameters: { AbsolutePath: `/repo/file${n}.ts` }, output: '…' },
});
const scenario = await writeScenario({
  turns: [
    // A runaway turn: many tool calls, with a pause so the interrupt lands mid-turn.
    {
      actions: [
        view(1),
        view(2),
        view(3),
        { sleep: 200 },
        view(4),
        view(5),
        view(6),
        { text: 'Read them all.' },
      ],
    },
    { actions: [{ text: 'Short answer.' }] },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  policies: [policy.allowAll()],
  budget: { maxToolCalls: 2, maxTotalTokens: 200_000 },
});
try {
  const first = await (await agent.chat('Read every file in the repository.')).result();
  console.log(
    `first turn: ${first.status} (limit: ${first.budget}); ${first.toolCalls.length} tool calls seen`,
  );
  const second = await (await agent.chat('Now just say something short.')).result();
  console.log(`second turn: ${second.status}`);
  console.log(`status: ${first.status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
