// Every PreToolUse deny agy receives from the relay is recorded in the turn's deniedActions, including the
// ones decided inside the relay path rather than by a handler: a body over the listener's limit (413), input
// that is not JSON, a handler that throws. The hook command is run as agy runs it (`/bin/sh -c`, a real
// payload shape from agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreToolUse-step2.json on stdin).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ControlPlane } from '../../../../src/agent/control-plane.js';
import { AgyHookHandlers } from '../../../../src/connection/agy/hook-handlers.js';
import { findBash, findCurl } from '../../../../src/connection/agy/session/hook-commands.js';
import { SessionRuntime } from '../../../../src/connection/agy/session/session-runtime.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../../../src/connection/tool-server/listener-body.js';
import { hooks } from '../../../../src/hooks/factories.js';
import type { TurnResult } from '../../../../src/model/turn-result.js';
import { recordingLogger } from '../../../helpers/runtime-files.js';
import { useSandbox } from '../../../helpers/sandbox.js';

const CURL = findCurl(process.env);
const BASH = findBash(process.env);

const sb = useSandbox();

function payload(commandLine: string) {
  return {
    artifactDirectoryPath: '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708',
    conversationId: 'e6e61b4b-164c-4879-b004-4d1246421708',
    modelName: 'gemini-3.8-flash-high',
    stepIdx: 2,
    toolCall: {
      args: {
        CommandLine: commandLine,
        Cwd: '/work/proj',
        WaitMsBeforeAsync: 5000,
        toolAction: `Running ${commandLine.slice(0, 20)}`,
        toolSummary: `Run ${commandLine.slice(0, 20)}`,
      },
      name: 'run_command',
    },
    transcriptPath:
      '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708/.system_generated/logs/transcript_full.jsonl',
    workspacePaths: ['/work/proj'],
  };
}

function viaShell(command: string, stdin: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd: sb.box.root, env: { PATH: process.env.PATH } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.resume();
    child.stdin.on('error', () => {});
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout }));
    child.stdin.end(stdin);
  });
}

const ended = { status: 'success', deniedActions: [], text: '' } as unknown as TurnResult;

for (const relay of ['node', 'curl', 'bash'] as const) {
  const skip = (relay === 'curl' && !CURL) || (relay === 'bash' && !BASH);
  describe.skipIf(skip)(
    skip
      ? `relay denials: ${relay} — SKIPPED: ${relay} is not on PATH`
      : `relay denials are recorded: ${relay}`,
    () => {
      async function setup() {
        const cp = new ControlPlane({
          hooks: [
            hooks.preToolCall((call) => {
              if (call.args.CommandLine === 'throw') throw new Error('hook bug');
              return true;
            }),
          ],
          policies: [],
          mcpServers: {},
          steering: false,
          logger: recordingLogger(),
        });
        const agy = new AgyHookHandlers(cp, { hasOwnTools: false });
        const runtime = await SessionRuntime.create({
          dataDir: sb.box.dataDir,
          env: { PATH: process.env.PATH, HOME: sb.box.root },
          logger: recordingLogger(),
          hooks: agy.registrations(),
          hookEndpoint: agy,
          hookRelay: relay,
        });
        sb.defer(() => runtime.close());
        const file = JSON.parse(await readFile(runtime.hooksFile!, 'utf8')) as {
          'agy-sdk': { PreToolUse: Array<{ hooks: Array<{ command: string }> }> };
        };
        return { cp, command: file['agy-sdk'].PreToolUse[0]!.hooks[0]!.command };
      }

      it('a hook input over the body limit (413): agy gets a deny and the turn records it', async () => {
        const { cp, command } = await setup();
        await cp.beginTurn('run');
        const huge = JSON.stringify(payload(`echo ${'x'.repeat(DEFAULT_MAX_BODY_BYTES)}`));
        const out = await viaShell(command, huge);
        expect(out.code).toBe(0);
        expect(JSON.parse(out.stdout)).toMatchObject({ decision: 'deny' });
        const turn = await cp.endTurn(ended);
        expect(turn.status).toBe('denied');
        expect(turn.deniedActions).toEqual([
          expect.objectContaining({ source: 'sdk', reason: expect.stringMatching(/too large/) }),
        ]);
      });

      it('input that is not JSON, and a handler that throws: both denied and recorded', async () => {
        const { cp, command } = await setup();
        await cp.beginTurn('run');
        expect(JSON.parse((await viaShell(command, '{"toolCall": ')).stdout)).toMatchObject({
          decision: 'deny',
        });
        expect(JSON.parse((await viaShell(command, JSON.stringify(payload('throw')))).stdout)).toMatchObject({
          decision: 'deny',
        });
        // A well-formed allowed call is not recorded.
        expect(JSON.parse((await viaShell(command, JSON.stringify(payload('ls')))).stdout)).toEqual({
          decision: 'allow',
        });
        const turn = await cp.endTurn(ended);
        expect(turn.deniedActions.map((d) => d.reason)).toEqual([
          expect.stringMatching(/not valid JSON/),
          expect.stringMatching(/hook bug/),
        ]);
      });
    },
  );
}
