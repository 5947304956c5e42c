// The hook payloads real agy 1.3.0 sent, fed verbatim (the captured bytes) through the listener's hook routes
// over real HTTP into the control plane, and what the typed hooks receive from them. The captures are
// agy-real/hooks-anti-samcheonpo-agy-1.3.0/*.json: no `hookEventName`, no `stepIdx` on PreInvocation and
// Stop, PostToolUse with only `error`, tool args with `toolAction`/`toolSummary`/`Cwd`/`WaitMsBeforeAsync`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlPlane } from '../../../src/agent/control-plane.js';
import { AgyHookHandlers } from '../../../src/connection/agy/hook-handlers.js';
import { SessionRuntime } from '../../../src/connection/agy/session/session-runtime.js';
import { hooks } from '../../../src/hooks/factories.js';
import type { Hook } from '../../../src/hooks/kinds.js';
import type { HookToolCall, HookToolResult, StopEvent, ToolErrorEvent } from '../../../src/hooks/types.js';
import type { Step } from '../../../src/model/step.js';
import type { TurnResult } from '../../../src/model/turn-result.js';
import { AGY_REAL } from '../../helpers/captures.js';
import { deferred, recordingLogger } from '../../helpers/runtime-files.js';
import { useSandbox } from '../../helpers/sandbox.js';

const CAPTURES = join(AGY_REAL, 'hooks-anti-samcheonpo-agy-1.3.0');
const HAVE_CAPTURES = existsSync(CAPTURES);

/** A capture file's exact bytes. */
const capture = (name: string): Buffer => readFileSync(join(CAPTURES, name));
const parsed = (name: string): Record<string, unknown> =>
  JSON.parse(capture(name).toString('utf8')) as Record<string, unknown>;

const sb = useSandbox();

/** A control plane wired to a real session listener, as the Agent wires them. */
async function plane(typedHooks: Hook[]) {
  const logger = recordingLogger();
  const cp = new ControlPlane({
    hooks: typedHooks,
    policies: [],
    mcpServers: {},
    steering: true,
    logger,
  });
  const agy = new AgyHookHandlers(cp, { hasOwnTools: false });
  const runtime = await SessionRuntime.create({
    dataDir: sb.box.dataDir,
    env: { PATH: process.env.PATH, HOME: sb.box.root },
    logger,
    hooks: agy.registrations(),
    hookEndpoint: agy,
    hookRelay: 'node',
  });
  sb.defer(() => runtime.close());
  /** POSTs `body` to the route of `event`, as the hook command registered for that event does. */
  const post = async (event: string, body: Buffer): Promise<unknown> => {
    const res = await fetch(runtime.listener!.hookUrl(event), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return res.json();
  };
  return { cp, post, logger };
}

/** A finished turn as the connection would report it (only what endTurn reads matters here). */
function result(): TurnResult {
  return {
    status: 'success',
    text: 'done',
    usage: null,
    totalUsage: null,
    deniedActions: [],
    toolCalls: [],
    exitCode: null,
    signal: null,
    stderrTail: '',
    result: null,
    structuredOutput: undefined,
    conversationId: 'e6e61b4b-164c-4879-b004-4d1246421708',
    durationMs: 1,
    errorMessage: '',
  };
}

const TRANSCRIPT =
  '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708/.system_generated/logs/transcript_full.jsonl';

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES
    ? 'real agy 1.3.0 hook payloads through the listener'
    : 'real agy 1.3.0 hook payloads — SKIPPED: ../shared/fixtures/agy-real is absent',
  () => {
    it('no payload names its event: the route it arrives on decides which typed hook runs', async () => {
      for (const name of [
        'PreToolUse-step2.json',
        'PostToolUse-step2.json',
        'PreInvocation-0.json',
        'Stop.json',
      ]) {
        expect(parsed(name)).not.toHaveProperty('hookEventName');
      }
      const pre: HookToolCall[] = [];
      const post: HookToolResult[] = [];
      const stops: StopEvent[] = [];
      const { cp, post: send } = await plane([
        hooks.preToolCall((call) => {
          pre.push(call);
          return true;
        }),
        hooks.postToolCall((r) => void post.push(r)),
        hooks.stop((e) => {
          stops.push(e);
          return { decision: 'allow_stop' };
        }),
      ]);
      await cp.beginTurn('run');
      // The same bytes on two routes: PreToolUse-step2.json as a PreToolUse, then as a PostToolUse call.
      expect(await send('PreToolUse', capture('PreToolUse-step2.json'))).toEqual({ decision: 'allow' });
      expect(await send('PostToolUse', capture('PreToolUse-step2.json'))).toEqual({});
      expect(pre).toHaveLength(1);
      expect(post).toHaveLength(1);
      expect(stops).toHaveLength(0);
      expect(await send('Stop', capture('Stop.json'))).toEqual({});
      expect(stops).toHaveLength(1);
      expect(pre).toHaveLength(1);
    });

    it('PreToolUse: preToolCall sees the call with stepIndex, toolAction/toolSummary, Cwd and the agy origin', async () => {
      const seen: HookToolCall[] = [];
      const { cp, post } = await plane([
        hooks.preToolCall((call) => {
          if (call.args.CommandLine === 'false') return { allow: false, message: 'no false here' };
          seen.push(call);
          return true;
        }),
      ]);
      await cp.beginTurn('run');
      for (const file of [
        'PreToolUse-step2.json',
        'PreToolUse-step4.json',
        'PreToolUse-write_to_file.json',
      ]) {
        expect(await post('PreToolUse', capture(file))).toEqual({ decision: 'allow' });
      }
      expect(seen[0]).toMatchObject({
        id: 'e6e61b4b-164c-4879-b004-4d1246421708:2',
        name: 'run_command',
        stepIndex: 2,
        action: 'Running echo EMPTYOUT',
        summary: 'Run echo EMPTYOUT',
        args: {
          CommandLine: 'echo EMPTYOUT',
          Cwd: '/work/proj',
          WaitMsBeforeAsync: 5000,
          toolAction: 'Running echo EMPTYOUT',
          toolSummary: 'Run echo EMPTYOUT',
        },
        normalizedArgs: { commandLine: 'echo EMPTYOUT', cwd: '/work/proj', waitMsBeforeAsync: 5000 },
        agy: {
          conversationId: 'e6e61b4b-164c-4879-b004-4d1246421708',
          modelName: 'gemini-3.8-flash-high',
          transcriptPath: TRANSCRIPT,
          workspacePaths: ['/work/proj'],
          artifactDirectoryPath:
            '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708',
        },
      });
      expect(seen[0]?.agy?.transcriptPath).toMatch(/\/transcript_full\.jsonl$/);
      expect(seen[1]).toMatchObject({ stepIndex: 4, action: 'Running echo ASKOUT' });
      expect(seen[2]).toMatchObject({
        name: 'write_to_file',
        stepIndex: 6,
        action: 'Writing b.txt',
        summary: 'Create b.txt',
        normalizedArgs: { targetFile: '/work/proj/b.txt', overwrite: true },
      });
      // A deny reaches agy as an explicit decision and lands in the turn's deniedActions.
      expect(await post('PreToolUse', capture('PreToolUse-step6.json'))).toEqual({
        decision: 'deny',
        reason: 'no false here',
      });
      const ended = await cp.endTurn(result());
      expect(ended.status).toBe('denied');
      expect(ended.deniedActions).toEqual([
        expect.objectContaining({ action: 'run_command', source: 'sdk', reason: 'no false here' }),
      ]);
    });

    it('PostToolUse: postToolCall gets the call, no output and no error, even for a command that failed', async () => {
      const pre: HookToolCall[] = [];
      const post: HookToolResult[] = [];
      const errors: ToolErrorEvent[] = [];
      const { cp, post: send } = await plane([
        hooks.preToolCall((call) => {
          pre.push(call);
          return true;
        }),
        hooks.postToolCall((r) => void post.push(r)),
        hooks.onToolError((e) => void errors.push(e)),
      ]);
      await cp.beginTurn('run');
      for (const step of [2, 4, 6]) {
        await send('PreToolUse', capture(`PreToolUse-step${step}.json`));
        expect(await send('PostToolUse', capture(`PostToolUse-step${step}.json`))).toEqual({});
      }
      expect(post.map((r) => r.call.stepIndex)).toEqual([2, 4, 6]);
      for (const r of post) {
        expect(r).not.toHaveProperty('output');
        expect(r.error).toBeUndefined();
      }
      // Step 6 ran `false` (exit 1, transcript_full.jsonl step 6), yet agy's `error` is "": onToolError
      // cannot see built-in command failures.
      expect(post[2]?.call).toMatchObject({ name: 'run_command', args: { CommandLine: 'false' } });
      expect(errors).toEqual([]);
    });

    it('Stop: the stop hook sees terminationReason, executionNum, fullyIdle and the transcript, no error', async () => {
      const stops: StopEvent[] = [];
      const { cp, post } = await plane([
        hooks.stop((e) => {
          stops.push(e);
          return (e.continuationCount ?? 0) < 1
            ? { decision: 'continue', reason: 'check the output again' }
            : { decision: 'allow_stop' };
        }),
      ]);
      await cp.beginTurn('run');
      expect(await post('Stop', capture('Stop.json'))).toEqual({
        decision: 'continue',
        reason: 'check the output again',
      });
      expect(await post('Stop', capture('Stop.json'))).toEqual({});
      expect(stops[0]).toEqual({
        terminationReason: 'NO_TOOL_CALL',
        executionNum: 0,
        fullyIdle: true,
        continuationCount: 0,
        agy: expect.objectContaining({ transcriptPath: TRANSCRIPT, workspacePaths: ['/work/proj'] }),
      });
      // The call has no stepIdx: it was charged to the turn running, whose count went up.
      expect(stops[1]?.continuationCount).toBe(1);
    });

    it('PreInvocation: next-step steering is injected at the next model call, once', async () => {
      const { cp, post } = await plane([]);
      await cp.beginTurn('run');
      cp.steering.push('also print the date');
      expect(await post('PreInvocation', capture('PreInvocation-0.json'))).toEqual({
        injectSteps: [{ userMessage: 'also print the date' }],
      });
      expect(await post('PreInvocation', capture('PreInvocation-1.json'))).toEqual({});
      expect(await post('PreInvocation', capture('PreInvocation-3.json'))).toEqual({});
    });

    it('PreInvocation between turns (no stepIdx, no turn) leaves queued steering for the next prompt', async () => {
      const { cp, post } = await plane([]);
      await cp.beginTurn('one');
      await cp.endTurn(result());
      cp.steering.push('for the next turn');
      expect(await post('PreInvocation', capture('PreInvocation-3.json'))).toEqual({});
      expect(cp.steering.take()).toEqual(['for the next turn']);
    });

    it('a Stop (no stepIdx) is charged to the turn it arrived in; between turns it just lets agy stop', async () => {
      const stops: StopEvent[] = [];
      const entered = deferred();
      const release = deferred();
      const { cp, post } = await plane([
        hooks.stop(async (e) => {
          stops.push(e);
          if (stops.length === 1) {
            entered.resolve();
            await release.promise;
          }
          return { decision: 'continue', reason: 'go on' };
        }),
      ]);
      await cp.beginTurn('one');
      const slow = post('Stop', capture('Stop.json'));
      await entered.promise;
      await cp.endTurn(result());
      // Between turns: no turn to continue, so no stop hook runs and agy may stop.
      expect(await post('Stop', capture('Stop.json'))).toEqual({});
      await cp.beginTurn('two');
      release.resolve();
      expect(await slow).toEqual({ decision: 'continue', reason: 'go on' });
      await post('Stop', capture('Stop.json'));
      // Turn one's late continue was not counted in turn two.
      expect(stops.map((s) => s.continuationCount)).toEqual([0, 0]);
    });

    it('a late PreToolUse from an ended turn is denied and never charged to the next turn', async () => {
      const { cp, post } = await plane([hooks.preToolCall(() => ({ allow: false, message: 'never' }))]);
      await cp.beginTurn('one');
      // Turn one's steps went up to 6 (agy-real/hooks-anti-samcheonpo-agy-1.3.0/transcript_full.jsonl).
      cp.onStep({ stepIndex: 6, type: 'tool_call', state: 'DONE' } as Step);
      await cp.endTurn(result());
      await cp.beginTurn('two');
      // PreToolUse-step2.json belongs to turn one (stepIdx 2 <= 6).
      expect(await post('PreToolUse', capture('PreToolUse-step2.json'))).toEqual({
        decision: 'deny',
        reason: 'the turn that made this call has ended',
      });
      const two = await cp.endTurn(result());
      expect(two.status).toBe('success');
      expect(two.deniedActions).toEqual([]);
    });

    it('a slow PreToolUse answer from turn one is not charged to turn two', async () => {
      const entered = deferred();
      const release = deferred();
      const { cp, post } = await plane([
        hooks.preToolCall(async () => {
          entered.resolve();
          await release.promise;
          return { allow: false, message: 'too late' };
        }),
      ]);
      await cp.beginTurn('one');
      const answer = post('PreToolUse', capture('PreToolUse-step2.json'));
      await entered.promise;
      const one = await cp.endTurn(result());
      await cp.beginTurn('two');
      release.resolve();
      expect(await answer).toEqual({ decision: 'deny', reason: 'too late' });
      expect(one.deniedActions).toEqual([]);
      expect((await cp.endTurn(result())).deniedActions).toEqual([]);
    });
  },
);
