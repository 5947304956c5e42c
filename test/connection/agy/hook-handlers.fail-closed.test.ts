// Raw `agyHooks` PreToolUse answers fail closed (issue 8): agy treats an unknown decision as a deny
// (docs/reference/hooks.md#pretooluse-answers: `{}`, `{"decision":""}` denied), so anything but nothing or a
// well-formed answer must reach agy as an explicit deny, logged, and recorded in the turn's deniedActions.
// The call is agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreToolUse-step2.json, posted over real HTTP.
import { describe, expect, it } from 'vitest';
import { ControlPlane } from '../../../src/agent/control-plane.js';
import { AgyHookHandlers } from '../../../src/connection/agy/hook-handlers.js';
import { SessionRuntime } from '../../../src/connection/agy/session/session-runtime.js';
import type { TurnResult } from '../../../src/model/turn-result.js';
import { policy } from '../../../src/policy/index.js';
import type { PolicyList } from '../../../src/policy/types.js';
import type { AgyHookRegistration } from '../../../src/protocol/hook-wire.js';
import { recordingLogger } from '../../helpers/runtime-files.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sb = useSandbox();

// agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreToolUse-step2.json (fields as captured).
const PAYLOAD = {
  artifactDirectoryPath: '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708',
  conversationId: 'e6e61b4b-164c-4879-b004-4d1246421708',
  modelName: 'gemini-3.8-flash-high',
  stepIdx: 2,
  toolCall: {
    args: {
      CommandLine: 'echo EMPTYOUT',
      Cwd: '/work/proj',
      WaitMsBeforeAsync: 5000,
      toolAction: 'Running echo EMPTYOUT',
      toolSummary: 'Run echo EMPTYOUT',
    },
    name: 'run_command',
  },
  transcriptPath:
    '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708/.system_generated/logs/transcript_full.jsonl',
  workspacePaths: ['/work/proj'],
};

/** One raw handler answering `answer`, wired as the Agent wires raw hooks and the control plane. */
async function answerOf(answer: () => unknown, policies: PolicyList = []) {
  const logger = recordingLogger();
  const cp = new ControlPlane({
    hooks: [],
    policies,
    mcpServers: {},
    steering: false,
    logger,
  });
  const raw: AgyHookRegistration = {
    event: 'PreToolUse',
    handler: answer as AgyHookRegistration<'PreToolUse'>['handler'],
  };
  const agy = new AgyHookHandlers(cp, { hasOwnTools: false, agyHooks: [raw], logger });
  const runtime = await SessionRuntime.create({
    dataDir: sb.box.dataDir,
    env: { PATH: process.env.PATH, HOME: sb.box.root },
    logger,
    hooks: agy.registrations(),
    hookEndpoint: agy,
    hookRelay: 'node',
  });
  sb.defer(() => runtime.close());
  await cp.beginTurn('run');
  const res = await fetch(runtime.listener!.hookUrl('PreToolUse'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(PAYLOAD),
  });
  expect(res.status).toBe(200);
  const reply = (await res.json()) as Record<string, unknown>;
  const turn = await cp.endTurn({ status: 'success', deniedActions: [], text: '' } as unknown as TurnResult);
  return { reply, turn, warnings: logger.lines('warn') };
}

const MALFORMED: Array<[string, unknown]> = [
  ["{decision:'DENY'}", { decision: 'DENY' }],
  ["{decision:'Deny'}", { decision: 'Deny' }],
  ["{decision:'block'}", { decision: 'block' }],
  ["{decision:''}", { decision: '' }],
  ["the bare string 'deny'", 'deny'],
  ["the bare string 'Deny'", 'Deny'],
  ["the bare string 'block'", 'block'],
  ['false', false],
  ['null', null],
  ['{}', {}],
  ['{allow:false}', { allow: false }],
  ['a BigInt', 10n],
  ['allow with a BigInt reason', { decision: 'allow', reason: 1n }],
  ['allow with a string overwrite', { decision: 'allow', overwrite: 'rm -rf /' }],
  ['allow with an array overwrite', { decision: 'allow', overwrite: ['rm'] }],
  ['allow with an unknown key', { decision: 'allow', allow: false }],
];

describe('raw agyHooks PreToolUse answers fail closed', () => {
  for (const [what, answer] of MALFORMED) {
    it(`${what} is an explicit deny, logged and recorded`, async () => {
      const { reply, turn, warnings } = await answerOf(() => answer);
      expect(reply.decision).toBe('deny');
      expect(reply.reason).toMatch(/not a well-formed answer/);
      // Never spread into args (a string overwrite once became one key per character).
      expect(reply).not.toHaveProperty('overwrite');
      expect(
        warnings.some((w) => w.startsWith('denying the tool call: malformed PreToolUse hook answer')),
      ).toBe(true);
      expect(turn.status).toBe('denied');
      expect(turn.deniedActions).toEqual([
        expect.objectContaining({
          action: 'run_command',
          source: 'sdk',
          deniedBy: { kind: 'hook', name: 'agyHooks' },
          reason: reply.reason,
        }),
      ]);
    });
  }

  it("names who denied through agy's answer: the SDK's policy, or the raw agyHooks", async () => {
    // The raw hook has no opinion; the SDK's policy denies, and agy's answer carries only the reason.
    const sdk = await answerOf(() => undefined, [policy.deny('run_command', { name: 'no_shell' })]);
    expect(sdk.reply).toEqual({ decision: 'deny', reason: "Denied by policy 'no_shell'" });
    expect(sdk.turn.deniedActions[0]?.deniedBy).toEqual({ kind: 'policy', name: 'no_shell' });
    expect(sdk.turn.errorMessage).toBe("run_command denied by policy 'no_shell'");
    // The raw hook denies first: the SDK never decided, so the raw hooks are named.
    const raw = await answerOf(() => ({ decision: 'deny', reason: 'mine' }), [policy.allowAll()]);
    expect(raw.turn.deniedActions[0]?.deniedBy).toEqual({ kind: 'hook', name: 'agyHooks' });
    expect(raw.turn.errorMessage).toBe("run_command denied by hook 'agyHooks' (mine)");
  });

  it('well-formed answers and no answer pass through unchanged', async () => {
    expect((await answerOf(() => undefined)).reply).toEqual({ decision: 'allow' });
    expect((await answerOf(() => ({ decision: 'allow' }))).reply).toEqual({ decision: 'allow' });
    const overwrite = await answerOf(() => ({ decision: 'allow', overwrite: { CommandLine: 'echo safe' } }));
    expect(overwrite.reply).toEqual({ decision: 'allow', overwrite: { CommandLine: 'echo safe' } });
    expect(overwrite.turn.deniedActions).toEqual([]);
    const ask = await answerOf(() => ({ decision: 'ask', reason: 'check' }));
    expect(ask.reply).toEqual({ decision: 'ask', reason: 'check' });
    const deny = await answerOf(() => ({ decision: 'deny', reason: 'no' }));
    expect(deny.reply).toEqual({ decision: 'deny', reason: 'no' });
    expect(deny.warnings).toEqual([]);
  });
});
