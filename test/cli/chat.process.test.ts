// `agy-sdk chat` with piped input (no terminal): lines typed ahead are queued behind the running turn, in order.
// The terminal behaviour (Ctrl-C, approvals, spinner) is in tmux.process.test.ts.
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../helpers/cli.js';

describe.skipIf(!BUILT)('agy-sdk chat (piped)', () => {
  it('runs queued prompts and commands in order on one conversation, then exits 0 at end of input', async () => {
    const run = await runCli(['chat', '--offline'], {}, 'hello one\nhello two\n/usage\n/history\n/bogus\n');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out.indexOf('You said: "hello one"')).toBeGreaterThan(-1);
    expect(out.indexOf('You said: "hello two"')).toBeGreaterThan(out.indexOf('You said: "hello one"'));
    expect(out).toMatch(/conversation \(2 turns\): in \d+ · out \d+/);
    expect(out).toMatch(/1\. you: hello one\n\s+agent \[success\]/);
    expect(out).toMatch(/2\. you: hello two\n/);
    expect(out).toMatch(/conversation: [0-9a-f-]{36}/);
    expect(out).toContain('unknown command /bogus');
  });

  it('/exit ends the session before later lines run', async () => {
    const run = await runCli(['chat', '--offline'], {}, '/exit\nnever sent\n');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('never sent"');
  });

  it('a bad --confirm policy is a usage error (2)', async () => {
    const run = await runCli(['chat', '--offline', '--confirm', 'sometimes'], {}, '');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('sometimes');
  });
});
