// Cancellation and interrupt. `agent.interrupt()` stops the running turn (agy gets SIGINT and ends it
// `interrupted`); `response.cancel()` cancels one turn, running (interrupted) or queued (never sent); both end
// with the conversation still usable. A silent agy is caught by the stall watchdog (`idleTimeoutMs`,
// `turnTimeoutMs`): the turn ends `timeout`. Either way no agy process is left running.
// Run after `npm run build`: node examples/13-cancellation-and-interrupt.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const scenario = await writeScenario({
  turns: [
    // Turns 1 and 2 start writing and then hang, like a model stuck in a long step.
    { actions: [{ text: 'Starting a long analysis…' }, { stall: true }] },
    { actions: [{ text: 'Working…' }, { stall: true }] },
    { actions: [{ text: 'Still here.' }] },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  idleTimeoutMs: 120_000, // the watchdog: a turn silent this long ends `timeout`
});
try {
  // Interrupt once the first text arrives (an event, not a sleep).
  const first = await agent.chat('Analyse everything.');
  for await (const delta of first) {
    console.log(`  first turn says: ${delta}`);
    break;
  }
  await agent.interrupt();
  console.log(`first turn: ${(await first.result()).status}`);

  // Cancel the second turn the same way, and a third queued behind it before it ever runs.
  const second = await agent.chat('Analyse again.');
  const queued = await agent.chat('This one never runs.');
  for await (const _ of second) break;
  await queued.cancel();
  await second.cancel();
  console.log(
    `second turn: ${(await second.result()).status}; queued turn: ${(await queued.result()).status}`,
  );

  // The conversation is still usable.
  const last = await (await agent.chat('Are you there?')).result();
  console.log(`last turn: ${last.status} — ${last.text}`);
  console.log(`status: ${last.status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
