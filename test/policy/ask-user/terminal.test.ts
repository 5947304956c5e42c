import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createHookToolCall } from '../../../src/hooks/index.js';
import { type AskUserContext, runAskUser, terminalApproval } from '../../../src/policy/ask-user/index.js';
import { spyLogger } from '../../helpers/hooks.js';

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  const waiters: { needle: string; count: number; resolve: () => void }[] = [];
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of [...waiters]) {
      if (text.split(w.needle).length - 1 >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  /** Resolves once `needle` has been printed `count` times in total. */
  const printed = (needle: string, count = 1) =>
    new Promise<void>((resolve) => {
      if (text.split(needle).length - 1 >= count) resolve();
      else waiters.push({ needle, count, resolve });
    });
  return { input, output, printed, text: () => text };
}

const call = (line: string) =>
  createHookToolCall({ id: '1', name: 'run_command', args: { CommandLine: line } });
const ctx = (): AskUserContext => ({ signal: new AbortController().signal, policy: 'confirm' });

describe('terminalApproval', () => {
  it.each([
    ['y', true],
    ['yes', true],
    ['  YES ', true],
    ['n', false],
    ['', false],
    ['sure', false],
  ])('answer %j → allow %s', async (answer, allow) => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const pending = ask(call('ls'), ctx());
    await io.printed('Allow? [y/N] ');
    io.input.write(`${answer}\n`);
    const result = await pending;
    expect(typeof result === 'object' ? result.allow : result).toBe(allow);
  });

  it('prints the tool, what will run and the policy', async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const pending = ask(call('rm -rf build'), { ...ctx(), reason: 'shell access' });
    await io.printed('Allow? [y/N] ');
    io.input.write('y\n');
    await pending;
    expect(io.text()).toContain("policy 'confirm'");
    expect(io.text()).toMatch(/tool: +run_command/);
    expect(io.text()).toMatch(/command: +rm -rf build/);
    expect(io.text()).toMatch(/why: +shell access/);
  });

  // docs/reference/hooks.md#pretooluse-payload: agy adds toolAction, toolSummary, Cwd and WaitMsBeforeAsync.
  it("shows run_command's command line and directory, never agy's own keys", async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const pending = ask(
      createHookToolCall({
        id: '1',
        name: 'run_command',
        args: {
          CommandLine: 'npm test',
          Cwd: '/work/proj',
          WaitMsBeforeAsync: 5000,
          toolAction: 'Running npm test',
          toolSummary: 'Run npm test',
        },
      }),
      ctx(),
    );
    await io.printed('Allow? [y/N] ');
    io.input.write('n\n');
    await pending;
    expect(io.text()).toMatch(/command: +npm test\n +in: +\/work\/proj\n/);
    expect(io.text()).not.toMatch(/WaitMsBeforeAsync|toolAction|toolSummary|args:/);
  });

  // docs/reference/hooks.md#pretooluse-payload (agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreToolUse-write_to_file.json).
  it('shows the file and a change summary for write_to_file', async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const pending = ask(
      createHookToolCall({
        id: '1',
        name: 'write_to_file',
        args: {
          CodeContent: 'a\nb\nc\n',
          Description: 'Create b.txt',
          Overwrite: true,
          TargetFile: '/work/proj/b.txt',
          toolAction: 'Writing b.txt',
          toolSummary: 'Create b.txt',
        },
      }),
      ctx(),
    );
    await io.printed('Allow? [y/N] ');
    io.input.write('n\n');
    await pending;
    expect(io.text()).toMatch(/file: +\/work\/proj\/b\.txt/);
    expect(io.text()).toMatch(/change: +overwrite with 3 lines/);
    expect(io.text()).toMatch(/args: +\{"Description":"Create b.txt"\}/);
    expect(io.text()).not.toContain('CodeContent');
  });

  it('prints the answer once: a relayed (non-terminal) input is not echoed again', async () => {
    const io = streams();
    Object.assign(io.output, { isTTY: true, columns: 80 });
    const ask = terminalApproval({ input: io.input, output: io.output });
    const pending = ask(call('ls'), ctx());
    await io.printed('Allow? [y/N] ');
    io.input.write('yes\n');
    expect(await pending).toEqual({ allow: true });
    expect(io.text()).not.toContain('yes');
  });

  it('neutralises control sequences in what it shows', async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const pending = ask(call('echo \u001b]52;c;ZXZpbA==\u0007hi\u001b[8m'), ctx());
    await io.printed('Allow? [y/N] ');
    io.input.write('n\n');
    await pending;
    expect(io.text()).toMatch(/command: +echo hi\n/);
    expect(io.text()).not.toContain('\u001b');
  });

  it('serializes concurrent asks: the second prompt appears only after the first answer', async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const first = ask(call('first'), ctx());
    const second = ask(call('second'), ctx());
    await io.printed('Allow? [y/N] ');
    expect(io.text()).toContain('first');
    expect(io.text()).not.toContain('second');
    io.input.write('y\n');
    expect(await first).toEqual({ allow: true });
    await io.printed('Allow? [y/N] ', 2);
    expect(io.text()).toContain('second');
    io.input.write('n\n');
    expect(await second).toMatchObject({ allow: false });
  });

  it('end of input denies instead of hanging', async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const pending = ask(call('ls'), ctx());
    await io.printed('Allow? [y/N] ');
    io.input.end();
    expect(await pending).toEqual({ allow: false, message: 'no answer (input closed)' });
  });

  it('under runAskUser, an expired ask denies and the prompt stops waiting', async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const outcome = await runAskUser(ask, call('ls'), {
      policy: 'confirm',
      timeoutMs: 30,
      logger: spyLogger(),
    });
    expect(outcome).toMatchObject({ allow: false, status: 'timeout' });
    await io.printed('(no answer in time: denied)');
    // The next ask works normally.
    const next = ask(call('pwd'), ctx());
    await io.printed('Allow? [y/N] ', 2);
    io.input.write('y\n');
    expect(await next).toEqual({ allow: true });
  });

  it('does not prompt for an ask that expired while queued', async () => {
    const io = streams();
    const ask = terminalApproval({ input: io.input, output: io.output });
    const first = ask(call('first'), ctx());
    const controller = new AbortController();
    const second = ask(call('second'), { signal: controller.signal, policy: 'confirm' });
    controller.abort();
    await io.printed('Allow? [y/N] ');
    io.input.write('y\n');
    await first;
    expect(await second).toMatchObject({ allow: false });
    expect(io.text()).not.toContain('second');
  });
});
