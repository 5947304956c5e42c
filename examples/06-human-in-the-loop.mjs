// Human in the loop: an `askUser` policy asks a handler before a tool call runs. Here the handler answers
// programmatically (approve `ls`, refuse anything else); in a terminal app use the built-in prompt instead:
//
//   import { terminalApproval } from 'agy-sdk';
//   policies: [policy.confirmRunCommand(terminalApproval()), policy.allowAll()]
//
// terminalApproval() asks "Allow run_command …? [y/N]" on the TTY and denies when there is no TTY. Either way
// the answer has a deadline (`askUserTimeoutMs`, default 5 minutes): no answer, or a handler that throws,
// denies the call (fail closed).
// Run after `npm run build`: node examples/06-human-in-the-loop.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent, policy } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const scenario = await writeScenario({
  turns: [
    {
      actions: [
        { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'README.md' } },
        { tool: { name: 'run_command', parameters: { CommandLine: 'git push --force' }, output: '' } },
        { text: 'Listed the files; the push was not approved.' },
      ],
    },
  ],
});

/** Stands in for a human: the call, the policy asking, and why. Returns true, false or { allow, message }. */
async function reviewer(call, ctx) {
  const command = String(call.normalizedArgs.commandLine);
  const allow = command === 'ls';
  console.log(`  ? ${ctx.policy} asks about \`${command}\` → ${allow ? 'yes' : 'no'}`);
  return allow ? true : { allow: false, message: 'The reviewer refused this command.' };
}

const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  policies: [
    policy.askUser('run_command', { handler: reviewer, message: 'Commands need review' }),
    policy.allowAll(),
  ],
  askUserTimeoutMs: 60_000,
});
try {
  const result = await (await agent.chat('List the files, then force-push.')).result();
  console.log(`agent: ${result.text}`);
  console.log(`denied: ${result.deniedActions.map((d) => d.action).join(', ')}`);
  console.log(`status: ${result.status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
