// The agy-sdk demo: a short agent session. Offline by default (against the bundled agy simulator); with
// AGY_PATH set, or agy on PATH, it runs against the real CLI. The agent has one tool of its own; offline, the
// simulator's default script calls it (real agy decides by itself), so either way the run shows its round trip.
import { readdirSync } from 'node:fs';
import { Agent, tool } from 'agy-sdk';
import { resolveAgyBinary } from 'agy-sdk/connection';
import { simulatorPath } from 'agy-sdk/testing';
import { z } from 'zod';

let agyPath;
try {
  agyPath = resolveAgyBinary({ env: process.env });
  console.log(`Using agy at ${agyPath}.`);
} catch {
  agyPath = simulatorPath();
  console.log('No agy found (AGY_PATH unset, none on PATH): running offline against the agy simulator.');
}

// The tool runs here, in this process: agy reaches it over MCP on a private 127.0.0.1 listener.
const countFiles = tool(
  {
    name: 'count_files',
    description: 'Count the files and directories in the workspace',
    input: z.object({}),
  },
  () => `${readdirSync(process.cwd()).length} entries in ${process.cwd()}`,
);

const agent = new Agent({
  agyPath,
  workspaces: [process.cwd()],
  tools: [countFiles],
  systemInstructions: 'You are a concise assistant for this repository.',
  idleTimeoutMs: 120_000,
});
try {
  await agent.start();
  // `agy --version` runs beside the first start; probedAgyVersion() waits for its answer (agyVersion may be null).
  const version = await agent.probedAgyVersion();
  console.log(`agy ${version ?? '(unknown version)'} · conversation ${agent.conversationId}`);

  const response = await agent.chat('How many files are in this directory? Answer in one sentence.');
  for await (const call of response.toolCalls())
    console.log(`  → tool ${call.name} ${JSON.stringify(call.args)} ${call.error ? '✗' : '✓'}`);
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
