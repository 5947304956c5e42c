// `agy-sdk run` through the built command, against the simulator (`--offline`) in real processes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TURN_EXIT_CODES } from '../../src/cli/exit-codes.js';
import { type Scenario, writeScenario } from '../../src/testing/index.js';
import { BUILT, killPids, runCli, startCli, survivors } from '../helpers/cli.js';
import { OpenAiChatMock } from '../helpers/gateway/mocks/openai-chat.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agy-sdk-cli-run-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function scenario(s: Scenario): Promise<NodeJS.ProcessEnv> {
  return { AGY_SIM_SCENARIO: await writeScenario(s, dir) };
}

// Concurrent: every case is its own CLI process with its own scenario file and marker; most of a run is
// process start-up and waiting, not CPU.
describe.skipIf(!BUILT)('agy-sdk run (offline)', { concurrent: true }, () => {
  it('neutralises control sequences from the model and tools off a TTY too (text, tool lines, --json)', async () => {
    const ESC = '\u001b';
    const env = await scenario({
      turns: [
        {
          actions: [
            {
              tool: {
                name: 'run_command',
                parameters: { CommandLine: `echo ${ESC}]0;TITLE${ESC}\\hi` },
                output: `out${ESC}]52;c;ZXZpbA==\u0007put`,
              },
            },
            { text: `Plain ${ESC}]52;c;ZXZpbA==\u0007text ${ESC}[8mshown${ESC}[0m\rend`, chunks: 4 },
          ],
        },
      ],
    });
    const run = await runCli(['run', '--offline', 'go'], env);
    expect(run.stdout + run.stderr).not.toContain(ESC);
    expect(run.stdout + run.stderr).not.toContain('\r');
    expect(run.stdout).toContain('Plain text shownend');
    const json = await runCli(['run', '--offline', '--json', 'go'], env);
    expect(json.stdout).not.toContain(ESC);
    expect(json.stdout).not.toContain('\u009b');
    // JSON keeps the text (escaped), so a script still sees what the model sent.
    expect(json.stdout).toContain('\\u001b]52');
  });

  it('a denied call is never [tool ok]: the line and the closing line name who denied it', async () => {
    // agy's own soft denial ends the step DONE without output (docs/reference/stream-json.md#denied-actions):
    // only the result says it was denied, so its line waits for it.
    const soft = await runCli(
      ['run', '--offline', 'go'],
      await scenario({
        turns: [{ actions: [{ deny: { action: 'run_command', parameters: { CommandLine: 'ls' } } }] }],
      }),
    );
    expect(soft.stderr).not.toContain('[tool ok]');
    expect(soft.stderr).toContain("[tool denied] run_command: denied by agy's permission check");
    expect(soft.stderr).toMatch(/\[done\] denied · .* — RunCommand denied by agy's permission check\n/);
    // The default policy (confirm_run_command, nobody at a terminal) denies: the SDK's policy, not agy.
    const policy = await runCli(
      ['run', '--offline', 'go'],
      await scenario({
        turns: [
          {
            actions: [
              { tool: { name: 'run_command', parameters: { CommandLine: 'rm x' }, output: 'x' } },
              { text: 'ok' },
            ],
          },
        ],
      }),
    );
    expect(policy.stderr).toContain("[tool denied] run_command: Denied by policy 'confirm_run_command'");
    expect(policy.stderr).toMatch(
      /\[done\] denied · .* — run_command denied by policy 'confirm_run_command'/,
    );
    expect(policy.stderr).not.toMatch(/agy denied|\[tool (ok|failed)\]/);
  });

  it('streams the answer on stdout and tool lines on stderr off a TTY, exit 0', async () => {
    const env = await scenario({
      turns: [
        {
          actions: [
            {
              tool: {
                name: 'view_file',
                parameters: { AbsolutePath: '/tmp/notes.txt' },
                output: 'first line',
              },
            },
            { text: 'All done here.', chunks: 3 },
          ],
        },
      ],
    });
    const run = await runCli(['run', '--offline', 'list files'], env);
    expect(run.stdout).toContain('All done here.');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('[tool] view_file /tmp/notes.txt');
    expect(run.stderr).toContain('[tool ok] view_file: first line');
    expect(run.stderr).toMatch(/\[done\] success · \d/);
    expect(run.stdout).not.toContain('[tool');
  });

  it('--json writes only NDJSON: normalized steps, then one result', async () => {
    const env = await scenario({ turns: [{ actions: [{ text: 'Hi there', chunks: 2 }] }] });
    const run = await runCli(['run', '--offline', '--json', 'hello'], env);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.event === 'result')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ event: 'result', status: 'success', text: 'Hi there' });
    const steps = events.filter((e) => e.event === 'step');
    expect(steps.length).toBeGreaterThan(0);
    // Normalized (camelCase, no wire copy).
    expect(steps[0]).toHaveProperty('stepIndex');
    expect(steps[0]).not.toHaveProperty('raw');
  });

  it.each([
    ['error', { turns: [{ actions: [{ text: 'x', error: true }] }] }],
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/print-timeout.stdout: SUCCESS with all-zero usage is a timeout.
    ['timeout', { turns: [{ actions: [], end: { printTimeout: true } }] }],
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.*: exit 3 and "Individual quota reached".
    ['quota_exhausted', { turns: [{ actions: [], end: { quota: true } }] }],
    [
      'denied',
      { turns: [{ actions: [{ deny: { action: 'write_file', tool: 'write_to_file' } }, { text: 'no' }] }] },
    ],
  ] as [keyof typeof TURN_EXIT_CODES, Scenario][])('a %s turn exits with its own code', async (status, s) => {
    const run = await runCli(['run', '--offline', '--json', 'go'], await scenario(s));
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { status?: string };
    expect(result.status).toBe(status);
    expect(run.code).toBe(TURN_EXIT_CODES[status]);
    expect(run.code).not.toBe(0);
  });

  it('--schema prints the validated structured output; a bad schema file is a usage error (2)', async () => {
    const schemaFile = join(dir, 'answer.schema.json');
    await writeFile(
      schemaFile,
      JSON.stringify({ type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] }),
    );
    const env = await scenario({
      turns: [{ actions: [{ text: '{"answer":42}' }], end: { structuredOutput: { answer: 42 } } }],
    });
    const run = await runCli(['run', '--offline', '--schema', schemaFile, 'the answer?'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ answer: 42 });

    const bad = join(dir, 'bad.schema.json');
    await writeFile(bad, '{ not json');
    const failed = await runCli(['run', '--offline', '--schema', bad, 'x']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('--schema');
    expect(failed.stderr).toContain('not valid JSON');
  });

  it('structured output that fails the schema ends the turn as an error (1)', async () => {
    const schemaFile = join(dir, 'strict.schema.json');
    await writeFile(
      schemaFile,
      JSON.stringify({ type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] }),
    );
    const env = await scenario({
      turns: [{ actions: [{ text: '{"answer":"no"}' }], end: { structuredOutput: { answer: 'no' } } }],
    });
    const run = await runCli(['run', '--offline', '--schema', schemaFile, 'the answer?'], env);
    expect(run.code).toBe(TURN_EXIT_CODES.error);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/\[done\] error/);
  });

  it('agy not found: exit 10, every path tried, and a hint', async () => {
    const run = await runCli(['run', 'hi'], { AGY_PATH: join(dir, 'no-such-agy') });
    expect(run.code).toBe(10);
    expect(run.stderr).toContain(join(dir, 'no-such-agy'));
    expect(run.stderr).toContain('agy-sdk doctor');
  });

  it('bad flags are usage errors (2) that name the flag', async () => {
    const noBase = await runCli(['run', '--offline', '--provider', 'openai-chat', 'x']);
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toContain('--base-url');
    const orphan = await runCli(['run', '--offline', '--base-url', 'http://x', 'x']);
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toContain('only applies with --provider');
    const unknown = await runCli(['run', '--bogus', 'x']);
    expect(unknown.code).toBe(2);
  });

  it("--conversation resumes: the second run continues the first one's conversation", async () => {
    const lastResult = (stdout: string) =>
      JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
        conversationId: string;
        usage: { inputTokens: number };
        totalUsage: { inputTokens: number };
      };
    const first = lastResult((await runCli(['run', '--offline', '--json', 'hi'])).stdout);
    const again = await runCli([
      'run',
      '--offline',
      '--json',
      '--conversation',
      first.conversationId,
      'again',
    ]);
    expect(again.code).toBe(0);
    const second = lastResult(again.stdout);
    expect(second.conversationId).toBe(first.conversationId);
    // agy's cumulative usage spans both processes: the conversation really continued.
    expect(second.totalUsage.inputTokens).toBe(first.usage.inputTokens + second.usage.inputTokens);
  });

  it('--workspace (repeatable) reaches agy; --model reaches agy, and a refused model is a start failure (10)', async () => {
    const ws = await mkdtemp(join(dir, 'ws-'));
    // The simulator's default turn lists its first workspace.
    const run = await runCli([
      'run',
      '--offline',
      '--workspace',
      ws,
      '--workspace',
      dir,
      '--model',
      'gemini-3.6-flash-low',
      'hi',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`[tool] list_dir ${ws}`);
    const refused = await runCli(['run', '--offline', '--model', 'nope-model', 'hi']);
    expect(refused.code).toBe(10);
    expect(refused.stderr).toContain('invalid model selection');
    expect(refused.stderr).toContain('agy-sdk doctor');
  });

  it('Ctrl-C (SIGINT) interrupts the turn: exit 130 and nothing left running', async () => {
    const env = await scenario({ turns: [{ actions: [{ text: 'Thinking slowly' }, { stall: true }] }] });
    const cli = startCli(['run', '--offline', 'think'], env);
    try {
      await cli.waitFor('Thinking slowly');
      cli.child.kill('SIGINT');
      const run = await cli.done;
      expect(run.code).toBe(TURN_EXIT_CODES.interrupted);
      expect(run.stderr).toMatch(/\[done\] interrupted/);
      expect(await survivors(cli.mark)).toEqual([]);
    } finally {
      killPids(await survivors(cli.mark, 0));
    }
  });

  it('gateway mode: --provider runs agy (the simulator) through the provider bridge to an OpenAI-compatible upstream', async () => {
    const mock = await OpenAiChatMock.start('sk-cli-test');
    try {
      const run = await runCli(
        [
          'run',
          '--offline',
          '--provider',
          'openai-chat',
          '--base-url',
          mock.baseUrl,
          '--provider-model',
          'gpt-cli-test',
          '--api-key-env',
          'CLI_TEST_UPSTREAM_KEY',
          'say OK',
        ],
        { CLI_TEST_UPSTREAM_KEY: 'sk-cli-test' },
      );
      expect(run.stderr).toMatch(/\[done\] success/);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('OK');
      expect(mock.requests.length).toBeGreaterThan(0);
      expect(mock.requests[0]?.body).toMatchObject({ model: 'gpt-cli-test' });
      // The key reaches the upstream only, never the CLI's output.
      expect(run.stdout + run.stderr).not.toContain('sk-cli-test');
    } finally {
      await mock.close();
    }
  });
});
