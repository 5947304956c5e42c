// The second round of real agy material (issue 19): agy 1.3.1/1.3.2 stdin runs
// (../shared/fixtures/agy-real/littlebearapps-untether-agy-1.3.1/, `.script` files), agy 1.2.13
// (unnamed-plenipo-agy-1.2.13/), and the agy 1.1.18 shapes kept apart from the repository, reproduced in
// test/fixtures/agy-shapes/ (see its README.md). Each case runs through the real Agent and spawn path with
// test/fixtures/replay-script-agy.mjs as agy.
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../../../src/agent/agent.js';
import type { AgentConfig } from '../../../../src/agent/config.js';
import { ConfigError, ConversationNotFoundError } from '../../../../src/errors.js';
import type { Logger } from '../../../../src/logger.js';
import { collect, useSandboxAgents } from '../../../helpers/agents.js';
import { REPLAY_SCRIPT_AGY, replayConfig } from '../../../helpers/capture-replay.js';
import { AGY_REAL, HAVE_CAPTURES, LB, NO_CAPTURES_REASON, PL } from '../../../helpers/captures.js';
import { type Sandbox, sandbox } from '../../../helpers/sandbox.js';

const SHAPES = resolve(import.meta.dirname, '../../../fixtures/agy-shapes');

const open: { agent: Agent; box: Sandbox }[] = [];
afterEach(async () => {
  for (const { agent, box } of open.splice(0)) {
    await agent.close();
    await box.cleanup();
  }
});

async function agentOn(agy: { agyPath: string; env: Record<string, string> }, extra: AgentConfig = {}) {
  const box = await sandbox();
  const agent = new Agent(
    await box.agentConfig(undefined, { ...agy, ...extra, env: { ...agy.env, ...extra.env } }),
  );
  open.push({ agent, box });
  return agent;
}

/** A `.script` capture under agy-real/ as the agy the Agent runs. */
const capture = (file: string, env: Record<string, string> = {}) => replayConfig({ stdout: file }, env);
/** A shape file of test/fixtures/agy-shapes/ as the agy the Agent runs. */
const shape = (file: string, env: Record<string, string> = {}) => ({
  agyPath: REPLAY_SCRIPT_AGY,
  env: { REPLAY_SCRIPT: join(SHAPES, file), REPLAY_VERSION: '1.1.18', ...env },
});
const HOLD = { REPLAY_HOLD_RESULT: '1' };

/** Starts a turn and interrupts it (or cancels it) once its tool call is running. */
async function stopWhileToolRuns(agent: Agent, how: 'interrupt' | 'cancel' | 'signal') {
  const abort = new AbortController();
  const response = await agent.chat('run the slow command', how === 'signal' ? { signal: abort.signal } : {});
  for await (const call of response.toolCalls()) {
    if (call.state !== 'ACTIVE') continue;
    if (how === 'interrupt') await agent.interrupt();
    else if (how === 'cancel') await response.cancel();
    else abort.abort();
    break;
  }
  return response.result();
}

describe('a stop the SDK sent is what the user asked for, whatever agy answers', () => {
  it.skipIf(!HAVE_CAPTURES)(
    '1.3.1: ERROR "interrupted" + exit 1 after our SIGINT is interrupted',
    async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script
      const agent = await agentOn(capture(`${LB}/interrupted_sigint.script`, HOLD));
      const result = await stopWhileToolRuns(agent, 'interrupt');
      expect(result.status).toBe('interrupted');
      expect(result.errorMessage).toBe('the turn was interrupted');
    },
  );

  it('1.1.18 stdin: ERROR "context canceled" after our SIGINT is interrupted, agy\'s words kept', async () => {
    // Shape: test/fixtures/agy-shapes/1.1.18-sigint-stdin.script (docs/reference/stream-json.md#interrupt-answers)
    const agent = await agentOn(shape('1.1.18-sigint-stdin.script', HOLD));
    const result = await stopWhileToolRuns(agent, 'interrupt');
    expect(result.status).toBe('interrupted');
    expect(result.errorMessage).toBe('the turn was interrupted (agy: context canceled)');
    expect(result.result).toMatchObject({ status: 'ERROR', error: 'context canceled' });
  });

  it('1.1.18 -p: ERROR "timeout waiting for response" after our SIGINT is interrupted, not timeout', async () => {
    // Shape: test/fixtures/agy-shapes/1.1.18-sigint-print.script (docs/reference/stream-json.md#interrupt-answers)
    const agent = await agentOn(shape('1.1.18-sigint-print.script', HOLD));
    const result = await stopWhileToolRuns(agent, 'interrupt');
    expect(result.status).toBe('interrupted');
    expect(result.errorMessage).toContain('timeout waiting for response');
  });

  it('cancel() and an aborted signal give canceled on the same 1.1.18 answer', async () => {
    // Shape: test/fixtures/agy-shapes/1.1.18-sigint-stdin.script
    const canceled = await stopWhileToolRuns(
      await agentOn(shape('1.1.18-sigint-stdin.script', HOLD)),
      'cancel',
    );
    expect(canceled.status).toBe('canceled');
    expect(canceled.errorMessage).toContain('context canceled');
    const aborted = await stopWhileToolRuns(
      await agentOn(shape('1.1.18-sigint-stdin.script', HOLD)),
      'signal',
    );
    expect(aborted.status).toBe('canceled');
  });

  it('the same answers without a stop from the SDK keep their reading (error, timeout)', async () => {
    // Shapes: test/fixtures/agy-shapes/1.1.18-sigint-{stdin,print}.script
    const stdin = await (await (await agentOn(shape('1.1.18-sigint-stdin.script'))).chat('go')).result();
    expect(stdin.status).toBe('error');
    expect(stdin.errorMessage).toBe('context canceled');
    const print = await (await (await agentOn(shape('1.1.18-sigint-print.script'))).chat('go')).result();
    expect(print.status).toBe('timeout');
  });
});

describe('denials read the same on every version', () => {
  it('1.1.18 soft denial (CANCELED, silent DONE step, jetski line) is denied, the call denied', async () => {
    // Shape: test/fixtures/agy-shapes/1.1.18-soft-denial.script (docs/reference/stream-json.md#canceled-soft-denial)
    const agent = await agentOn(shape('1.1.18-soft-denial.script'));
    const response = await agent.chat('run it');
    const [result, calls] = await Promise.all([response.result(), collect(response.toolResults())]);
    expect(result.status).toBe('denied');
    // agy's stderr line when it arrived before the result (separate pipes, no order between them), else the
    // SDK's own reading of the silent DONE step: either way the turn is denied.
    expect(result.errorMessage).toMatch(
      /^jetski: no output produced .*auto-denied|^agy canceled the turn after a silent tool step \(auto-denied\)$/,
    );
    expect(calls).toMatchObject([{ name: 'run_command', state: 'DONE', denied: true }]);
    expect(result.toolCalls[0]!.denied).toBe(true);
  });

  it('1.1.18 hook denial (step ERROR + result ERROR, exit 0) is denied with the hook reason', async () => {
    // Shape: test/fixtures/agy-shapes/1.1.18-hook-denial.script (docs/reference/hooks.md#hook-denials-on-stdout)
    const result = await (await (await agentOn(shape('1.1.18-hook-denial.script'))).chat('run it')).result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      {
        action: 'run_command',
        source: 'agy',
        // A hook the SDK did not install (the capture's own): agy's hooks, not the SDK's policies.
        deniedBy: { kind: 'hook', name: 'agyHooks' },
        reason: 'no shell today',
        args: { CommandLine: 'sleep 30' },
      },
    ]);
    expect(result.toolCalls[0]).toMatchObject({ state: 'ERROR', denied: true });
  });

  it.skipIf(!HAVE_CAPTURES)('1.3.1 hook denial (SUCCESS) is denied with the hook reason too', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/hook_deny_bypass.script
    const result = await (
      await (await agentOn(capture(`${LB}/hook_deny_bypass.script`))).chat('go')
    ).result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      {
        action: 'run_command',
        source: 'agy',
        deniedBy: { kind: 'hook', name: 'agyHooks' },
        reason: 'probe hook deny: the user refused this command',
        args: { CommandLine: 'echo denyme' },
      },
    ]);
    expect(result.toolCalls.filter((c) => c.denied).map((c) => c.args)).toEqual([
      { CommandLine: 'echo denyme' },
    ]);
  });
});

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'shapes agy 1.2.13–1.3.2 write, carried through' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it('--json-schema on 1.3.1: the `finish` call completes, structured output as agy sent it', async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/json_schema_finish.script
      const agent = await agentOn(capture(`${LB}/json_schema_finish.script`), {
        responseSchema: {
          type: 'object',
          properties: { answer: { type: 'string' }, count: { type: 'integer' } },
          required: ['answer', 'count'],
        },
      });
      const response = await agent.chat('answer');
      const [result, steps, calls] = await Promise.all([
        response.result(),
        collect(response.steps()),
        collect(response.toolResults()),
      ]);
      expect(result.status).toBe('success');
      expect(result.toolCalls).toMatchObject([
        {
          name: 'finish',
          state: 'DONE',
          args: { answer: 'Hello!\n\n1, 2, 3.', count: 3 },
          durationSeconds: 0.027595495,
        },
      ]);
      expect(steps.find((s) => s.type === 'finish')?.tool).toMatchObject({ name: 'finish', state: 'DONE' });
      expect(calls.map((c) => [c.name, c.state])).toEqual([['finish', 'DONE']]);
      expect(result.structuredOutput).toEqual({ answer: 'Hello!\n\n1, 2, 3.', count: 3 });
      expect(await response.structuredOutput()).toEqual({ answer: 'Hello!\n\n1, 2, 3.', count: 3 });
    });

    it('an unknown --conversation on 1.3.1: resumed false, a notice, a warning, the new id', async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script
      const warn = vi.fn();
      const logger: Logger = { debug() {}, info() {}, warn, error() {} };
      const agent = await agentOn(capture(`${LB}/unknown_conversation.script`), {
        conversationId: '00000000-1111-2222-3333-444444444444',
        logger,
      });
      const result = await (await agent.chat('hi')).result();
      expect(result.status).toBe('success');
      expect(result.resumed).toBe(false);
      expect(result.conversationId).toBe('65f94e86-51cc-46d0-8aee-97c679364d8c');
      expect(agent.conversationId).toBe('65f94e86-51cc-46d0-8aee-97c679364d8c');
      expect(result.notices).toContain(
        'agy did not know conversation "00000000-1111-2222-3333-444444444444" and started a new conversation "65f94e86-51cc-46d0-8aee-97c679364d8c"',
      );
      expect(warn.mock.calls.map((c) => c[0]).join('\n')).toContain(
        'warning: conversation "00000000-1111-2222-3333-444444444444" not found',
      );
    });

    it("resume: 'require' fails the start with ConversationNotFoundError", async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script
      const agent = await agentOn(capture(`${LB}/unknown_conversation.script`), {
        conversationId: '00000000-1111-2222-3333-444444444444',
        resume: 'require',
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      });
      const err = await agent.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConversationNotFoundError);
      expect(err).toMatchObject({
        requestedConversationId: '00000000-1111-2222-3333-444444444444',
        startedConversationId: '65f94e86-51cc-46d0-8aee-97c679364d8c',
      });
    });

    it('a known --conversation: resumed true', async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/resume_after_interrupt.script
      const agent = await agentOn(capture(`${LB}/resume_after_interrupt.script`), {
        conversationId: 'b66a64cf-dd95-4344-9df6-25d35539e10f',
      });
      const result = await (await agent.chat('again')).result();
      expect(result.resumed).toBe(true);
      expect(result.notices ?? []).toEqual([]);
    });

    it('init.model without --model (1.3.2) and permission_mode "strict" (1.2.13) reach agent.info', async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/slash_prompt_literal.script (1.3.2);
      // agy-real/unnamed-plenipo-agy-1.2.13/e9-strict-denied.excerpt.ndjson
      const a = await agentOn(capture(`${LB}/slash_prompt_literal.script`));
      await a.start();
      expect(a.info?.model).toBe('gemini-3.8-flash');
      const b = await agentOn(replayConfig({ stdout: `${PL}/e9-strict-denied.excerpt.ndjson` }));
      await b.start();
      expect(b.info?.permissionMode).toBe('strict');
      expect(await (await b.chat('go')).result()).toMatchObject({ status: 'denied' });
    });

    it('a mid-turn user_input step keeps its duration; `\\r\\n` in tool output is kept', async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/hook_deny_bypass.script (step 3, steps 7 and 9)
      const response = await (await agentOn(capture(`${LB}/hook_deny_bypass.script`))).chat('go');
      const [steps, calls] = await Promise.all([collect(response.steps()), collect(response.toolResults())]);
      expect(steps.filter((s) => s.type === 'user_input').map((s) => s.durationSeconds)).toEqual([
        undefined,
        0.0001406,
      ]);
      expect(calls.filter((c) => c.name === 'run_command').map((c) => c.output)).toEqual([
        'allowme\r\n',
        'askme\r\n',
        undefined,
      ]);
    });

    it('the captures folder is where the tests look', () => {
      expect(AGY_REAL.endsWith('shared/fixtures/agy-real')).toBe(true);
    });
  },
);

describe('resume config', () => {
  it('an unknown resume mode is a ConfigError naming the field', () => {
    expect(() => new Agent({ resume: 'maybe' as never })).toThrow(ConfigError);
    expect(() => new Agent({ resume: 'maybe' as never })).toThrow(/resume/);
  });
});

describe('the simulator imitating agy 1.1.18', () => {
  const agents = useSandboxAgents();

  it('soft-denies as 1.1.18 does (CANCELED, silent DONE step, jetski line), read as denied', async () => {
    // Shape: test/fixtures/agy-shapes/1.1.18-soft-denial.script (docs/reference/stream-json.md#canceled-soft-denial)
    const agent = await agents.agentWith({
      version: '1.1.18',
      turns: [{ actions: [{ deny: { action: 'command', tool: 'run_command' } }] }],
    });
    const result = await (await agent.chat('run it')).result();
    expect(result.result).toMatchObject({ status: 'CANCELED' });
    expect(result.result).not.toHaveProperty('denied_actions');
    expect(result.status).toBe('denied');
    expect(result.errorMessage).toMatch(/^jetski: no output produced .*"command" permission.*auto-denied/);
    expect(result.toolCalls).toMatchObject([{ name: 'run_command', state: 'DONE', denied: true }]);
  });
});
