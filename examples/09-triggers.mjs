// Triggers: let something other than the user start a turn. `every('60s', fn)` runs on a timer and
// `onFileChange(paths, fn)` on file changes (debounced); both get `ctx.send(text)`, which queues a turn on the
// agent's conversation. Triggers start with the agent and stop when it closes.
// Run after `npm run build`: node examples/09-triggers.mjs
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, every, hooks, onFileChange } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';

const dir = await mkdtemp(join(tmpdir(), 'agy-sdk-triggers-'));
const seen = [];
let ticks = 0;
/** Resolves once a turn started by each trigger has finished. */
let done;
const bothDone = new Promise((resolve) => {
  done = resolve;
});

const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  workspaces: [dir],
  triggers: [
    // Once, 200 ms after start (a real poller would keep going every interval).
    every('200ms', async (ctx) => {
      if (ticks++ === 0) await ctx.send('[timer] Any new orders?');
    }),
    onFileChange(dir, async (changes, ctx) => {
      await ctx.send(`[files] ${changes.map((c) => `${c.kind} ${c.path.split('/').pop()}`).join(', ')}`);
    }),
  ],
  // Turns started by triggers are ordinary turns: hooks see them, and their results are in the history.
  hooks: [
    hooks.postTurn((text) => {
      seen.push(text.includes('[timer]') ? 'timer' : text.includes('[files]') ? 'files' : 'other');
      if (seen.includes('timer') && seen.includes('files')) done();
    }),
  ],
});
try {
  await agent.start(); // triggers start now
  await writeFile(join(dir, 'order-42.json'), '{"id":42}');
  await bothDone;
  console.log(`trigger turns: ${[...new Set(seen)].sort().join(', ')}`);
  // The conversation goes on after trigger turns: a prompt of our own, and its turn status.
  const result = await (await agent.chat('What did the triggers report?')).result();
  console.log(`status: ${result.status}`);
} finally {
  await agent.close(); // stops the timer and the watcher
  await rm(dir, { recursive: true, force: true });
}
