// The bash relay (bash's /dev/tcp, for machines without curl), run as agy runs hook commands
// (docs/reference/hooks.md#hook-commands): the script exec'd with an empty environment, the hook JSON on
// stdin, the reply on stdout. Its failure paths must fail closed exactly like the curl and Node relays
// (docs/reference/hooks.md#hook-relay): never an empty answer, a deny for PreToolUse, `{}` otherwise.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBash } from '../../../../src/connection/agy/session/hook-commands.js';
import {
  SessionRuntime,
  type SessionRuntimeOptions,
} from '../../../../src/connection/agy/session/session-runtime.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../../../src/connection/tool-server/listener-body.js';
import type { AgyHookInput, AgyHookRegistration } from '../../../../src/protocol/hook-wire.js';
import { recordingLogger, runHook } from '../../../helpers/runtime-files.js';
import { useSandbox } from '../../../helpers/sandbox.js';

const BASH = findBash(process.env);
const sb = useSandbox();

const script = (runtime: SessionRuntime, event: string) => join(runtime.dir.path, 'hooks', `${event}.sh`);

async function create(
  hooks: AgyHookRegistration[],
  options: Partial<SessionRuntimeOptions> = {},
): Promise<SessionRuntime> {
  const runtime = await SessionRuntime.create({
    dataDir: sb.box.dataDir,
    env: { PATH: process.env.PATH, HOME: sb.box.root },
    logger: recordingLogger(),
    hooks,
    hookRelay: 'bash',
    ...options,
  });
  sb.defer(() => runtime.close());
  return runtime;
}

/** A PreToolUse handler that answers with what it received, so the test sees the input as the host got it. */
function echoing(seen: AgyHookInput[]): AgyHookRegistration {
  return {
    event: 'PreToolUse',
    handler: (input) => {
      seen.push(input);
      const args = input.toolCall?.args as { text: string };
      return { decision: 'deny', reason: `got ${args.text.length} chars: ${args.text.slice(0, 8)}` };
    },
  };
}

describe.skipIf(!BASH)(
  BASH ? 'hook relay: bash /dev/tcp' : 'hook relay: bash — SKIPPED: bash is not on PATH',
  () => {
    it('is the automatic choice when curl is not on PATH and bash is', async () => {
      // A PATH holding bash (and cat) but no curl.
      const bin = join(sb.box.root, 'bin');
      await mkdir(bin);
      await symlink(BASH!, join(bin, 'bash'));
      const runtime = await create([{ event: 'PreToolUse', handler: () => ({ decision: 'allow' }) }], {
        env: { PATH: bin, HOME: sb.box.root },
        hookRelay: 'auto',
      });
      const text = await readFile(script(runtime, 'PreToolUse'), 'utf8');
      expect(text.split('\n')[0]).toBe(`#!${join(bin, 'bash')}`);
      const run = await runHook(script(runtime, 'PreToolUse'), { toolCall: { name: 'x', args: {} } });
      expect(JSON.parse(run.stdout)).toEqual({ decision: 'allow' });
    });

    it('carries non-ASCII input and answers byte for byte (Content-Length counts bytes, not characters)', async () => {
      const seen: AgyHookInput[] = [];
      const runtime = await create([echoing(seen)]);
      const text = 'é🌍ñ “quotes” \\ $(echo no) `no` 中文';
      const run = await runHook(script(runtime, 'PreToolUse'), { toolCall: { name: 'x', args: { text } } });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        decision: 'deny',
        reason: `got ${text.length} chars: ${text.slice(0, 8)}`,
      });
      expect(seen[0]!.toolCall?.args).toEqual({ text });
    });

    it('relays a large input intact (past the 16 KiB read-builtin part) and fails closed past the body limit', async () => {
      const seen: AgyHookInput[] = [];
      const runtime = await create([echoing(seen)]);
      // ~1.5 MB of two-byte characters: under the 4 MiB limit.
      const text = 'é'.repeat(750_000);
      const ok = await runHook(script(runtime, 'PreToolUse'), { toolCall: { name: 'x', args: { text } } });
      expect(JSON.parse(ok.stdout)).toMatchObject({ reason: `got ${text.length} chars: éééééééé` });
      expect(seen[0]!.toolCall?.args).toEqual({ text });
      // Over the limit: the listener answers 413 before reading the body; the relay prints a deny.
      const huge = 'x'.repeat(DEFAULT_MAX_BODY_BYTES + 1024);
      const over = await runHook(script(runtime, 'PreToolUse'), {
        toolCall: { name: 'x', args: { text: huge } },
      });
      expect(over.code).toBe(0);
      expect(JSON.parse(over.stdout)).toEqual({ decision: 'deny', reason: 'agy-sdk hook relay failed' });
      expect(seen).toHaveLength(1);
    });

    it('fails closed when the listener is gone: a deny for PreToolUse, {} for Stop, never empty', async () => {
      const runtime = await create([
        { event: 'PreToolUse', handler: () => ({ decision: 'allow' }) },
        { event: 'Stop', handler: () => ({ decision: 'continue', reason: 'r' }) },
      ]);
      await runtime.listener!.close();
      const pre = await runHook(script(runtime, 'PreToolUse'), { toolCall: { name: 'x', args: {} } });
      const stop = await runHook(script(runtime, 'Stop'), {});
      expect(pre.code).toBe(0);
      const answer = JSON.parse(pre.stdout) as { decision: string; reason: string };
      expect(answer.decision).toBe('deny');
      expect(answer.reason).toMatch(/^agy-sdk hook relay failed/);
      expect(stop.code).toBe(0);
      expect(JSON.parse(stop.stdout)).toEqual({});
    });

    it('fails closed on an HTTP error (a wrong token is a 404), without running the handler', async () => {
      let calls = 0;
      const runtime = await create([
        {
          event: 'PreToolUse',
          handler: () => {
            calls += 1;
            return { decision: 'allow' };
          },
        },
      ]);
      const conf = join(runtime.dir.path, 'hooks', 'PreToolUse.tcp');
      const [port, path, wait] = (await readFile(conf, 'utf8')).split('\n');
      await writeFile(conf, `${port}\n${path!.replace(/^\/[^/]+/, '/wrong-token')}\n${wait}\n`);
      const run = await runHook(script(runtime, 'PreToolUse'), { toolCall: { name: 'x', args: {} } });
      expect(JSON.parse(run.stdout)).toEqual({ decision: 'deny', reason: 'agy-sdk hook relay failed' });
      expect(calls).toBe(0);
    });

    it('falls back to the Node relay when /dev/tcp cannot be opened (a bash built without it)', async () => {
      const runtime = await create([{ event: 'PreToolUse', handler: () => ({ decision: 'allow' }) }]);
      // An unusable port makes the /dev/tcp open fail the way an unsupported build does; the Node relay
      // still reaches the listener through its own private config.
      const conf = join(runtime.dir.path, 'hooks', 'PreToolUse.tcp');
      const [, path, wait] = (await readFile(conf, 'utf8')).split('\n');
      await writeFile(conf, `not-a-port\n${path}\n${wait}\n`);
      const run = await runHook(script(runtime, 'PreToolUse'), { toolCall: { name: 'x', args: {} } });
      expect(JSON.parse(run.stdout)).toEqual({ decision: 'allow' });
    });

    it("is refused with a ConfigError when 'bash' is asked for and bash is not on PATH", async () => {
      await expect(
        create([{ event: 'PreToolUse', handler: () => ({ decision: 'allow' }) }], {
          env: { PATH: join(sb.box.root, 'nothing-here'), HOME: sb.box.root },
        }),
      ).rejects.toThrow(/'bash' was requested but bash is not on PATH/);
    });
  },
);
