// Testing your agent: unit tests with `agy-sdk/testing` and node:test, no model and no network. The
// simulator stands in for agy (`simulatorPath()`), and a scenario (`writeScenario`) scripts what "the model"
// does each turn: text, tool calls, denials, quota, stalls, crashes. Your agent code runs for real: its tools,
// policies and hooks are exercised through agy's real mechanisms (MCP, hooks.json) by the simulator.
// Run after `npm run build`: node --test examples/16-testing-your-agent.mjs (or plain `node …`)
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { after, test } from 'node:test';
import { Agent, policy, tool } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod';

// ---- The agent under test (in a real project this lives in your source tree) ----
const calls = [];
const lookupOrder = tool(
  { name: 'lookup_order', description: 'Find an order', input: z.object({ id: z.string() }) },
  ({ id }) => {
    calls.push(id);
    return id === '42' ? 'order 42: shipped' : `order ${id}: not found`;
  },
);
/** Builds the support agent; tests pass the simulator and a scenario through `agyPath`/`env`. */
function createSupportAgent(overrides = {}) {
  return new Agent({
    tools: [lookupOrder],
    policies: [
      policy.deny('run_command', { message: 'Support agents do not run commands.' }),
      policy.allowAll(),
    ],
    ...overrides,
  });
}

// ---- The tests ----
const scenarios = [];
after(() => Promise.all(scenarios.map((s) => rm(dirname(s), { recursive: true, force: true }))));

/** A support agent on the simulator, running `turns`. */
async function agentFor(turns) {
  const scenario = await writeScenario({ turns });
  scenarios.push(scenario);
  return createSupportAgent({ agyPath: simulatorPath(), env: { AGY_SIM_SCENARIO: scenario } });
}

test('looks the order up with its tool and answers', async () => {
  const agent = await agentFor([
    {
      expectPrompt: 'order 42', // the scenario fails the turn if the prompt does not say this
      actions: [
        {
          mcpTool: {
            server: 'agy-sdk_tools',
            tool: 'lookup_order',
            arguments: { id: '42' },
            expectError: false,
          },
        },
        { text: 'Order 42 has shipped.' },
      ],
    },
  ]);
  try {
    const result = await (await agent.chat('Where is order 42?')).result();
    assert.equal(result.status, 'success');
    assert.deepEqual(calls, ['42']);
    assert.equal(result.toolCalls.find((c) => c.name === 'lookup_order')?.output, 'order 42: shipped');
  } finally {
    await agent.close();
  }
});

test('never runs shell commands', async () => {
  const agent = await agentFor([
    {
      actions: [
        { tool: { name: 'run_command', parameters: { CommandLine: 'rm -rf /' } } },
        { text: 'Done.' },
      ],
    },
  ]);
  try {
    const result = await (await agent.chat('Clean the server.')).result();
    assert.equal(result.status, 'denied');
    assert.equal(result.deniedActions[0]?.action, 'run_command');
    assert.match(result.deniedActions[0]?.reason ?? '', /do not run commands/);
  } finally {
    await agent.close();
  }
});

test('reports quota exhaustion with the reset time', async () => {
  // agy's own quota stop (exit code 3, "Individual quota reached … Resets in 34m13s"), as captured from agy
  // 1.2.17: agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout and .stderr.
  const agent = await agentFor([{ actions: [], end: { quota: true } }]);
  try {
    const result = await (await agent.chat('Where is order 7?')).result();
    assert.equal(result.status, 'quota_exhausted');
    assert.ok(result.retryAfterMs && result.retryAfterMs > 30 * 60_000);
  } finally {
    await agent.close();
  }
});
