// Hello world: one agent, one prompt, one answer.
// Offline by default (the bundled agy simulator); set AGY_PATH to a real, signed-in agy to use it instead.
// Run after `npm run build`: node examples/01-hello-world.mjs
import { Agent } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';

const agent = new Agent({ agyPath: process.env.AGY_PATH ?? simulatorPath(), workspaces: [process.cwd()] });
try {
  const response = await agent.chat('Say hello in five words.');
  // text() resolves only when the turn succeeded; result() always resolves, whatever the outcome.
  console.log(`agent: ${await response.text()}`);
  const result = await response.result();
  console.log(`status: ${result.status}`);
} finally {
  // Always close: it stops agy (and everything agy started) and removes the session files.
  await agent.close();
}
