import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHookToolCall, HookRunner, hooks, type PreToolCallHook } from '../../src/hooks/index.js';
import type { AskUserHandler } from '../../src/policy/ask-user/index.js';
import { enforce, type Policy, PolicyConfigError, policy } from '../../src/policy/index.js';
import { spyLogger } from '../helpers/hooks.js';
import { ownTimers } from '../helpers/own-timers.js';

const call = (name: string, args: Record<string, unknown> = {}, server?: string) =>
  createHookToolCall({ id: 'conv:2', name, args, ...(server ? { server } : {}) });

async function decide(hook: PreToolCallHook, c = call('run_command', { CommandLine: 'ls' })) {
  const runner = new HookRunner({ hooks: [hook], logger: spyLogger() });
  return runner.dispatchPreToolCall(runner.beginTurn(), c);
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('enforce validation', () => {
  it('returns a preToolCall hook named "policy"', () => {
    const hook = enforce([policy.allowAll()]);
    expect(hook.category).toBe('decide');
    expect(hook.kind).toBe('preToolCall');
    expect(hook.name).toBe('policy');
  });

  it('an ask_user policy without a handler is a PolicyConfigError naming the policy', () => {
    const bad: Policy = { tool: 'run_command', decision: 'ask_user', name: 'confirm_shell' };
    let error: unknown;
    try {
      enforce([policy.allowAll(), bad]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyConfigError);
    expect(error).toMatchObject({ name: 'PolicyConfigError', policyName: 'confirm_shell' });
    expect((error as Error).message).toContain("'confirm_shell'");
  });

  it('an MCP policy must name a configured server', () => {
    const policies = [policy.allow({ name: 'github' }, ['list_issues'])];
    expect(() => enforce(policies)).toThrow(PolicyConfigError);
    expect(() => enforce(policies, { mcpServers: ['gitlab'] })).toThrow(
      /MCP server 'github'.*not configured/,
    );
    expect(() => enforce(policies, { mcpServers: ['github'] })).not.toThrow();
    expect(() => enforce(policies, { mcpServers: [{ name: 'github' }] })).not.toThrow();
    expect(() => enforce([policy.deny({ name: 'x' })], { mcpServers: ['y'] })).toThrow(/'deny_x_all'/);
  });

  it('rejects malformed policies and unsupported wildcards', () => {
    expect(() => enforce([{ tool: 'run_*', decision: 'deny' }])).toThrow(/only '\*' and 'server\/\*'/);
    expect(() => enforce([{ tool: 'x', decision: 'block' as never }])).toThrow(/unknown decision/);
    expect(() => enforce([{ tool: '', decision: 'deny' }])).toThrow(PolicyConfigError);
    expect(() => enforce([{ tool: 'x', decision: 'deny', when: 'yes' as never }])).toThrow(/'when'/);
    expect(() => enforce([{ tool: 's/', decision: 'deny' }], { mcpServers: ['s'] })).toThrow(/malformed/);
    expect(() => enforce([{ tool: 's/a*', decision: 'deny' }], { mcpServers: ['s'] })).toThrow(/malformed/);
  });

  it('rejects an unusable askUserTimeoutMs', () => {
    expect(() => enforce([], { askUserTimeoutMs: 0 })).toThrow(PolicyConfigError);
    expect(() => enforce([], { askUserTimeoutMs: 2 ** 31 })).toThrow(PolicyConfigError);
    expect(() => enforce([], { askUserTimeoutMs: Number.POSITIVE_INFINITY })).not.toThrow();
  });
});

describe('enforce decisions', () => {
  it('approve allows; no match allows', async () => {
    expect((await decide(enforce([policy.allow('run_command')]))).allow).toBe(true);
    expect((await decide(enforce([policy.deny('view_file')]))).allow).toBe(true);
  });

  it('deny carries a reason that names the policy (and its message)', async () => {
    const outcome = await decide(
      enforce([policy.deny('run_command', { name: 'no_shell', message: 'use the API' })]),
    );
    expect(outcome).toMatchObject({
      allow: false,
      message: "Denied by policy 'no_shell': use the API",
      hook: 'policy',
    });
    const unnamed = await decide(enforce([policy.deny('run_command')]));
    expect(unnamed.message).toBe("Denied by policy 'run_command'");
  });

  it('a throwing predicate denies with a message saying it failed closed', async () => {
    const logger = spyLogger();
    const hook = enforce(
      [
        policy.allow('run_command', {
          name: 'check',
          when: () => {
            throw new Error('oops');
          },
        }),
      ],
      { logger },
    );
    const outcome = await decide(hook);
    expect(outcome.allow).toBe(false);
    expect(outcome.message).toContain("policy 'check'");
    expect(outcome.message).toContain('oops');
    expect(outcome.message).toContain('fail closed');
    expect(logger.error).toHaveBeenCalled();
  });

  it('ask_user: handler yes allows, no denies naming the policy, message passes through', async () => {
    const yes = vi.fn(async () => true);
    expect(
      (await decide(enforce([policy.askUser('run_command', { handler: yes, name: 'confirm' })]))).allow,
    ).toBe(true);
    expect(yes).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'run_command' }),
      expect.objectContaining({ policy: 'confirm', signal: expect.any(AbortSignal) }),
    );

    const no = await decide(
      enforce([policy.askUser('run_command', { handler: async () => false, name: 'confirm' })]),
    );
    expect(no).toMatchObject({
      allow: false,
      message: "Denied by the user (asked by policy 'confirm')",
      deniedBy: { kind: 'user', policy: 'confirm' },
    });

    const said = await decide(
      enforce([
        policy.askUser('run_command', {
          handler: async () => ({ allow: false, message: 'not today' }),
          name: 'c',
        }),
      ]),
    );
    expect(said.message).toBe("Denied by the user (asked by policy 'c'): not today");
  });

  it('ask_user: the handler gets the policy message as the reason and the operation context', async () => {
    const handler = vi.fn<AskUserHandler>(async () => true);
    await decide(enforce([policy.askUser('run_command', { handler, message: 'shell access' })]));
    const ctx = handler.mock.calls[0]?.[1];
    expect(ctx?.reason).toBe('shell access');
    expect(ctx?.operation?.toolCallId).toBe('conv:2');
  });

  it('ask_user: a throwing handler denies', async () => {
    const logger = spyLogger();
    const hook = enforce(
      [
        policy.askUser('run_command', {
          name: 'confirm',
          handler: () => {
            throw new Error('tty gone');
          },
        }),
      ],
      { logger },
    );
    const outcome = await decide(hook);
    expect(outcome.allow).toBe(false);
    expect(outcome.message).toBe("Denied by policy 'confirm': the approval handler failed: tty gone");
  });

  it('ask_user: no answer within askUserTimeoutMs denies, aborts the handler signal and clears its timer', async () => {
    vi.useFakeTimers();
    const timers = ownTimers('policy');
    let signal: AbortSignal | undefined;
    const handler = vi.fn((_c, ctx: { signal: AbortSignal }) => {
      signal = ctx.signal;
      return new Promise<boolean>(() => {}); // never answers
    });
    const hook = enforce([policy.askUser('run_command', { handler, name: 'confirm' })], {
      askUserTimeoutMs: 1000,
      logger: spyLogger(),
    });
    const decision = decide(hook);
    await vi.advanceTimersByTimeAsync(999);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await decision;
    expect(outcome).toMatchObject({
      allow: false,
      message: "Denied by policy 'confirm': no approval within 1000 ms",
    });
    expect(signal?.aborted).toBe(true);
    expect(timers.made()).toBeGreaterThan(0);
    expect(timers.pending()).toBe(0);
  });

  it('ask_user: default timeout is 5 minutes', async () => {
    vi.useFakeTimers();
    const timers = ownTimers('policy');
    const hook = enforce([policy.askUser('run_command', { handler: () => new Promise<boolean>(() => {}) })], {
      logger: spyLogger(),
    });
    const pending = decide(hook);
    await vi.advanceTimersByTimeAsync(5 * 60 * 1000 - 1);
    expect(timers.pending()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).allow).toBe(false);
    expect(timers.pending()).toBe(0);
  });

  it('enforces MCP policies against the call server', async () => {
    const hook = enforce([policy.denyAll(), policy.allow({ name: 'db' }, ['select'])], {
      mcpServers: ['db'],
    });
    expect((await decide(hook, call('select', {}, 'db'))).allow).toBe(true);
    const denied = await decide(hook, call('drop', {}, 'db'));
    expect(denied).toMatchObject({ allow: false, message: "Denied by policy 'deny_all'" });
  });

  it('sees args modified by earlier preToolCall hooks', async () => {
    const rewrite = new HookRunner({ logger: spyLogger() });
    rewrite.register(
      hooks.preToolCall(() => ({ allow: true, modifiedArgs: { CommandLine: 'rm -rf /' } })),
      enforce([
        policy.deny('run_command', { when: (args) => String(args.commandLine).startsWith('rm'), name: 'rm' }),
      ]),
    );
    const outcome = await rewrite.dispatchPreToolCall(
      rewrite.beginTurn(),
      call('run_command', { CommandLine: 'ls' }),
    );
    expect(outcome).toMatchObject({ allow: false, message: "Denied by policy 'rm'" });
  });
});
