import { describe, expect, it, vi } from 'vitest';
import {
  createHookToolCall,
  HookRunner,
  type HookToolCall,
  hooks,
  type OperationContext,
  type PreToolCallDecision,
  type PreToolCallHook,
} from '../../src/hooks/index.js';
import { toolCallDecision } from '../../src/hooks/runner.js';
import { spyLogger } from '../helpers/hooks.js';

const runCommand = (commandLine = 'ls', extra: Record<string, unknown> = {}) =>
  createHookToolCall({ id: 'conv:1', name: 'run_command', args: { CommandLine: commandLine, ...extra } });

describe('registration', () => {
  it('registeredKinds lists only kinds with hooks, in lifecycle order', () => {
    const runner = new HookRunner({ logger: spyLogger() });
    expect(runner.registeredKinds()).toEqual([]);
    runner.register(
      hooks.stop(() => undefined),
      hooks.preToolCall(() => true),
      hooks.preToolCall(() => true),
    );
    runner.register(hooks.onSessionStart(() => {}));
    expect(runner.registeredKinds()).toEqual(['onSessionStart', 'preToolCall', 'stop']);
    expect(runner.has('postTurn')).toBe(false);
    expect(runner.hooksOf('preToolCall')).toHaveLength(2);
  });

  it('accepts hooks given to the constructor and rejects non-hooks', () => {
    const runner = new HookRunner({ hooks: [hooks.postTurn(() => {})] });
    expect(runner.registeredKinds()).toEqual(['postTurn']);
    expect(() => runner.register({ kind: 'nope', run: () => {} } as never)).toThrow(TypeError);
    expect(() => runner.register(null as never)).toThrow(TypeError);
  });
});

describe('preToolCall answers become the one ToolCallDecision', () => {
  it("a hook may return the decision itself: `reason` is the deny's message, `args` change the call", async () => {
    const runner = new HookRunner({
      hooks: [
        hooks.preToolCall((call) =>
          call.args.CommandLine === 'rm -rf /'
            ? { allow: false, reason: 'not that' }
            : { allow: true, args: { CommandLine: 'ls -la' } },
        ),
      ],
      logger: spyLogger(),
    });
    const denied = await runner.dispatchPreToolCall(runner.beginTurn(), runCommand('rm -rf /'));
    expect(toolCallDecision(denied)).toEqual({
      allow: false,
      reason: 'not that',
      deniedBy: { kind: 'hook', name: 'preToolCall' },
    });
    const rewritten = await runner.dispatchPreToolCall(runner.beginTurn(), runCommand('ls'));
    expect(toolCallDecision(rewritten)).toEqual({ allow: true, args: { CommandLine: 'ls -la' } });
  });

  it('the shorthands normalize the same way: false names the hook, an allow without changes has no args', async () => {
    const runner = new HookRunner({ hooks: [hooks.preToolCall(() => false)], logger: spyLogger() });
    expect(toolCallDecision(await runner.dispatchPreToolCall(runner.beginTurn(), runCommand()))).toEqual({
      allow: false,
      reason: "Denied by hook 'preToolCall'",
      deniedBy: { kind: 'hook', name: 'preToolCall' },
    });
    const open = new HookRunner({ hooks: [hooks.preToolCall(() => true)], logger: spyLogger() });
    expect(toolCallDecision(await open.dispatchPreToolCall(open.beginTurn(), runCommand()))).toEqual({
      allow: true,
    });
  });
});

describe('preTurn', () => {
  it('stops at the first deny: later hooks do not run', async () => {
    const runner = new HookRunner({ logger: spyLogger() });
    const first = vi.fn(() => true);
    const third = vi.fn(() => true);
    runner.register(
      hooks.preTurn(first),
      hooks.preTurn((prompt) => ({ allow: !prompt.includes('secret'), message: 'no secrets' }), {
        name: 'guard',
      }),
      hooks.preTurn(third),
    );
    const denied = await runner.dispatchPreTurn('tell me the secret');
    expect(denied).toMatchObject({ allow: false, message: 'no secrets', hook: 'guard' });
    expect(first).toHaveBeenCalledWith('tell me the secret', denied.turn);
    expect(third).not.toHaveBeenCalled();

    const allowed = await runner.dispatchPreTurn('hello');
    expect(allowed.allow).toBe(true);
    expect(third).toHaveBeenCalledTimes(1);
    expect(allowed.turn.turn).toBe(2);
  });

  it('a throwing hook denies with a message naming the hook and the error, and is logged', async () => {
    const logger = spyLogger();
    const runner = new HookRunner({ logger });
    const after = vi.fn(() => true);
    runner.register(
      hooks.preTurn(
        async () => {
          throw new Error('db down');
        },
        { name: 'quota' },
      ),
      hooks.preTurn(after),
    );
    const outcome = await runner.dispatchPreTurn('hi');
    expect(outcome.allow).toBe(false);
    expect(outcome.message).toBe("Hook 'quota' failed: db down");
    expect(after).not.toHaveBeenCalled();
    expect(logger.error).toHaveBeenCalledOnce();
  });

  it('false denies with a default message; an invalid return denies (fail closed)', async () => {
    const runner = new HookRunner({ logger: spyLogger() });
    runner.register(hooks.preTurn(() => false, { name: 'no' }));
    expect((await runner.dispatchPreTurn('x')).message).toBe("Denied by hook 'no'");

    const runner2 = new HookRunner({ logger: spyLogger() });
    runner2.register(hooks.preTurn(() => undefined as never, { name: 'forgot' }));
    const outcome = await runner2.dispatchPreTurn('x');
    expect(outcome).toMatchObject({ allow: false, message: "Hook 'forgot' returned no valid decision" });
  });

  it('uses a turn the host opened', async () => {
    const runner = new HookRunner();
    const turn = runner.beginTurn();
    const outcome = await runner.dispatchPreTurn('x', turn);
    expect(outcome.turn).toBe(turn);
  });
});

describe('preToolCall', () => {
  it('chains modifiedArgs: each hook sees the previous changes, and the outcome carries them all', async () => {
    const runner = new HookRunner({ logger: spyLogger() });
    const seen: HookToolCall[] = [];
    runner.register(
      hooks.preToolCall((call) => {
        seen.push(call);
        return { allow: true, modifiedArgs: { CommandLine: `${call.args.CommandLine} -la` } };
      }),
      hooks.preToolCall((call) => {
        seen.push(call);
        // camelCase key lands on agy's `Cwd`
        return { allow: true, modifiedArgs: { cwd: '/safe', Timeout: 5 } };
      }),
      hooks.preToolCall((call) => {
        seen.push(call);
        return true;
      }),
    );
    const call = runCommand('ls', { Cwd: '/w', Keep: 'me' });
    const outcome = await runner.dispatchPreToolCall(runner.beginTurn(), call);

    expect(seen[0]).toEqual(call);
    expect(seen[1]?.args).toEqual({ CommandLine: 'ls -la', Cwd: '/w', Keep: 'me' });
    expect(seen[1]?.normalizedArgs).toEqual({ commandLine: 'ls -la', cwd: '/w', keep: 'me' });
    expect(seen[2]?.args).toEqual({ CommandLine: 'ls -la', Cwd: '/safe', Keep: 'me', Timeout: 5 });
    expect(outcome.allow).toBe(true);
    expect(outcome.modifiedArgs).toEqual({ CommandLine: 'ls -la', Cwd: '/safe', Timeout: 5 });
    expect(outcome.call.args).toEqual({ CommandLine: 'ls -la', Cwd: '/safe', Keep: 'me', Timeout: 5 });
    expect(call.args).toEqual({ CommandLine: 'ls', Cwd: '/w', Keep: 'me' }); // input untouched
  });

  it('no modifications → no modifiedArgs; a change reverted later drops out of the delta', async () => {
    const runner = new HookRunner();
    runner.register(hooks.preToolCall(() => ({ allow: true })));
    expect((await runner.dispatchPreToolCall(runner.beginTurn(), runCommand())).modifiedArgs).toBeUndefined();

    const runner2 = new HookRunner();
    runner2.register(
      hooks.preToolCall(() => ({ allow: true, modifiedArgs: { CommandLine: 'pwd', A: 1 } })),
      hooks.preToolCall(() => ({ allow: true, modifiedArgs: { CommandLine: 'ls' } })),
    );
    const outcome = await runner2.dispatchPreToolCall(runner2.beginTurn(), runCommand('ls'));
    expect(outcome.modifiedArgs).toEqual({ A: 1 });
  });

  it('the first deny wins and stops the chain', async () => {
    const runner = new HookRunner();
    const later = vi.fn(() => true);
    runner.register(
      hooks.preToolCall(() => ({ allow: true, modifiedArgs: { CommandLine: 'x' } })),
      hooks.preToolCall(() => ({ allow: false, message: 'nope' }), { name: 'blocker' }),
      hooks.preToolCall(later),
    );
    const outcome = await runner.dispatchPreToolCall(runner.beginTurn(), runCommand());
    expect(outcome).toMatchObject({ allow: false, message: 'nope', hook: 'blocker' });
    expect(outcome.modifiedArgs).toBeUndefined();
    expect(later).not.toHaveBeenCalled();
  });

  it('a throwing hook (sync or async) denies, naming the hook and the error', async () => {
    const logger = spyLogger();
    const runner = new HookRunner({ logger });
    runner.register(
      hooks.preToolCall(function audit() {
        throw new TypeError('bad input');
      }),
    );
    const outcome = await runner.dispatchPreToolCall(runner.beginTurn(), runCommand());
    expect(outcome).toMatchObject({ allow: false, hook: 'audit', message: "Hook 'audit' failed: bad input" });
    expect(logger.error).toHaveBeenCalledWith(expect.stringContaining("'audit'"), expect.any(TypeError));

    const runner2 = new HookRunner({ logger });
    runner2.register(hooks.preToolCall(async () => Promise.reject('plain string'), { name: 'p' }));
    expect((await runner2.dispatchPreToolCall(runner2.beginTurn(), runCommand())).message).toBe(
      "Hook 'p' failed: plain string",
    );
  });

  it('in-place mutation of the args is not a modification', async () => {
    const runner = new HookRunner();
    runner.register(
      hooks.preToolCall((call) => {
        call.args.CommandLine = 'rm -rf /';
        return true;
      }),
      hooks.preToolCall((call) => call.args.CommandLine === 'ls'),
    );
    const original = runCommand('ls');
    const outcome = await runner.dispatchPreToolCall(runner.beginTurn(), original);
    expect(outcome.allow).toBe(true);
    expect(outcome.modifiedArgs).toBeUndefined();
    expect(original.args.CommandLine).toBe('ls');
  });

  it('invalid modifiedArgs deny', async () => {
    const runner = new HookRunner({ logger: spyLogger() });
    runner.register(hooks.preToolCall(() => ({ allow: true, modifiedArgs: ['x'] as never }), { name: 'm' }));
    const outcome = await runner.dispatchPreToolCall(runner.beginTurn(), runCommand());
    expect(outcome.allow).toBe(false);
    expect(outcome.message).toContain("'m'");
  });

  it('works with hand-written hook objects and gives them an operation context tied to the call', async () => {
    const contexts: OperationContext[] = [];
    const guard: PreToolCallHook = {
      kind: 'preToolCall',
      category: 'decide',
      name: 'Guard',
      run(call: HookToolCall, ctx: OperationContext): PreToolCallDecision {
        contexts.push(ctx);
        return { allow: call.normalizedArgs.commandLine !== 'rm -rf /', message: 'too dangerous' };
      },
    };
    const runner = new HookRunner({ hooks: [guard] });
    const outcome = await runner.dispatchPreToolCall(runner.beginTurn(), runCommand('rm -rf /'));
    expect(outcome).toMatchObject({ allow: false, message: 'too dangerous', hook: 'Guard' });
    expect(contexts[0]).toBe(outcome.operation);
    expect(outcome.operation.toolCallId).toBe('conv:1');
  });
});

describe('inspect hooks', () => {
  it('a throwing inspect hook is logged and the others still run', async () => {
    const logger = spyLogger();
    const runner = new HookRunner({ logger });
    const calls: string[] = [];
    runner.register(
      hooks.postToolCall(() => {
        calls.push('a');
      }),
      hooks.postToolCall(
        async () => {
          calls.push('b');
          throw new Error('metrics down');
        },
        { name: 'metrics' },
      ),
      hooks.postToolCall(() => {
        calls.push('c');
      }),
    );
    const turn = runner.beginTurn();
    const call = runCommand();
    await expect(
      runner.dispatchPostToolCall(turn.startOperation(call.id), { call, output: 'a\nb' }),
    ).resolves.toBeUndefined();
    expect(calls).toEqual(['a', 'b', 'c']);
    expect(logger.error).toHaveBeenCalledOnce();
    expect(logger.error.mock.calls[0]?.[0]).toContain("'metrics'");
  });

  it('session, postTurn and compaction hooks receive their data and context', async () => {
    const runner = new HookRunner({ conversationId: 'conv' });
    const seen: unknown[] = [];
    runner.register(
      hooks.onSessionStart((info, ctx) => {
        seen.push(['start', info.conversationId, ctx === runner.session]);
      }),
      hooks.onSessionEnd((info) => {
        seen.push(['end', info.conversationId]);
      }),
      hooks.postTurn((text, ctx) => {
        seen.push(['postTurn', text, ctx.turn]);
      }),
      hooks.onCompaction((event, ctx) => {
        seen.push(['compaction', event.summary, ctx.turn]);
      }),
    );
    await runner.dispatchSessionStart();
    const turn = runner.beginTurn();
    await runner.dispatchPostTurn(turn, 'done');
    await runner.dispatchCompaction(turn, { summary: 'short', stepIndex: 3 });
    await runner.dispatchSessionEnd();
    expect(seen).toEqual([
      ['start', 'conv', true],
      ['postTurn', 'done', 1],
      ['compaction', 'short', 1],
      ['end', 'conv'],
    ]);
  });

  it('state set in a session hook is visible to tool hooks; tool-hook state does not leak up', async () => {
    const runner = new HookRunner();
    runner.register(
      hooks.onSessionStart((_info, ctx) => {
        ctx.set('budget', 2);
      }),
      hooks.preToolCall((_call, ctx) => {
        ctx.set('checked', true);
        return ctx.get<number>('budget') === 2;
      }),
      hooks.postToolCall((_result, ctx) => {
        ctx.set('seenPost', ctx.get('checked'));
      }),
    );
    await runner.dispatchSessionStart();
    const turn = runner.beginTurn();
    const call = runCommand();
    const pre = await runner.dispatchPreToolCall(turn, call);
    expect(pre.allow).toBe(true);
    await runner.dispatchPostToolCall(pre.operation, { call: pre.call, output: '' });
    expect(pre.operation.get('seenPost')).toBe(true); // same operation context for pre and post
    expect(turn.get('checked')).toBeUndefined();
    expect(runner.session.get('checked')).toBeUndefined();
  });
});

describe('transform hooks', () => {
  it('onToolError: the first non-null/undefined return wins; throwing hooks are logged and skipped', async () => {
    const logger = spyLogger();
    const runner = new HookRunner({ logger });
    const last = vi.fn(() => 'never');
    runner.register(
      hooks.onToolError(() => undefined),
      hooks.onToolError(() => null),
      hooks.onToolError(() => {
        throw new Error('broken');
      }),
      hooks.onToolError(async (event) => `Command failed (${event.error.message}); try --dry-run`),
      hooks.onToolError(last),
    );
    const call = runCommand('false');
    const op = runner.beginTurn().startOperation(call.id);
    const replaced = await runner.dispatchToolError(op, { call, error: { message: 'exit status 1' } });
    expect(replaced).toBe('Command failed (exit status 1); try --dry-run');
    expect(last).not.toHaveBeenCalled();
    expect(logger.error).toHaveBeenCalledOnce();
  });

  it('onToolError: no hook answers → undefined (keep the original error)', async () => {
    const runner = new HookRunner();
    runner.register(hooks.onToolError(() => undefined));
    const call = runCommand();
    const op = runner.beginTurn().startOperation(call.id);
    expect(await runner.dispatchToolError(op, { call, error: { message: 'x' } })).toBeUndefined();
  });

  it('onInteraction: the first answer of the matching kind wins; mismatched answers are ignored', async () => {
    const logger = spyLogger();
    const runner = new HookRunner({ logger });
    runner.register(
      hooks.onInteraction(() => ({ kind: 'question', answers: [] })), // wrong kind for a confirmation
      hooks.onInteraction((request) =>
        request.kind === 'confirmation' ? { kind: 'confirmation', accepted: true } : undefined,
      ),
    );
    const outcome = await runner.dispatchInteraction(runner.beginTurn(), {
      kind: 'confirmation',
      message: 'Run ls?',
      call: runCommand(),
    });
    expect(outcome.response).toEqual({ kind: 'confirmation', accepted: true });
    expect(outcome.operation.toolCallId).toBe('conv:1');
    expect(logger.warn).toHaveBeenCalledOnce();

    const question = await runner.dispatchInteraction(runner.beginTurn(), {
      kind: 'question',
      questions: [{ question: 'Which?', options: [{ id: 'a', text: 'A' }] }],
    });
    expect(question.response).toEqual({ kind: 'question', answers: [] });
  });

  it('onInteraction: nobody answers → no response', async () => {
    const runner = new HookRunner();
    const outcome = await runner.dispatchInteraction(runner.beginTurn(), { kind: 'question', questions: [] });
    expect(outcome.response).toBeUndefined();
  });
});

describe('stop hooks', () => {
  it('no hooks or only allow_stop/undefined → allow_stop', async () => {
    const runner = new HookRunner();
    expect(await runner.dispatchStop(runner.beginTurn(), {})).toEqual({ decision: 'allow_stop' });
    runner.register(
      hooks.stop(() => ({ decision: 'allow_stop' })),
      hooks.stop(() => undefined),
    );
    expect(await runner.dispatchStop(runner.beginTurn(), {})).toEqual({ decision: 'allow_stop' });
  });

  it('the first continue with a reason wins', async () => {
    const runner = new HookRunner();
    const later = vi.fn(() => ({ decision: 'continue' as const, reason: 'second' }));
    runner.register(
      hooks.stop(() => ({ decision: 'allow_stop' })),
      hooks.stop(
        (event) =>
          event.responseText?.includes('TODO')
            ? { decision: 'continue', reason: 'finish the TODOs' }
            : undefined,
        {
          name: 'todo',
        },
      ),
      hooks.stop(later),
    );
    expect(await runner.dispatchStop(runner.beginTurn(), { responseText: 'TODO: tests' })).toEqual({
      decision: 'continue',
      reason: 'finish the TODOs',
      hook: 'todo',
    });
    expect(later).not.toHaveBeenCalled();
  });

  it('continue needs a reason: an empty reason is a hook error → allow stop, logged', async () => {
    const logger = spyLogger();
    const runner = new HookRunner({ logger });
    runner.register(hooks.stop(() => ({ decision: 'continue', reason: '  ' }), { name: 'lazy' }));
    expect(await runner.dispatchStop(runner.beginTurn(), {})).toEqual({ decision: 'allow_stop' });
    expect(logger.error).toHaveBeenCalledWith(expect.stringContaining("'lazy'"));

    // ...and a later valid continue still wins.
    runner.register(hooks.stop(() => ({ decision: 'continue', reason: 'keep going' }), { name: 'ok' }));
    expect(await runner.dispatchStop(runner.beginTurn(), {})).toMatchObject({
      decision: 'continue',
      hook: 'ok',
    });
  });

  it('a throwing or invalid stop hook counts as allow_stop and is logged', async () => {
    const logger = spyLogger();
    const runner = new HookRunner({ logger });
    runner.register(
      hooks.stop(() => {
        throw new Error('boom');
      }),
      hooks.stop(() => ({ decision: 'maybe' }) as never),
    );
    expect(await runner.dispatchStop(runner.beginTurn(), {})).toEqual({ decision: 'allow_stop' });
    expect(logger.error).toHaveBeenCalledOnce();
    expect(logger.warn).toHaveBeenCalledOnce();
  });
});
