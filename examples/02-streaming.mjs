// Streaming: read a turn while it runs. The text iterator, steps(), toolCalls() and toolResults() are
// independent cursors over one buffer, so they can run concurrently and each sees everything from the start.
// Run after `npm run build`: node examples/02-streaming.mjs
import { Agent } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';

const agent = new Agent({ agyPath: process.env.AGY_PATH ?? simulatorPath(), workspaces: [process.cwd()] });
try {
  const response = await agent.chat('List the files here, then describe them in one sentence.');

  // Two consumers at once: tool calls as they start, and text deltas as they arrive.
  // `agent: ` opens the answer's line with its first words, so a tool line never lands after an empty label.
  let midLine = false;
  const tools = (async () => {
    for await (const call of response.toolCalls()) {
      console.log(`${midLine ? '\n' : ''}  → tool ${call.name}`);
      midLine = false;
    }
  })();
  let answering = false;
  for await (const delta of response) {
    if (!midLine) process.stdout.write(answering ? '' : 'agent: ');
    answering = true;
    process.stdout.write(delta);
    midLine = !delta.endsWith('\n');
  }
  if (midLine) process.stdout.write('\n');
  await tools;

  // A late cursor still replays every step of the turn.
  let steps = 0;
  for await (const step of response.steps()) steps += step.type === 'agent_response' ? 1 : 0;
  const result = await response.result();
  console.log(`model steps: ${steps}`);
  console.log(`status: ${result.status}`);
} finally {
  await agent.close();
}
