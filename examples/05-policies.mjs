// Policies: declarative allow/deny rules for tool calls, enforced in-process before a call runs (agy's own
// permission prompts cannot be answered headlessly). The first matching policy wins, specific before `*`.
// Run after `npm run build`: node examples/05-policies.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent, policy } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const scenario = await writeScenario({
  turns: [
    {
      actions: [
        { tool: { name: 'view_file', parameters: { AbsolutePath: '/repo/README.md' }, output: '# repo' } },
        { tool: { name: 'run_command', parameters: { CommandLine: 'rm -rf /' }, output: '' } },
        { text: 'Read the README; the cleanup command was refused.' },
      ],
    },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  policies: [
    // Deny destructive commands, with a reason the model sees; allow everything else.
    policy.deny('run_command', {
      // `when` sees the call's arguments with camelCase keys (agy sends `CommandLine`).
      when: (args) => /rm -rf/.test(String(args.commandLine)),
      message: 'Destructive commands are not allowed.',
      name: 'no-rm-rf',
    }),
    policy.allowAll(),
  ],
  // Without `policies` the default is policy.confirmRunCommand(): run_command denied unless a handler approves.
});
try {
  const response = await agent.chat('Read the README, then clean up.');
  for await (const call of response.toolResults())
    console.log(`  ${call.denied ? '✗' : '✓'} ${call.name} ${JSON.stringify(call.args)}`);
  const result = await response.result();
  for (const d of result.deniedActions) console.log(`  denied ${d.action}: ${d.reason}`);
  // Any denial ends the turn `denied`: the agent did not do everything it was asked to.
  console.log(`status: ${result.status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
