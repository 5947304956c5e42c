// The generated hook commands, run for real the way agy runs them (docs/reference/hooks.md#hook-commands): the absolute script path
// exec'd without a shell and with an empty environment, agy's hook JSON on stdin, the reply read from
// stdout. Every relay: curl (when installed), bash's /dev/tcp (when bash is) and the Node relay.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBash, findCurl } from '../../../../src/connection/agy/session/hook-commands.js';
import {
  SessionRuntime,
  type SessionRuntimeOptions,
} from '../../../../src/connection/agy/session/session-runtime.js';
import { shellCommand, shellQuote } from '../../../../src/platform/posix-shell-quote.js';
import type { AgyHookInput, AgyHookRegistration } from '../../../../src/protocol/hook-wire.js';
import {
  deferred,
  procStrings,
  recordingLogger,
  runHook,
  startHook,
  walkTree,
} from '../../../helpers/runtime-files.js';
import { useSandbox } from '../../../helpers/sandbox.js';

const CURL = findCurl(process.env);
const BASH = findBash(process.env);

const sb = useSandbox();

const preToolUse = {
  hookEventName: 'PreToolUse',
  conversationId: 'c',
  stepIdx: 3,
  toolCall: { name: 'run_command', args: { CommandLine: 'rm -rf /' } },
};

const script = (runtime: SessionRuntime, event: string) => join(runtime.dir.path, 'hooks', `${event}.sh`);

/** Parses a hook's stdout, failing with everything it printed when it is not the JSON reply. */
function reply(run: { code: number | null; stdout: string; stderr: string }): unknown {
  expect(run, `stderr: ${run.stderr}`).toMatchObject({ code: 0 });
  return JSON.parse(run.stdout);
}

for (const relay of ['node', 'curl', 'bash'] as const) {
  const skip = (relay === 'curl' && !CURL) || (relay === 'bash' && !BASH);
  const title = skip
    ? `hook relay: ${relay} — SKIPPED: ${relay} is not on PATH, so the SDK would use another relay`
    : `hook relay: ${relay}`;

  describe.skipIf(skip)(title, () => {
    let logger: ReturnType<typeof recordingLogger>;
    async function create(
      hooks: AgyHookRegistration[],
      options: Partial<SessionRuntimeOptions> = {},
    ): Promise<SessionRuntime> {
      logger = recordingLogger();
      const runtime = await SessionRuntime.create({
        dataDir: sb.box.dataDir,
        env: { PATH: process.env.PATH, HOME: sb.box.root },
        logger,
        hooks,
        hookRelay: relay,
        ...options,
      });
      sb.defer(() => runtime.close());
      return runtime;
    }

    it('the script execs the chosen relay by absolute path, with its config in a private file', async () => {
      const runtime = await create([{ event: 'PreToolUse', handler: () => ({ decision: 'allow' }) }]);
      const text = await readFile(script(runtime, 'PreToolUse'), 'utf8');
      const ext = { curl: 'curl', bash: 'tcp', node: 'json' }[relay];
      const conf = join(runtime.dir.path, 'hooks', `PreToolUse.${ext}`);
      if (relay === 'bash') {
        // bash is the script's interpreter (no shell in between) and reads the private config itself.
        expect(text.startsWith(`#!${BASH}\n`)).toBe(true);
        expect(text).toContain(`< ${shellQuote(conf)}`);
        return;
      }
      // curl runs under the script's shell, which prints the fail-closed fallback if curl fails;
      // the Node relay prints its own fallback, so the script execs it.
      expect(text.startsWith(relay === 'curl' ? '#!/bin/sh\nout=$(' : '#!/bin/sh\nexec ')).toBe(true);
      // Every path is one shell word (bare when it has no shell syntax: see hook-commands.shell-safety.process.test.ts).
      expect(text).toContain(
        relay === 'curl' ? shellCommand([CURL!, '-K', conf]) : `exec ${shellCommand([process.execPath])} `,
      );
      expect(text).toContain(shellQuote(conf));
    });

    it('PreToolUse: allow, deny with reason (first deny wins), matchers select handlers', async () => {
      const seen: string[] = [];
      const runtime = await create([
        {
          event: 'PreToolUse',
          matcher: 'view_file',
          handler: () => {
            seen.push('view_file-only');
            return { decision: 'deny', reason: 'never for run_command' };
          },
        },
        {
          event: 'PreToolUse',
          matcher: 'run_command',
          handler: (input) => {
            seen.push(`guard:${String(input.toolCall?.args?.CommandLine)}`);
            return String(input.toolCall?.args?.CommandLine).includes('rm -rf')
              ? { decision: 'deny', reason: 'destructive command' }
              : { decision: 'allow' };
          },
        },
        {
          event: 'PreToolUse',
          handler: () => {
            seen.push('after-guard');
            return { decision: 'allow' };
          },
        },
      ]);
      expect(reply(await runHook(script(runtime, 'PreToolUse'), preToolUse))).toEqual({
        decision: 'deny',
        reason: 'destructive command',
      });
      expect(seen).toEqual(['guard:rm -rf /']);

      const safe = { ...preToolUse, toolCall: { name: 'run_command', args: { CommandLine: 'ls' } } };
      expect(reply(await runHook(script(runtime, 'PreToolUse'), safe))).toEqual({ decision: 'allow' });
      expect(seen).toEqual(['guard:rm -rf /', 'guard:ls', 'after-guard']);
    });

    it('PreToolUse: overwrites merge, and each handler sees the arguments as overwritten before it', async () => {
      const secondSaw = deferred<Record<string, unknown> | undefined>();
      const runtime = await create([
        {
          event: 'PreToolUse',
          matcher: 'run_command',
          handler: () => ({ decision: 'allow', overwrite: { CommandLine: 'echo safe' } }),
        },
        {
          event: 'PreToolUse',
          handler: (input) => {
            secondSaw.resolve(input.toolCall?.args);
            return { decision: 'allow', overwrite: { Cwd: '/tmp', Blocking: true } };
          },
        },
      ]);
      expect(reply(await runHook(script(runtime, 'PreToolUse'), preToolUse))).toEqual({
        decision: 'allow',
        overwrite: { CommandLine: 'echo safe', Cwd: '/tmp', Blocking: true },
      });
      expect(await secondSaw.promise).toEqual({ CommandLine: 'echo safe' });
    });

    it('PreToolUse: a handler that throws is an explicit deny; the input reached it intact', async () => {
      const got = deferred<AgyHookInput>();
      const runtime = await create([
        {
          event: 'PreToolUse',
          handler: (input) => {
            got.resolve(input);
            throw new Error('policy service down');
          },
        },
      ]);
      expect(reply(await runHook(script(runtime, 'PreToolUse'), preToolUse))).toEqual({
        decision: 'deny',
        reason: 'agy-sdk hook failed: policy service down',
      });
      expect(await got.promise).toEqual(preToolUse);
      // Contained, not swallowed: the failure is logged for the host.
      expect(logger.lines('warn').some((line) => line.includes('policy service down'))).toBe(true);
    });

    it('PreToolUse: a handler slower than hookTimeoutMs is denied, in time for agy', async () => {
      const runtime = await create([{ event: 'PreToolUse', handler: () => new Promise<never>(() => {}) }], {
        hookTimeoutMs: 200,
      });
      expect(reply(await runHook(script(runtime, 'PreToolUse'), preToolUse))).toEqual({
        decision: 'deny',
        reason: 'agy-sdk hook failed: hook PreToolUse timed out after 200 ms',
      });
    });

    it('PreInvocation injects the steps of every handler; PostToolUse answers {}', async () => {
      const postInput = deferred<AgyHookInput>();
      const runtime = await create([
        { event: 'PreInvocation', handler: () => ({ injectSteps: [{ userMessage: 'first' }] }) },
        {
          event: 'PreInvocation',
          handler: (input) =>
            input.invocationNum === 0 ? { injectSteps: [{ ephemeralMessage: 'turn start' }] } : undefined,
        },
        {
          event: 'PostToolUse',
          handler: (input) => {
            postInput.resolve(input);
            return undefined;
          },
        },
      ]);
      const pre = {
        hookEventName: 'PreInvocation',
        conversationId: 'c',
        invocationNum: 0,
        initialNumSteps: 2,
      };
      expect(reply(await runHook(script(runtime, 'PreInvocation'), pre))).toEqual({
        injectSteps: [{ userMessage: 'first' }, { ephemeralMessage: 'turn start' }],
      });
      const post = { ...preToolUse, hookEventName: 'PostToolUse', toolResult: { output: 'x' } };
      expect(reply(await runHook(script(runtime, 'PostToolUse'), post))).toEqual({});
      expect(await postInput.promise).toEqual(post);
    });

    it('a gated PreInvocation calls the listener only while its gate is open, and drains a large input when closed', async () => {
      let calls = 0;
      const runtime = await create(
        [
          {
            event: 'PreInvocation',
            handler: () => {
              calls++;
              return { injectSteps: [{ userMessage: 'steer' }] };
            },
          },
        ],
        { gatePreInvocation: true },
      );
      expect(runtime.preInvocationGated).toBe(true);
      const gate = join(runtime.dir.path, 'hooks', 'PreInvocation.open');
      const pre = {
        hookEventName: 'PreInvocation',
        conversationId: 'c',
        invocationNum: 0,
        initialNumSteps: 2,
      };
      // Closed (the start state): `{}` at once, no listener call. A 1 MiB input (past any pipe buffer) is read
      // to its end, so the writer never meets a closed pipe.
      const big = { ...pre, padding: 'x'.repeat(1 << 20) };
      const child = spawn(script(runtime, 'PreInvocation'), [], { env: {}, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
      });
      const writeError = new Promise<Error | undefined>((resolve) => {
        child.stdin.once('error', resolve);
        child.stdin.end(JSON.stringify(big), (error?: Error | null) => resolve(error ?? undefined));
      });
      const [code] = (await once(child, 'close')) as [number | null];
      expect(await writeError).toBeUndefined();
      expect({ code, stdout }).toEqual({ code: 0, stdout: '{}' });
      expect(calls).toBe(0);

      runtime.setPreInvocationGate(true);
      expect((await stat(gate)).mode & 0o777).toBe(0o600);
      expect(reply(await runHook(script(runtime, 'PreInvocation'), pre))).toEqual({
        injectSteps: [{ userMessage: 'steer' }],
      });
      expect(calls).toBe(1);

      runtime.setPreInvocationGate(false);
      runtime.setPreInvocationGate(false);
      expect(reply(await runHook(script(runtime, 'PreInvocation'), pre))).toEqual({});
      expect(calls).toBe(1);
    });

    it('without gatePreInvocation the PreInvocation command always calls the listener', async () => {
      let calls = 0;
      const runtime = await create([
        {
          event: 'PreInvocation',
          handler: () => {
            calls++;
            return undefined;
          },
        },
      ]);
      expect(runtime.preInvocationGated).toBe(false);
      runtime.setPreInvocationGate(false);
      const pre = {
        hookEventName: 'PreInvocation',
        conversationId: 'c',
        invocationNum: 0,
        initialNumSteps: 2,
      };
      expect(reply(await runHook(script(runtime, 'PreInvocation'), pre))).toEqual({});
      expect(calls).toBe(1);
    });

    it('Stop: continue with a reason keeps agy going; continue without one is refused ({})', async () => {
      let withReason = true;
      const runtime = await create([
        {
          event: 'Stop',
          handler: (input) =>
            input.terminationReason === 'NO_TOOL_CALL'
              ? { decision: 'continue', reason: withReason ? 'tests are still failing' : ' ' }
              : undefined,
        },
      ]);
      const stop = { hookEventName: 'Stop', conversationId: 'c', terminationReason: 'NO_TOOL_CALL' };
      expect(reply(await runHook(script(runtime, 'Stop'), stop))).toEqual({
        decision: 'continue',
        reason: 'tests are still failing',
      });
      withReason = false;
      expect(reply(await runHook(script(runtime, 'Stop'), stop))).toEqual({});
    });

    it('the token is in no script and no argv or environment of the running relay, only in 0600 files', async () => {
      const entered = deferred();
      const release = deferred();
      const runtime = await create([
        {
          event: 'PreToolUse',
          handler: async () => {
            entered.resolve();
            await release.promise;
            return { decision: 'allow' };
          },
        },
      ]);
      const token = runtime.listener!.token;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const running = startHook(script(runtime, 'PreToolUse'), preToolUse);
      sb.defer(() => {
        release.resolve();
      });
      await entered.promise; // the relay is connected and waiting for our answer: read it now
      // With curl the script's shell stays (it prints the fallback on failure); the relay is its child.
      const relayPid =
        relay === 'curl'
          ? Number(
              (await readFile(`/proc/${running.pid}/task/${running.pid}/children`, 'utf8'))
                .trim()
                .split(/\s+/)[0],
            )
          : running.pid;
      const argv = await procStrings(relayPid, 'cmdline');
      const environ = await procStrings(relayPid, 'environ');
      release.resolve();
      // It really is the relay (the script exec'd into it), not the shell.
      expect(argv[0]).toBe({ curl: CURL, bash: BASH, node: process.execPath }[relay]);
      expect(argv.join(' ')).not.toContain(token);
      expect(environ.join(' ')).not.toContain(token);
      expect(reply(await running.done)).toEqual({ decision: 'allow' });

      // Every file holding the token is private, and none of them is a script.
      const holders: string[] = [];
      for (const entry of await walkTree(runtime.dir.path)) {
        if (entry.kind !== 'file') continue;
        const content = await readFile(entry.path, 'utf8');
        if (entry.rel.endsWith('.sh')) expect(content, entry.rel).not.toContain(token);
        if (content.includes(token)) {
          holders.push(entry.rel);
          expect(entry.mode, entry.rel).toBe(0o600);
        }
      }
      expect(holders.sort()).toEqual(
        {
          curl: ['hooks/PreToolUse.curl'],
          // The bash relay's own config, and the Node relay's it falls back to without /dev/tcp.
          bash: ['hooks/PreToolUse.json', 'hooks/PreToolUse.tcp'],
          node: ['hooks/PreToolUse.json'],
        }[relay],
      );
    });

    it('ignores proxy settings in the environment: the token never goes to a proxy', async () => {
      const runtime = await create([{ event: 'PreToolUse', handler: () => ({ decision: 'allow' }) }]);
      // A proxy that refuses connections: if the relay used it, the call would fail.
      const proxy = 'http://127.0.0.1:9';
      const env = { http_proxy: proxy, HTTP_PROXY: proxy, all_proxy: proxy, ALL_PROXY: proxy };
      expect(reply(await runHook(script(runtime, 'PreToolUse'), preToolUse, env))).toEqual({
        decision: 'allow',
      });
    });

    it('with the listener gone, PreToolUse fails closed', async () => {
      const runtime = await create([
        { event: 'PreToolUse', handler: () => ({ decision: 'allow' }) },
        { event: 'Stop', handler: () => ({ decision: 'continue', reason: 'r' }) },
      ]);
      await runtime.listener!.close();
      const pre = await runHook(script(runtime, 'PreToolUse'), preToolUse);
      const stop = await runHook(script(runtime, 'Stop'), { hookEventName: 'Stop' });
      // Both relays answer an explicit deny: never an empty reply, which some agy versions treat as allow.
      expect(pre.code).toBe(0);
      const answer = JSON.parse(pre.stdout) as { decision: string; reason: string };
      expect(answer.decision).toBe('deny');
      expect(answer.reason).toMatch(/^agy-sdk hook relay failed/);
      expect(JSON.parse(stop.stdout)).toEqual({});
    });
  });
}
