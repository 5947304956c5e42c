// Record, then replay: a session recorded against the simulator and replayed from its cassette gives the same
// TurnResults (status, text, usage, tool calls, denials) for every scenario of the set below, at every version
// profile the simulator imitates. The set covers each kind of turn the simulator's own tests script
// (test/testing/simulator/simulator.process.test.ts): text, built-in and MCP tools, soft and hook denials, an own tool, a
// failed model call, a rate-limit retry, quota, a print timeout, a subagent, notices and several turns.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import type { AgentConfig } from '../../../src/agent/config.js';
import type { TurnResult } from '../../../src/model/turn-result.js';
import { policy } from '../../../src/policy/index.js';
import { replayCassette } from '../../../src/testing/cassette/index.js';
import { tool } from '../../../src/tools/tool.js';
import { ROUND_TRIP_SCENARIOS, SIM_VERSION_PROFILES } from '../../helpers/cassette-scenarios.js';
import { sandbox } from '../../helpers/sandbox.js';

/** What a round trip must keep, with the session's own paths out of tool arguments. */
function essence(r: TurnResult) {
  return {
    status: r.status,
    text: r.text,
    usage: r.usage,
    totalUsage: r.totalUsage,
    calls: r.toolCalls.map((c) => ({ name: c.name, state: c.state, denied: c.denied, output: c.output })),
    denials: r.deniedActions.map((d) => ({ action: d.action, source: d.source, reason: d.reason })),
    command: r.command,
    exitCode: r.exitCode,
  };
}

const add = tool(
  { name: 'add', description: 'Adds', input: z.object({ a: z.number(), b: z.number() }) },
  ({ a, b }) => String(a + b),
);

async function session(config: AgentConfig, prompts: string[]) {
  const agent = new Agent({
    ...config,
    tools: [add],
    policies: [policy.deny('run_command'), policy.allowAll()],
  });
  try {
    const results: TurnResult[] = [];
    for (const p of prompts) results.push(await (await agent.chat(p)).result());
    return { results, file: agent.cassetteFile };
  } finally {
    await agent.close();
  }
}

describe('record → replay round trip over the simulator scenarios', () => {
  const cases = SIM_VERSION_PROFILES.flatMap((version) =>
    Object.entries(ROUND_TRIP_SCENARIOS).map(([name, c]) => [`${version} ${name}`, version, c] as const),
  );
  // Concurrent: each case is two short sessions, mostly waiting on process start-up.
  it.concurrent.each(cases)('%s', async (_name, version, { scenario, prompts }) => {
    const box = await sandbox();
    try {
      const recorded = await session(
        await box.agentConfig({ ...scenario, version }, { record: { dir: join(box.root, 'cassettes') } }),
        prompts,
      );
      expect(recorded.file).toBeDefined();
      const replay = replayCassette(recorded.file!);
      const replayed = await session(await box.agentConfig(undefined, replay), prompts);
      expect(replayed.results.map(essence)).toEqual(recorded.results.map(essence));
      expect(recorded.results.length).toBe(prompts.length);
    } finally {
      await box.cleanup();
    }
  });
});
