// Hook commands are safe under a shell (issue 8) and under agy 1.3.3's split on spaces. Older agy runs a hook
// `command` as a command line with arguments (a real plugin's hook was `python3 '<path>' hook`,
// agy-real/README.md; users write `python ./plugins/…/hook.py PreToolUse`,
// agy-real/configs-hooks-json/Ajw2003-AjsAgyTools.hooks.json); 1.3.3 cuts it at spaces and execs it without a
// shell (docs/reference/hooks.md#hook-commands-split-on-spaces). So each command written to hooks.json is run
// here both ways, from a data directory whose name is shell syntax, with a real PreToolUse payload on stdin:
// nothing extra may run, and the call must still reach the listener and be answered.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBash, findCurl } from '../../../../src/connection/agy/session/hook-commands.js';
import { SessionRuntime } from '../../../../src/connection/agy/session/session-runtime.js';
import { isPlainWord, shellCommand, shellQuote } from '../../../../src/platform/posix-shell-quote.js';
import type { AgyHookInput, AgyHookRegistration } from '../../../../src/protocol/hook-wire.js';
import { recordingLogger } from '../../../helpers/runtime-files.js';
import { useSandbox } from '../../../helpers/sandbox.js';

const CURL = findCurl(process.env);
const BASH = findBash(process.env);

const sb = useSandbox();

// agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreToolUse-step4.json (fields as captured).
const PAYLOAD = {
  artifactDirectoryPath: '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708',
  conversationId: 'e6e61b4b-164c-4879-b004-4d1246421708',
  modelName: 'gemini-3.8-flash-high',
  stepIdx: 4,
  toolCall: {
    args: {
      CommandLine: 'echo ASKOUT',
      Cwd: '/work/proj',
      WaitMsBeforeAsync: 5000,
      toolAction: 'Running echo ASKOUT',
      toolSummary: 'Run echo ASKOUT',
    },
    name: 'run_command',
  },
  transcriptPath:
    '/work/home/.gemini/antigravity-cli/brain/e6e61b4b-164c-4879-b004-4d1246421708/.system_generated/logs/transcript_full.jsonl',
  workspacePaths: ['/work/proj'],
};

/** Directory names that are shell syntax; each would run `touch canary…` if a command were not quoted. */
const HOSTILE: Array<[string, string]> = [
  ['spaces', 'data dir with spaces'],
  ['single quotes', "it's 'quoted'"],
  ['double quotes', 'say "hi" $HOME'],
  ['$()', 'dollar-$(touch canary-dollar)-x'],
  ['backticks', 'tick-`touch canary-tick`-x'],
  [';', 'semi;touch canary-semi;x'],
  ['&', 'amp&touch canary-amp&x'],
  ['a newline', 'line\ntouch canary-newline\nx'],
  ['non-ASCII', 'žluťoučký-日本-🚀'],
  ['all at once', `a b'c"d$(touch canary-all)\`touch canary-all2\`;touch canary-all3&\ntouch canary-all4 ž`],
];

/** Runs `command` the way a shell-using agy would: `/bin/sh -c <command>`, payload on stdin, in `cwd`. */
function viaShell(
  command: string,
  stdin: string,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: { PATH: process.env.PATH } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.stdin.on('error', () => {});
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Runs `command` the way agy 1.3.3 does: split at whitespace, exec'd without a shell. */
function viaSplit(
  command: string,
  stdin: string,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [program = '', ...args] = command.trim().split(/\s+/);
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, env: { PATH: process.env.PATH } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.stdin.on('error', () => {});
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Every file whose name starts with `canary`, anywhere under `dir`. */
function canaries(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) =>
    p.split('/').at(-1)!.startsWith('canary'),
  );
}

describe('shellQuote', () => {
  it('round-trips every hostile string through /bin/sh, and leaves plain paths bare', async () => {
    const run = join(sb.box.root, 'run');
    mkdirSync(run);
    for (const [, name] of HOSTILE) {
      const out = await viaShell(`printf '%s' ${shellQuote(name)}`, '', run);
      expect(out.stdout).toBe(name);
    }
    expect((await viaShell(`printf '%s|' ${shellCommand(['', 'a b', "'"])}`, '', run)).stdout).toBe(
      "|a b|'|",
    );
    expect(canaries(sb.box.root)).toEqual([]);
    expect(shellQuote('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellQuote('')).toBe("''");
  });
});

for (const relay of ['node', 'curl', 'bash'] as const) {
  const skip = (relay === 'curl' && !CURL) || (relay === 'bash' && !BASH);
  describe.skipIf(skip)(
    skip
      ? `hook commands under a shell: ${relay} — SKIPPED: ${relay} is not on PATH`
      : `hook commands under a shell: ${relay}`,
    () => {
      for (const [what, name] of HOSTILE) {
        it(`a data dir named with ${what}: nothing extra runs, the hook is answered`, async () => {
          const dataDir = join(sb.box.root, name, 'data');
          const run = join(sb.box.root, 'run');
          mkdirSync(run, { recursive: true });
          const seen: AgyHookInput[] = [];
          const hooks: AgyHookRegistration[] = [
            {
              event: 'PreToolUse',
              handler: (input) => {
                seen.push(input);
                return { decision: 'deny', reason: 'seen by the host' };
              },
            },
            { event: 'Stop', handler: () => ({ decision: 'continue', reason: 'keep going' }) },
          ];
          const runtime = await SessionRuntime.create({
            dataDir,
            env: { PATH: process.env.PATH, HOME: sb.box.root },
            logger: recordingLogger(),
            hooks,
            hookRelay: relay,
          });
          sb.defer(() => runtime.close());
          expect(runtime.dir.path.startsWith(join(sb.box.root, name))).toBe(true);
          const file = JSON.parse(await readFile(runtime.hooksFile!, 'utf8')) as {
            'agy-sdk': {
              PreToolUse: Array<{ hooks: Array<{ command: string }> }>;
              Stop: Array<{ command: string }>;
            };
          };
          const pre = file['agy-sdk'].PreToolUse[0]!.hooks[0]!.command;
          const stop = file['agy-sdk'].Stop[0]!.command;
          // The command is one plain word: the script's path, in a directory of its own since the session
          // directory's path is not plain.
          expect(isPlainWord(pre)).toBe(true);
          expect(pre).toBe(join(runtime.hookBinDir!.path, 'hooks', 'PreToolUse.sh'));

          const answer = await viaShell(pre, JSON.stringify(PAYLOAD), run);
          expect(answer, answer.stderr).toMatchObject({ code: 0 });
          expect(JSON.parse(answer.stdout)).toEqual({ decision: 'deny', reason: 'seen by the host' });
          const split = await viaSplit(pre, JSON.stringify(PAYLOAD), run);
          expect(split, split.stderr).toMatchObject({ code: 0 });
          expect(JSON.parse(split.stdout)).toEqual({ decision: 'deny', reason: 'seen by the host' });
          expect(seen).toEqual([PAYLOAD, PAYLOAD]);
          const stopAnswer = await viaShell(stop, '{"terminationReason":"NO_TOOL_CALL"}', run);
          expect(JSON.parse(stopAnswer.stdout)).toEqual({ decision: 'continue', reason: 'keep going' });

          // Also run from inside the hostile directory itself (agy runs hooks in `<workspace>/.agents`).
          const inside = await viaShell(pre, JSON.stringify(PAYLOAD), runtime.dir.path);
          expect(JSON.parse(inside.stdout)).toMatchObject({ decision: 'deny' });

          expect(canaries(sb.box.root)).toEqual([]);
          expect(existsSync(join(runtime.dir.path, 'canary'))).toBe(false);
        });
      }
    },
  );
}
