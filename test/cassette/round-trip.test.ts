// Record, then replay: a session recorded against the simulator and replayed from its cassette gives the same
// TurnResults (status, text, usage, tool calls, denials) for every scenario of the set below, at every version
// profile the simulator imitates. The set covers each kind of turn the simulator's own tests script
// (test/simulator/simulator.test.ts): text, built-in and MCP tools, soft and hook denials, an own tool, a
// failed model call, a rate-limit retry, quota, a print timeout, a subagent, notices and several turns.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentConfig } from '../../src/agent/config.js';
import type { TurnResult } from '../../src/model/turn-result.js';
import { policy } from '../../src/policy/index.js';
import { replayCassette } from '../../src/testing/cassette/index.js';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { tool } from '../../src/tools/tool.js';
import { sandbox } from '../helpers/sandbox.js';

/** Every scenario, with the prompts of its turns. */
export const ROUND_TRIP_SCENARIOS: Record<string, { scenario: Scenario; prompts: string[] }> = {
  text: { scenario: { turns: [{ actions: [{ text: 'Hello there!' }] }] }, prompts: ['hi'] },
  'two tools': {
    scenario: {
      turns: [
        {
          actions: [
            { tool: { name: 'view_file', parameters: { AbsolutePath: '/x' }, output: 'contents' } },
            { tool: { name: 'list_dir', parameters: { DirectoryPath: '/' }, output: 'a b' } },
            { text: 'two tools ran' },
          ],
        },
      ],
    },
    prompts: ['look'],
  },
  'soft denial': {
    scenario: {
      turns: [
        {
          actions: [
            { deny: { action: 'run_command', tool: 'run_command', parameters: { CommandLine: 'rm x' } } },
            { text: 'denied' },
          ],
        },
      ],
    },
    prompts: ['rm'],
  },
  'policy denial and own tool': {
    scenario: {
      turns: [
        {
          actions: [
            { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'x' } },
            { mcpTool: { server: 'agy-sdk_tools', tool: 'add', arguments: { a: 2, b: 5 } } },
            { text: 'sum done' },
          ],
        },
      ],
    },
    prompts: ['add'],
  },
  'model error': { scenario: { turns: [{ actions: [{ text: 'x', error: true }] }] }, prompts: ['fail'] },
  'rate limit retry': {
    scenario: { turns: [{ actions: [{ rateLimit: { retries: 1 } }, { text: 'fine now' }] }] },
    prompts: ['retry'],
  },
  quota: { scenario: { turns: [{ actions: [], end: { quota: true } }] }, prompts: ['q'] },
  'print timeout': { scenario: { turns: [{ actions: [], end: { printTimeout: true } }] }, prompts: ['t'] },
  subagent: {
    scenario: {
      turns: [
        {
          actions: [
            { subagent: { prompt: 'research', actions: [{ text: 'sub says hi' }] } },
            { text: 'main done' },
          ],
        },
      ],
    },
    prompts: ['delegate'],
  },
  'notices and checkpoint': {
    scenario: {
      turns: [
        { actions: [{ systemMessage: 'note' }, { checkpoint: true }, { unknownStep: true }, { text: 'ok' }] },
      ],
    },
    prompts: ['n'],
  },
  'three turns': {
    scenario: {
      turns: [
        { actions: [{ text: 'one' }] },
        { actions: [{ text: 'two' }] },
        { actions: [{ text: 'three' }] },
      ],
    },
    prompts: ['1', '2', '3'],
  },
};

/** One version per profile the simulator imitates (src/testing/simulator/profile.ts: <1.1.9, 1.1.9, 1.2.x, 1.2.17+). */
export const SIM_VERSION_PROFILES = ['1.1.8', '1.1.9', '1.2.7', '1.2.17', '1.3.1'];

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
