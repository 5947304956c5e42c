// The agy-sdk demo: a short agent session. Offline by default (against the bundled agy simulator); with
// AGY_PATH set, or agy on PATH, it runs against the real CLI.
import { Agent, resolveAgyBinary } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';

let agyPath;
try {
  agyPath = resolveAgyBinary({ env: process.env });
  console.log(`Using agy at ${agyPath}.`);
} catch {
  agyPath = simulatorPath();
  console.log('No agy found (AGY_PATH unset, none on PATH): running offline against the agy simulator.');
}

const agent = new Agent({
  agyPath,
  workspaces: [process.cwd()],
  systemInstructions: 'You are a concise assistant for this repository.',
  idleTimeoutMs: 120_000,
});
try {
  await agent.start();
  console.log(`agy ${agent.agyVersion ?? '(unknown version)'} · conversation ${agent.conversationId}`);

  const response = await agent.chat('What files are in this directory? Answer in one sentence.');
  for await (const call of response.toolCalls())
    console.log(`  → tool ${call.name} ${JSON.stringify(call.args)}`);
  process.stdout.write('agent: ');
  for await (const delta of response) process.stdout.write(delta);
  process.stdout.write('\n');

  const result = await response.result();
  const usage = result.usage ? `${result.usage.totalTokens} tokens` : 'usage unknown';
  console.log(`turn: ${result.status} · ${usage} · ${result.durationMs} ms`);
  if (result.status !== 'success') process.exitCode = 1;
} finally {
  await agent.close();
}
