// The PreToolUse answer each agy version honours, end to end through the simulator
// (docs/reference/hooks.md#pretooluse-answer-by-version): on the 1.3.3 profile (`{}` runs a tool; `allow`
// only hands it to agy's own permission check, which headless mode denies) an approved call must run, and on
// every profile a denied call must never run. The simulator runs without `--dangerously-skip-permissions`
// here, as the SDK launches agy unless asked.
import { describe, expect, it } from 'vitest';
import { hooks } from '../../../src/hooks/factories.js';
import { policy } from '../../../src/policy/index.js';
import type { Scenario } from '../../../src/testing/simulator/scenario.js';
import { toolResults, useSandboxAgents } from '../../helpers/agents.js';

const sb = useSandboxAgents();

/** One turn: the model runs `ls`, then answers. */
function runLs(version: string | undefined): Scenario {
  return {
    ...(version !== undefined && { version }),
    turns: [
      {
        actions: [
          { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'a.txt' } },
          { text: 'listed' },
        ],
      },
    ],
  };
}

describe('PreToolUse answers per agy version', () => {
  it('agy 1.3.3: a call the policy allows runs (answered {}), the turn is not denied', async () => {
    const agent = await sb.agentWith(runLs('1.3.3'), { policies: [policy.allowAll()] });
    const r = await agent.chat('list');
    const [call] = await toolResults(r);
    expect(call).toMatchObject({ name: 'run_command', state: 'DONE', output: 'a.txt' });
    const result = await r.result();
    expect(result.status).toBe('success');
    expect(result.deniedActions ?? []).toEqual([]);
    expect(await agent.probedAgyVersion()).toBe('1.3.3');
  });

  it("agy 1.3.3: a person's yes to askUser runs the call", async () => {
    const asked: string[] = [];
    const agent = await sb.agentWith(runLs('1.3.3'), {
      policies: [
        policy.confirmRunCommand((call) => {
          asked.push(String(call.args.CommandLine));
          return true;
        }),
      ],
    });
    const r = await agent.chat('list');
    const [call] = await toolResults(r);
    expect(asked).toEqual(['ls']);
    expect(call).toMatchObject({ state: 'DONE', output: 'a.txt' });
    expect((await r.result()).status).toBe('success');
  });

  for (const version of ['1.3.3', undefined, '1.2.7']) {
    it(`agy ${version ?? '(default profile)'}: a call the policy denies never runs`, async () => {
      const agent = await sb.agentWith(runLs(version), {
        policies: [policy.deny('run_command'), policy.allowAll()],
      });
      const r = await agent.chat('list');
      const [call] = await toolResults(r);
      expect(call?.state).toBe('ERROR');
      // The scripted output is what the tool prints when it runs: it never did.
      expect(call?.output).toBeUndefined();
      expect(call?.error?.message).toMatch(/Denied by policy/);
      const result = await r.result();
      expect(result.status).toBe('denied');
      expect(result.deniedActions).toEqual([
        expect.objectContaining({ action: 'run_command', source: 'sdk' }),
      ]);
    });
  }

  it('agy 1.3.3: an approval that rewrites the arguments is denied, never run with the original ones', async () => {
    const agent = await sb.agentWith(
      {
        version: '1.3.3',
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/etc/shadow' }, output: 'x' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        policies: [policy.allowAll()],
        hooks: [hooks.preToolCall(() => ({ allow: true, modifiedArgs: { absolutePath: '/tmp/safe' } }))],
      },
    );
    const r = await agent.chat('read');
    const [call] = await toolResults(r);
    expect(call?.state).toBe('ERROR');
    expect(call?.output).toBeUndefined();
    expect(call?.error?.message).toMatch(/rewritten arguments/);
    expect((await r.result()).status).toBe('denied');
  });
});
