// Persistence and resume: agy keeps each conversation on disk. Save `agent.conversationId`, and a later
// Agent (another process, another day) passes it as `conversationId` to carry on where it stopped; agy is
// started with `--conversation <id>`. Usage totals continue across processes (`conversation.totalUsage`).
// Run after `npm run build`: node examples/14-persistence-and-resume.mjs
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';

// Offline, the simulator keeps its conversations here (real agy uses its own data directory).
const stateDir = await mkdtemp(join(tmpdir(), 'agy-sdk-resume-'));
const options = {
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_STATE_DIR: stateDir },
};

let saved;
try {
  // Session 1: start a conversation and remember its id (a real app would store it in a file or database).
  const first = new Agent(options);
  try {
    const result = await (await first.chat('My favourite colour is teal.')).result();
    saved = first.conversationId;
    console.log(`session 1: ${result.status}, conversation ${saved}`);
  } finally {
    await first.close(); // the agy process ends; the conversation stays on disk
  }

  // Session 2: a new Agent resumes it.
  const second = new Agent({ ...options, conversationId: saved });
  try {
    const result = await (await second.chat('What is my favourite colour?')).result();
    console.log(`session 2: ${result.status}, conversation ${second.conversationId}`);
    console.log(`same conversation: ${second.conversationId === saved}`);
    console.log(`conversation usage so far: ${result.totalUsage?.totalTokens ?? 'unknown'} tokens`);
    console.log(`resumed: ${second.conversationId === saved ? 'yes' : 'no'}`);
    console.log(`status: ${result.status}`);
  } finally {
    await second.close();
  }
} finally {
  await rm(stateDir, { recursive: true, force: true });
}
