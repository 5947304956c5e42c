// Slash commands (issue 19): ordinary prompt text is never read as a command, and a `SlashCommand` part runs the
// documented print-mode commands the way agy answers them, a `-p` run answered with `command_result`
// (agy-real/littlebearapps-untether-agy-1.3.1/{effort,model}.script; docs/reference/stream-json.md#slash-commands).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  printCommandArgs,
  runPrintCommand,
} from '../../../../src/connection/agy/stream-json/print-command.js';
import { literalText } from '../../../../src/connection/agy/stream-json/user-line.js';
import { SlashCommand } from '../../../../src/content/slash-command.js';
import { ContentError } from '../../../../src/errors.js';
import { collect, useSandboxAgents } from '../../../helpers/agents.js';
import { REPLAY_SCRIPT_AGY } from '../../../helpers/capture-replay.js';
import { AGY_REAL, HAVE_CAPTURES, LB, NO_CAPTURES_REASON } from '../../../helpers/captures.js';

describe('prompt text that starts with a slash', () => {
  const agents = useSandboxAgents();

  it('is sent as text: the turn runs (agy would answer exit 2 to a command on stdin)', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/stream_slash_fatal.script is what agy does to `/model` on stdin.
    const agent = await agents.agentWith({ turns: [{ actions: [{ text: 'summarized' }] }] });
    const result = await (await agent.chat('/tmp/notes.txt — summarize this file')).result();
    expect(result.status).toBe('success');
    expect(result.text).toBe('summarized');
    const again = await (await agent.chat('/model')).result();
    expect(again.status).toBe('success');
  });

  it('only a first block starting with "/" is marked, behind a zero-width space', () => {
    expect(literalText(['/tmp/x', '/y'])).toEqual(['\u200b/tmp/x', '/y']);
    expect(literalText(['', '  /usage'])).toEqual(['', '\u200b  /usage']);
    expect(literalText(['hello /usage'])).toEqual(['hello /usage']);
  });
});

describe('SlashCommand parts', () => {
  const agents = useSandboxAgents();

  it('an unknown command is a ContentError before anything runs', async () => {
    expect(() => new SlashCommand('/bogus')).toThrow(ContentError);
    expect(() => new SlashCommand('/bogus')).toThrow(/unknown slash command "\/bogus"/);
    const agent = await agents.agentWith();
    await expect(agent.chat([new SlashCommand('/model'), 'and text'])).rejects.toThrow(/send it alone/);
  });

  it('/effort and /model are answered in a print-mode run: result.command, a command step', async () => {
    const agent = await agents.agentWith(undefined, { effort: 'low' });
    const effort = await agent.chat(new SlashCommand('/effort'));
    const [result, steps] = await Promise.all([effort.result(), collect(effort.steps())]);
    expect(result.status).toBe('success');
    expect(result.command).toEqual({
      name: 'effort',
      data: { adjustable: true, current: 'low', available: ['low', 'medium', 'high'] },
    });
    expect(result.text).toBe('low\n');
    expect(steps.map((s) => s.type)).toEqual(['command']);
    const model = await (await agent.chat(new SlashCommand('model'))).result();
    expect(model.command?.name).toBe('model');
    // The conversation goes on after a command.
    expect((await (await agent.chat('hi')).result()).status).toBe('success');
  });

  it('the print-mode run resumes the conversation and keeps the model; `-p=` never eats a flag', () => {
    expect(printCommandArgs({ command: '/usage', conversationId: 'c1', model: 'm' })).toEqual([
      '-p=/usage',
      '--output-format',
      'stream-json',
      '--model',
      'm',
      '--conversation',
      'c1',
    ]);
  });

  it.skipIf(!HAVE_CAPTURES)(
    HAVE_CAPTURES ? "agy 1.3.1's own /effort answer is read whole" : `skipped: ${NO_CAPTURES_REASON}`,
    async () => {
      // agy-real/littlebearapps-untether-agy-1.3.1/effort.script
      const run = await runPrintCommand({
        binary: REPLAY_SCRIPT_AGY,
        env: { ...process.env, REPLAY_SCRIPT: join(AGY_REAL, `${LB}/effort.script`) },
        cwd: process.cwd(),
        command: '/effort',
        maxLineBytes: 1 << 20,
        timeoutMs: 60_000,
        signal: new AbortController().signal,
        onStderrLine: () => {},
      });
      expect(run.exit.code).toBe(0);
      expect(run.command).toEqual({
        name: 'effort',
        data: { adjustable: true, current: 'high', available: ['low', 'medium', 'high'] },
      });
      expect(run.result?.command).toEqual(run.payload);
    },
  );
});
