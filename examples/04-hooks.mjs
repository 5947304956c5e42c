// Hooks: your code around the agent's lifecycle. agy takes hooks as shell commands in a hooks.json; the SDK
// writes that file into a private session plugin and relays each call to these in-process functions over a
// token-guarded 127.0.0.1 listener. docs/guides/hooks-and-policies.md has the table of where each runs.
// Run after `npm run build`: node examples/04-hooks.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent, hooks, policy } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const scenario = await writeScenario({
  turns: [
    {
      actions: [
        {
          tool: { name: 'run_command', parameters: { CommandLine: 'ls -la', Cwd: '/tmp' }, output: 'a.txt' },
        },
        {
          tool: { name: 'run_command', parameters: { CommandLine: 'curl https://example.com' }, output: '' },
        },
        { text: 'Listed the directory; the download was blocked.' },
      ],
    },
  ],
});

const log = [];
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  policies: [policy.allowAll()], // the default policy denies run_command; here the hook decides instead
  hooks: [
    hooks.preTurn((prompt) => {
      log.push(`preTurn: ${prompt}`);
      return true; // false (or { allow: false, message }) would refuse the prompt
    }),
    // A decide hook: deny network commands, with a message the model sees.
    hooks.preToolCall((call) => {
      const command = String(call.normalizedArgs.commandLine ?? '');
      log.push(`preToolCall: ${call.name} ${command}`);
      return /\bcurl\b/.test(command) ? { allow: false, message: 'No network access.' } : { allow: true };
    }),
    hooks.postToolCall((done) => {
      log.push(`postToolCall: ${done.call.name} ${done.error ? 'failed' : 'ok'}`);
    }),
    hooks.postTurn((text) => {
      log.push(`postTurn: ${text.length} chars`);
    }),
  ],
});
try {
  const result = await (await agent.chat('List the files, then download example.com')).result();
  for (const line of log) console.log(`  ${line}`);
  // A denied tool call is reported, and a turn with a denial never counts as success (fail closed).
  for (const d of result.deniedActions) console.log(`  denied: ${d.action} by ${d.source}: ${d.reason}`);
  console.log(`status: ${result.status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
