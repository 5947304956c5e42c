/**
 * The simulator against real agy: for each captured run in `../shared/fixtures/agy-real/`, the equivalent
 * scenario runs through the built simulator (a real spawn, `test/helpers/sim-process.ts`) and its output is
 * compared with the capture shape by shape — the same events in the same order, the same keys per event and
 * step (recursively; ids, text, numbers and timestamps are ignored), the same step types and states, the same
 * `result.status`, exit code and stderr pattern. Skips (with the reason) when the fixtures are absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { Scenario, ToolAction } from '../../../src/testing/simulator/scenario.js';
import { AGY_REAL } from '../../helpers/captures.js';
import { ensureSimulatorBuilt, SimHarness, type SimProcess } from '../../helpers/sim-process.js';
import { capture, script, shape, signature } from '../../helpers/wire-shapes.js';

const V1_2_17 = 'joiomi-playbook-plugin-agy-1.2.17';
const V1_3_1 = 'joiomi-playbook-plugin-agy-1.3.1';
const CC = 'jdiazromeral-agy-plugin-cc';

const harness = new SimHarness();

beforeAll(async () => {
  if (existsSync(AGY_REAL)) await ensureSimulatorBuilt();
}, 120_000);

afterEach(async () => {
  await harness.cleanup();
});

function parseLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The sim's output and the capture, line by line. */
function expectSameShapes(sim: Record<string, unknown>[], real: Record<string, unknown>[]): void {
  expect(sim.map(signature)).toEqual(real.map(signature));
}

/** `init.tools` is compared by value: it is the copied list. */
function expectSameTools(sim: Record<string, unknown>[], real: Record<string, unknown>[]): void {
  const tools = (lines: Record<string, unknown>[]): unknown =>
    (lines.find((l) => l.event === 'init')?.init as { tools?: unknown } | undefined)?.tools;
  expect(tools(sim)).toEqual(tools(real));
}

type Usage = Record<string, number>;
const USAGE_KEYS = ['input_tokens', 'output_tokens', 'thinking_tokens', 'cache_read_tokens', 'total_tokens'];

/** The sum of usage over every DONE step, each (conversation, step) once. */
function sumOfDoneSteps(lines: Record<string, unknown>[]): Usage {
  const seen = new Set<string>();
  const sum: Usage = Object.fromEntries(USAGE_KEYS.map((key) => [key, 0]));
  for (const line of lines) {
    const step = line.step_update as Record<string, unknown> | undefined;
    if (step?.state !== 'DONE' || step.usage === undefined) continue;
    const id = `${step.conversation_id}/${step.step_index}`;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const key of USAGE_KEYS) sum[key] = (sum[key] ?? 0) + ((step.usage as Usage)[key] ?? 0);
  }
  return sum;
}

function lastResultUsage(lines: Record<string, unknown>[]): unknown {
  return (lines.filter((l) => l.event === 'result').at(-1)?.result as { usage?: unknown } | undefined)?.usage;
}

/** Runs one stdin turn (or none) and waits for the exit. */
async function runTurn(
  scenario: Scenario,
  args: string[],
  send: string | undefined = 'go',
  env: Record<string, string> = {},
): Promise<{ sim: SimProcess; code: number | null }> {
  const sim = await harness.start({ scenario, args, env });
  if (send !== undefined) sim.prompt(send);
  sim.endInput();
  const { code } = await sim.exited;
  return { sim, code };
}

const FLAGS_1_2 = ['--model', 'gemini-3.8-flash-high', '--mode', 'plan'];

describe('the comparison itself', () => {
  it('tells a missing key, a wrong step state and a wrong status apart from equal shapes', (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/success-pong.stdout
    const real = parseLines(capture(ctx, `${V1_3_1}/success-pong.stdout`));
    const copy = (): Record<string, unknown>[] =>
      JSON.parse(JSON.stringify(real)) as Record<string, unknown>[];
    const step = (lines: Record<string, unknown>[], i: number): Record<string, unknown> =>
      (lines[i]?.step_update ?? lines[i]?.result ?? {}) as Record<string, unknown>;
    expect(copy().map(signature)).toEqual(real.map(signature));
    const noUsage = copy();
    step(noUsage, 3).usage = undefined;
    expect(JSON.parse(JSON.stringify(noUsage)).map(signature)).not.toEqual(real.map(signature));
    const errorState = copy();
    step(errorState, 3).state = 'ERROR';
    expect(errorState.map(signature)).not.toEqual(real.map(signature));
    const failed = copy();
    step(failed, 4).status = 'ERROR';
    expect(failed.map(signature)).not.toEqual(real.map(signature));
    const otherText = copy();
    step(otherText, 2).text_delta = 'something else';
    expect(otherText.map(signature)).toEqual(real.map(signature));
  });
});
const SKIP = ['--dangerously-skip-permissions'];

describe.each([
  ['1.2.17', V1_2_17],
  ['1.3.1', V1_3_1],
])('agy %s (stream-json stdin runs)', (version, folder) => {
  it('pong', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-*/success-pong.stdout
    const real = parseLines(capture(ctx, `${folder}/success-pong.stdout`));
    const { sim, code } = await runTurn({ version, turns: [{ actions: [{ text: 'PONG\n', chunks: 2 }] }] }, [
      ...FLAGS_1_2,
      '--print-timeout',
      '5m',
    ]);
    expect(code).toBe(0);
    expect(sim.stderr).toBe('');
    expectSameShapes(sim.events, real);
    expectSameTools(sim.events, real);
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
    expect(lastResultUsage(real)).toEqual(sumOfDoneSteps(real));
  });

  it('two tools', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-*/success-tools.stdout: each tool after a text-less model step
    const real = parseLines(capture(ctx, `${folder}/success-tools.stdout`));
    const scenario: Scenario = {
      version,
      turns: [
        {
          actions: [
            {
              tool: { name: 'view_file', parameters: { AbsolutePath: '/mnt/notes.txt' }, output: '3 lines' },
            },
            { tool: { name: 'run_command', parameters: { CommandLine: 'echo 42' }, output: '42\r\n' } },
            { text: 'CODE=HERON-5518\nCMD=42\n', chunks: version === '1.3.1' ? 3 : 1 },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, [...FLAGS_1_2, ...SKIP]);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
    expect(lastResultUsage(real)).toEqual(sumOfDoneSteps(real));
  });

  it('denied command', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-*/denied-command.stdout: DONE without output, denied_actions, turn ends
    const real = parseLines(capture(ctx, `${folder}/denied-command.stdout`));
    const scenario: Scenario = {
      version,
      turns: [
        {
          actions: [
            {
              deny: { action: 'command', tool: 'run_command', parameters: { CommandLine: 'pwd && ls -la' } },
            },
            { text: 'never reached' },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, FLAGS_1_2);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    const denied = (lines: Record<string, unknown>[]): unknown =>
      (lines.at(-1)?.result as { denied_actions?: unknown } | undefined)?.denied_actions;
    expect(denied(sim.events)).toEqual(denied(real));
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
    // The captured stderr was not kept (SOURCE.txt): only the exit code is compared.
  });

  it('print timeout (a real timer, a stalled model)', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-*/print-timeout.stdout; stderr line: …-1.2.17/print-timeout.stderr
    const real = parseLines(capture(ctx, `${folder}/print-timeout.stdout`));
    const stderr = capture(ctx, `${V1_2_17}/print-timeout.stderr`);
    const { sim, code } = await runTurn({ version, turns: [{ actions: [{ stall: true }] }] }, [
      ...FLAGS_1_2,
      '--print-timeout',
      '300ms',
    ]);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expect(sim.stderr).toBe(stderr.replace('8s', '300ms'));
  });

  it('missing event field', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-*/error-missing-event.stdout. Real agy leaves `model` out of this
    // init although --model was passed; the simulator writes init before reading stdin and cannot know, so
    // this run passes no --model (documented deviation).
    const real = parseLines(capture(ctx, `${folder}/error-missing-event.stdout`));
    const sim = await harness.start({ scenario: { version }, args: ['--mode', 'plan'] });
    sim.send({ message: { role: 'user', content: 'hi' } });
    expect((await sim.exited).code).toBe(1);
    expectSameShapes(sim.events, real);
    expect(sim.results[0]?.error).toBe((real.at(-1)?.result as { error: string } | undefined)?.error);
  });
});

describe('agy 1.2.17 only captures', () => {
  it('web tool without output', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/web-tool.stdout
    const real = parseLines(capture(ctx, `${V1_2_17}/web-tool.stdout`));
    const scenario: Scenario = {
      version: '1.2.17',
      turns: [
        {
          actions: [
            { tool: { name: 'search_web', parameters: { query: 'latest stable CPython release' } } },
            { text: 'VERSION=3.14.8\n', chunks: 1 },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, [...FLAGS_1_2, ...SKIP]);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
  });

  it('quota exhausted: error_message, the real stderr wording, exit 3', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout (the last 2 lines of the stream) and .stderr
    const real = parseLines(capture(ctx, `${V1_2_17}/quota-exhausted.stdout`));
    const realStderr = capture(ctx, `${V1_2_17}/quota-exhausted.stderr`);
    const scenario: Scenario = {
      version: '1.2.17',
      turns: [{ actions: [{ text: 'working' }], end: { quota: { retries: 3 } } }],
    };
    const { sim, code } = await runTurn(scenario, FLAGS_1_2);
    expect(code).toBe(3);
    expectSameShapes(sim.events.slice(-2), real);
    expect(sim.steps.slice(-3).map((s) => s.step_type)).toEqual(Array(3).fill('error_message'));
    const [realError, realAgy] = realStderr.trimEnd().split('\n');
    const [simError, simAgy, ...rest] = sim.stderr.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(simError).toBe(realError);
    const agyJson = (line: string | undefined): Record<string, unknown> =>
      JSON.parse((line ?? '').replace(/^AGY_ERROR: /, '')) as Record<string, unknown>;
    expect(shape(agyJson(simAgy))).toEqual(shape(agyJson(realAgy)));
    expect(agyJson(simAgy)).toMatchObject({ short_error: agyJson(realAgy).short_error, error_code: 429 });
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
  });

  it('model rejected and model/effort conflict: lone result, stderr word for word', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/error-model-rejected.stdout, …-1.2.17/error-model-rejected.stderr
    const real = parseLines(capture(ctx, `${V1_3_1}/error-model-rejected.stdout`));
    const realStderr = capture(ctx, `${V1_2_17}/error-model-rejected.stderr`);
    const { sim, code } = await runTurn({}, ['--model', 'gemini-9.9-nope', '--mode', 'plan'], undefined);
    expect(code).toBe(1);
    expectSameShapes(sim.events, real);
    expect(sim.events).toEqual(real);
    expect(sim.stderr).toBe(realStderr);

    // agy-real/joiomi-playbook-plugin-agy-1.2.17/error-model-effort-conflict.stdout and .stderr
    const conflict = parseLines(capture(ctx, `${V1_2_17}/error-model-effort-conflict.stdout`));
    const conflictStderr = capture(ctx, `${V1_2_17}/error-model-effort-conflict.stderr`);
    const second = await runTurn({}, ['--model', 'gemini-3.8-flash-low', '--effort', 'high'], undefined);
    expect(second.code).toBe(1);
    expect(second.sim.events).toEqual(conflict);
    expect(second.sim.stderr).toBe(conflictStderr);
  });

  it.for([
    ['1.2.17', V1_2_17],
    ['1.3.1', V1_3_1],
  ] as const)(
    '/quota as json (%s): one bare result with the command payload',
    async ([version, folder], ctx) => {
      // agy-real/joiomi-playbook-plugin-agy-1.3.1/quota.stdout, …-1.2.17/quota.stdout (`agy -p /quota --output-format json`)
      const real = parseLines(capture(ctx, `${folder}/quota.stdout`));
      const sim = await harness.start({
        raw: true,
        args: ['-p', '/quota', '--output-format', 'json'],
        env: { AGY_SIM_VERSION: version },
      });
      expect((await sim.exited).code).toBe(0);
      expectSameShapes(sim.events, real);
      expect((sim.events[0]?.command as { name: string } | undefined)?.name).toBe('usage');
    },
  );
});

describe('agy 1.1.8–1.2.7 (-p runs with checkpoints)', () => {
  it('/model answers with command_result under the key "command", then a result', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson
    const real = parseLines(capture(ctx, `${CC}/command_result-2026-09-20-run1.ndjson`));
    const sim = await harness.start({
      raw: true,
      args: ['-p', '/model', '--output-format', 'stream-json'],
      env: { AGY_SIM_VERSION: '1.2.7' },
    });
    expect((await sim.exited).code).toBe(0);
    expectSameShapes(sim.events, real);
    expect(sim.events).toEqual(real);
  });

  it('denied write_to_file (1.2.7): ERROR with TOOL_ERROR "…denied permission…"', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson
    const real = parseLines(capture(ctx, `${CC}/denied_actions-2026-09-20-run1.ndjson`));
    const scenario: Scenario = {
      version: '1.2.7',
      turns: [
        {
          actions: [
            {
              deny: {
                action: 'write_file',
                tool: 'write_to_file',
                parameters: { TargetFile: '/repo/probe.txt' },
              },
            },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, []);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expectSameTools(sim.events, real);
    const message = (lines: Record<string, unknown>[]): string => {
      const failed = lines.find((l) => (l.step_update as { state?: string } | undefined)?.state === 'ERROR');
      const step = failed?.step_update as { tool_info?: { error?: { message?: string } } } | undefined;
      // Targets differ (paths); the wording around them must not.
      return (step?.tool_info?.error?.message ?? '').replace(/"[^"]*"|\([^)]*\)/g, '…');
    };
    expect(message(sim.events)).toBe(message(real));
  });

  it('first turn with an existing custom agent ends with a checkpoint (1.1.9)', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/stream_events-2026-08-02-run1.ndjson (`--agent agy-review`)
    const real = parseLines(capture(ctx, `${CC}/stream_events-2026-08-02-run1.ndjson`));
    const workspace = await harness.tempDir();
    await mkdir(join(workspace, '.agents/agents/agy-review'), { recursive: true });
    await writeFile(
      join(workspace, '.agents/agents/agy-review/agent.md'),
      '---\nname: agy-review\ndescription: reviews\n---\nReview the patch.\n',
    );
    const scenario: Scenario = {
      version: '1.1.9',
      turns: [{ actions: [{ text: '{"findings":[]}', chunks: 2 }] }],
    };
    const { sim, code } = await runTurn(scenario, ['--agent', 'agy-review', '--add-dir', workspace]);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expectSameTools(sim.events, real);
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
    expect(lastResultUsage(real)).toEqual(sumOfDoneSteps(real));
  });

  it('unknown agent: init.agent, an `unknown` notice, then the turn (1.1.9)', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/agent_fallback-2026-08-02-run1.ndjson
    const real = parseLines(capture(ctx, `${CC}/agent_fallback-2026-08-02-run1.ndjson`));
    const scenario: Scenario = { version: '1.1.9', turns: [{ actions: [{ text: 'Hello!\n', chunks: 1 }] }] };
    const { sim, code } = await runTurn(scenario, ['--agent', 'definitely-nonexistent-agent-xyz']);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
    expect(lastResultUsage(real)).toEqual(sumOfDoneSteps(real));
  });

  it('unknown --conversation: an `unknown` notice, then the turn (1.1.9)', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/resume_fallback-2026-08-02-run1.ndjson
    const real = parseLines(capture(ctx, `${CC}/resume_fallback-2026-08-02-run1.ndjson`));
    const scenario: Scenario = { version: '1.1.9', turns: [{ actions: [{ text: 'OK\n', chunks: 1 }] }] };
    const { sim, code } = await runTurn(scenario, ['--conversation', 'no-such-conversation', ...SKIP]);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
  });

  it('resumed conversation: a text-less system_message after user_input, cumulative usage (1.1.9)', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/resume-2026-08-02-run1.ndjson
    const real = parseLines(capture(ctx, `${CC}/resume-2026-08-02-run1.ndjson`));
    const scenario: Scenario = {
      version: '1.1.9',
      turns: [
        { actions: [{ text: 'first answer', chunks: 1 }] },
        { actions: [{ text: 'I found the bug.\n', chunks: 2 }] },
      ],
    };
    const first = await runTurn(scenario, SKIP);
    expect(first.code).toBe(0);
    const id = first.sim.events[0]?.conversation_id as string;
    const second = await runTurn(scenario, ['--conversation', id, ...SKIP]);
    expect(second.code).toBe(0);
    expectSameShapes(second.sim.events, real);
    // Cumulative across processes: the sum over every DONE step of the conversation.
    expect(lastResultUsage(second.sim.events)).toEqual(
      sumOfDoneSteps([...first.sim.events, ...second.sim.events]),
    );
  });

  it('print timeout after a fallback (1.1.9): ERROR "timeout waiting for response", exit 1', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/error_result-2026-08-02-run1.ndjson (--print-timeout 5s, exit 1)
    const real = parseLines(capture(ctx, `${CC}/error_result-2026-08-02-run1.ndjson`));
    const { sim, code } = await runTurn({ version: '1.1.9', turns: [{ actions: [{ stall: true }] }] }, [
      '--conversation',
      'attempt-1',
      '--print-timeout',
      '300ms',
      ...SKIP,
    ]);
    expect(code).toBe(1);
    expectSameShapes(sim.events, real);
    expect(sim.results[0]?.error).toBe('timeout waiting for response');
  });

  it('mid-turn checkpoint between tools, with an agent (1.1.8)', async (ctx) => {
    // agy-real/jdiazromeral-agy-plugin-cc/adversarial_review-2026-07-30-run1.ndjson
    const real = parseLines(capture(ctx, `${CC}/adversarial_review-2026-07-30-run1.ndjson`));
    const scenario: Scenario = {
      version: '1.1.8',
      turns: [
        {
          actions: [
            {
              tool: {
                name: 'find_by_name',
                parameters: { Pattern: 'calc.py', SearchDirectory: '/r' },
                output: 'calc.py',
              },
            },
            { checkpoint: true },
            { tool: { name: 'view_file', parameters: { AbsolutePath: '/r/calc.py' }, output: '4 lines' } },
            { text: '{"findings":[]}', chunks: 3 },
          ],
        },
      ],
    };
    const workspace = await harness.tempDir();
    await mkdir(join(workspace, '.agents/agents/agy-adversarial-review'), { recursive: true });
    await writeFile(
      join(workspace, '.agents/agents/agy-adversarial-review/agent.md'),
      '---\nname: agy-adversarial-review\ndescription: reviews\n---\nFind bugs.\n',
    );
    const { sim, code } = await runTurn(scenario, [
      '--agent',
      'agy-adversarial-review',
      '--add-dir',
      workspace,
    ]);
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expectSameTools(sim.events, real);
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
    expect(lastResultUsage(real)).toEqual(sumOfDoneSteps(real));
  });
});

const UNTETHER = 'littlebearapps-untether-agy-1.3.1';

const TOOL_ACTIVE = (e: Record<string, unknown>) =>
  (e.step_update as { step_type?: string; state?: string } | undefined)?.step_type === 'tool';

describe('agy 1.3.1 (untether stdin runs)', () => {
  it('ok', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/ok.script
    const real = script(ctx, `${UNTETHER}/ok.script`);
    const { sim, code } = await runTurn({ turns: [{ actions: [{ text: 'OK\n', chunks: 2 }] }] }, []);
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    expectSameTools(sim.events, real.out);
  });

  it("the 1.3.3 profile lists 1.3.1's 60 tools (no capture of 1.3.3 shows its own)", async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/ok.script; docs/reference/stream-json.md#built-in-tools
    const real = script(ctx, `${UNTETHER}/ok.script`);
    const scenario: Scenario = { version: '1.3.3', turns: [{ actions: [{ text: 'OK\n' }] }] };
    const { sim } = await runTurn(scenario, []);
    expectSameTools(sim.events, real.out);
  });

  it.for([
    ['SIGINT', 'interrupted_sigint.script'],
    ['SIGTERM', 'interrupted_sigterm.script'],
  ] as const)(
    '%s during a tool: ERROR "interrupted", `error: interrupted`, exit 1',
    async ([signal, file], ctx) => {
      // agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script, interrupted_sigterm.script
      const real = script(ctx, `${UNTETHER}/${file}`);
      const scenario: Scenario = {
        turns: [
          {
            actions: [{ tool: { name: 'run_command', parameters: { CommandLine: 'sleep 30' }, hang: true } }],
          },
        ],
      };
      const sim = await harness.start({ scenario, args: SKIP });
      sim.prompt('go');
      await sim.waitForEvent('tool ACTIVE', TOOL_ACTIVE);
      sim.child.kill(signal);
      const { code } = await sim.exited;
      expect(code).toBe(real.rc);
      expectSameShapes(sim.events, real.out);
      expect(sim.stderr.trim().split('\n')).toEqual(real.err);
    },
  );

  it('an unknown --conversation: the warning, a fresh id', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script
    const real = script(ctx, `${UNTETHER}/unknown_conversation.script`);
    const asked = '00000000-1111-2222-3333-444444444444';
    const { sim, code } = await runTurn({ turns: [{ actions: [{ text: 'OK\n', chunks: 2 }] }] }, [
      '--conversation',
      asked,
    ]);
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    expect(sim.stderr.trim().split('\n')).toEqual(real.err);
    const init = sim.events.find((e) => e.event === 'init');
    expect(init?.conversation_id).not.toBe(asked);
  });
});

describe('agy 1.3.1 --json-schema (untether)', () => {
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string' }, count: { type: 'integer' } },
    required: ['answer', 'count'],
  };

  it('the finish pair, json_schema in init and result', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/json_schema_finish.script
    const real = script(ctx, `${UNTETHER}/json_schema_finish.script`);
    const { sim, code } = await runTurn(
      { turns: [{ actions: [{ text: '{"answer":"Hello!","count":3}\n', chunks: 1 }] }] },
      ['--json-schema', JSON.stringify(schema)],
    );
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    const result = sim.events.find((e) => e.event === 'result')?.result as Record<string, unknown>;
    expect(result.json_schema).toEqual(schema);
    expect(result.structured_output).toEqual({ answer: 'Hello!', count: 3 });
  });

  it('the default script answers the schema with a value generated from it', async () => {
    const { sim, code } = await runTurn({ turns: [] }, ['--json-schema', JSON.stringify(schema)]);
    expect(code).toBe(0);
    const result = sim.events.find((e) => e.event === 'result')?.result as Record<string, unknown>;
    expect(result.status).toBe('SUCCESS');
    expect(result.structured_output).toEqual({ answer: 'answer', count: 1 });
    const finish = sim.events.filter(
      (e) => (e.step_update as { step_type?: string })?.step_type === 'finish',
    );
    expect(finish).toHaveLength(1);
  });
});

describe('agy 1.3.1 slash text on stdin (untether)', () => {
  it("a result ERROR in agy's words, the same on stderr, exit 2", async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/stream_slash_fatal.script
    const real = script(ctx, `${UNTETHER}/stream_slash_fatal.script`);
    const { sim, code } = await runTurn({ turns: [] }, [], '/model');
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    expect(sim.stderr.trim().split('\n')).toEqual(real.err);
  });
});

/** How many updates of step `index` carry a `text_delta` in a capture: the `chunks` that reproduce it. */
function chunksOf(lines: Record<string, unknown>[], index: number): number {
  return lines.filter((l) => {
    const s = l.step_update as { step_index?: number; text_delta?: unknown } | undefined;
    return s?.step_index === index && s.text_delta !== undefined;
  }).length;
}

/** The text step `index` of a capture streamed, joined. */
function textOf(lines: Record<string, unknown>[], index: number): string {
  return lines
    .map((l) => l.step_update as { step_index?: number; text_delta?: string } | undefined)
    .filter((s) => s?.step_index === index && s.text_delta !== undefined)
    .map((s) => s?.text_delta)
    .join('');
}

/** A private HOME (agy's settings and hooks live under it), so the developer's own never leak in. */
async function homeWith(settings?: Record<string, unknown>): Promise<Record<string, string>> {
  const home = await harness.tempDir();
  if (settings !== undefined) {
    await mkdir(join(home, '.gemini/antigravity-cli'), { recursive: true });
    await writeFile(join(home, '.gemini/antigravity-cli/settings.json'), JSON.stringify(settings));
  }
  return { HOME: home };
}

const JETSKI_COMMAND = (real: { err: string[] }) => real.err;

describe('agy 1.3.1 (untether stdin runs, the rest)', () => {
  it('ask_question without a hook: an `unknown` step after the model step', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/ask_question_nohook.script
    const real = script(ctx, `${UNTETHER}/ask_question_nohook.script`);
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { text: '' },
            { unknownStep: true },
            { text: 'You skipped.\n', chunks: chunksOf(real.out, 3) },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, [], 'go', await homeWith());
    expect(code).toBe(real.rc);
    expect(sim.stderr).toBe('');
    expectSameShapes(sim.events, real.out);
    expectSameTools(sim.events, real.out);
    expect(lastResultUsage(real.out)).toEqual(sumOfDoneSteps(real.out));
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
  });

  it('a held background command: a tool without output, text, system_message, text', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/background_held.script
    const real = script(ctx, `${UNTETHER}/background_held.script`);
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { tool: { name: 'run_command', parameters: { CommandLine: 'sleep 20; echo done > bg.txt' } } },
            { text: 'STARTED\n', chunks: chunksOf(real.out, 3) },
            { systemMessage: 'the background command finished' },
            { text: 'The background task has finished.\n', chunks: chunksOf(real.out, 5) },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, SKIP, 'go', await homeWith());
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    expect(sim.lines.map((l) => l.raw).join('\n')).toContain('\\u003e bg.txt');
    expect(lastResultUsage(real.out)).toEqual(sumOfDoneSteps(real.out));
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
  });

  it('--continue with nothing to continue: a fresh conversation', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/continue_fresh.script
    const real = script(ctx, `${UNTETHER}/continue_fresh.script`);
    const scenario: Scenario = { turns: [{ actions: [{ text: 'NONE\n', chunks: chunksOf(real.out, 1) }] }] };
    const { sim, code } = await runTurn(scenario, ['--continue'], 'go', await homeWith());
    expect(code).toBe(real.rc);
    expect(sim.stderr).toBe('');
    expectSameShapes(sim.events, real.out);
  });

  it('--continue of the latest conversation: system_message with a duration, cumulative usage', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/continue_workspace.script
    const real = script(ctx, `${UNTETHER}/continue_workspace.script`);
    const scenario: Scenario = {
      turns: [
        { actions: [{ text: 'first' }] },
        { actions: [{ text: 'again\n', chunks: chunksOf(real.out, 6) }] },
      ],
    };
    const env = await homeWith();
    const first = await runTurn(scenario, [], 'go', env);
    const second = await runTurn(scenario, ['--continue'], 'go', env);
    expect(second.code).toBe(real.rc);
    expectSameShapes(second.sim.events, real.out);
    expect(second.sim.events[0]?.conversation_id).toBe(first.sim.events[0]?.conversation_id);
    expect(lastResultUsage(second.sim.events)).toEqual(
      sumOfDoneSteps([...first.sim.events, ...second.sim.events]),
    );
  });

  it('resume after an interrupt: system_message with a duration, then the answer', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/resume_after_interrupt.script (the resumed process)
    const real = script(ctx, `${UNTETHER}/resume_after_interrupt.script`);
    const scenario: Scenario = {
      turns: [
        { actions: [{ tool: { name: 'run_command', parameters: { CommandLine: 'sleep 30' }, hang: true } }] },
        { actions: [{ text: 'RESUMED\n', chunks: chunksOf(real.out, 5) }] },
      ],
    };
    const env = await homeWith();
    const first = await harness.start({ scenario, args: SKIP, env });
    first.prompt('go');
    await first.waitForEvent('tool ACTIVE', TOOL_ACTIVE);
    first.child.kill('SIGINT');
    expect((await first.exited).code).toBe(1);
    const id = first.events[0]?.conversation_id as string;
    const { sim, code } = await runTurn(scenario, ['--conversation', id], 'go', env);
    expect(code).toBe(real.rc);
    expect(sim.stderr).toBe('');
    expectSameShapes(sim.events, real.out);
  });

  it('hooks: allowed tools, a mid-turn user_input, a hook denial as TOOL_ERROR, the turn goes on', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/hook_deny_bypass.script
    const real = script(ctx, `${UNTETHER}/hook_deny_bypass.script`);
    const workspace = await harness.tempDir();
    await mkdir(join(workspace, '.agents'), { recursive: true });
    const deny = `if grep -q denyme; then echo '{"decision":"deny","reason":"probe hook deny: the user refused this command"}'; fi`;
    await writeFile(
      join(workspace, '.agents/hooks.json'),
      JSON.stringify({
        probe: { PreToolUse: [{ matcher: 'run_command', hooks: [{ type: 'command', command: deny }] }] },
      }),
    );
    const run = (line: string): ToolAction => ({
      tool: { name: 'run_command', parameters: { CommandLine: line }, output: `${line.slice(5)}\r\n` },
    });
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            {
              tool: {
                name: 'view_file',
                parameters: { AbsolutePath: join(workspace, 'README.md') },
                output: '2 lines',
              },
            },
            // The capture's mid-turn user_input (a DONE step with only a duration; what wrote it is not recorded).
            { step: { state: 'DONE', step_type: 'user_input', duration_seconds: 0.0001406 } },
            {
              tool: {
                name: 'replace_file_content',
                parameters: { TargetFile: join(workspace, 'README.md') },
              },
            },
            run('echo allowme'),
            run('echo askme'),
            { tool: { name: 'run_command', parameters: { CommandLine: 'echo denyme' }, output: 'never' } },
            { text: textOf(real.out, 12), chunks: chunksOf(real.out, 12) },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, [...SKIP, '--add-dir', workspace], 'go', await homeWith());
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    const error = (lines: Record<string, unknown>[]) =>
      lines
        .map((l) => l.step_update as { state?: string; tool_info?: { error?: unknown } } | undefined)
        .find((s) => s?.state === 'ERROR')?.tool_info?.error;
    expect(error(sim.events)).toEqual(error(real.out));
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
  });

  it.for([
    ['tools_denied.script', 'view_file', { AbsolutePath: '/p/notes.txt' }, '2 lines, 20 bytes'],
    ['write_ok_shell_denied.script', 'write_to_file', { TargetFile: '/p/out.txt' }, undefined],
  ] as const)(
    '%s: a tool runs, run_command is soft-denied (DONE, denied_actions, the jetski line)',
    async ([file, name, parameters, output], ctx) => {
      // agy-real/littlebearapps-untether-agy-1.3.1/tools_denied.script, write_ok_shell_denied.script
      const real = script(ctx, `${UNTETHER}/${file}`);
      const scenario: Scenario = {
        turns: [
          {
            actions: [
              { tool: { name, parameters: { ...parameters }, ...(output === undefined ? {} : { output }) } },
              {
                deny: {
                  action: 'command',
                  tool: 'run_command',
                  parameters: { CommandLine: 'echo probe-shell' },
                },
              },
            ],
          },
        ],
      };
      const { sim, code } = await runTurn(scenario, [], 'go', await homeWith());
      expect(code).toBe(real.rc);
      expectSameShapes(sim.events, real.out);
      const denied = (lines: Record<string, unknown>[]) =>
        (lines.at(-1)?.result as { denied_actions?: unknown } | undefined)?.denied_actions;
      expect(denied(sim.events)).toEqual(denied(real.out));
      expect(sim.stderr.trim().split('\n')).toEqual(JETSKI_COMMAND(real));
    },
  );

  it('a subagent: the step without tool_info, initial_prompt, then waiting text, system_message, answer', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/subagent.script
    const real = script(ctx, `${UNTETHER}/subagent.script`);
    const workspace = await harness.tempDir();
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            {
              subagent: {
                name: 'research',
                role: 'Secret Reader',
                prompt: 'Read notes.txt and reply with the secret word only.',
                actions: [{ text: 'banana' }],
                waiting: {
                  text: 'I have spawned the subagent. Waiting for its response.\n',
                  chunks: chunksOf(real.out, 3),
                },
                answer: { text: 'SUB SAID banana\n', chunks: chunksOf(real.out, 5) },
              },
            },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, [...SKIP, '--add-dir', workspace], 'go', await homeWith());
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    // agy's usage is the parent's steps only, and its response joins the parent's two texts.
    expect(lastResultUsage(real.out)).toEqual(sumOfDoneSteps(real.out));
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
    expect((sim.events.at(-1)?.result as { response?: string } | undefined)?.response).toBe(
      'I have spawned the subagent. Waiting for its response.\nSUB SAID banana\n',
    );
  });

  it('1.3.2: slash text that is not an agy command is a prompt; init names the default model', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/slash_prompt_literal.script (agy 1.3.2)
    const real = script(ctx, `${UNTETHER}/slash_prompt_literal.script`);
    const scenario: Scenario = {
      version: '1.3.2',
      turns: [{ actions: [{ text: 'OK\n', chunks: chunksOf(real.out, 1) }] }],
    };
    const { sim, code } = await runTurn(scenario, [], '/tmp/notes.txt: reply OK', await homeWith());
    expect(code).toBe(real.rc);
    expect(sim.stderr).toBe('');
    expectSameShapes(sim.events, real.out);
    expectSameTools(sim.events, real.out);
  });

  it('signed out (1.3.2): the login hint, a lone result, the error line, exit 1', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/unauth.script
    const real = script(ctx, `${UNTETHER}/unauth.script`);
    const { sim, code } = await runTurn(
      { version: '1.3.2', startup: { authFail: true } },
      [],
      undefined,
      await homeWith(),
    );
    expect(code).toBe(real.rc);
    expect(sim.events).toEqual(real.out);
    expect(sim.stderr.trim().split('\n')).toEqual(real.err);
  });

  it('an invalid model (1.2.14, "unchanged on 1.3.1"): a lone result and stderr in agy\'s words', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/invalid_model.script
    const real = script(ctx, `${UNTETHER}/invalid_model.script`);
    const { sim, code } = await runTurn({}, ['--model', 'nope-model'], undefined, await homeWith());
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
    // The list of models after "Available models:" is the build's own (1.2.14 here, 1.3.1 in the simulator:
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/error-model-rejected.stdout); the words before it must match.
    const head = (text: string) =>
      text.replaceAll('nope-model', 'does-not-exist-model').split('Available models:')[0];
    const error = (lines: Record<string, unknown>[]) =>
      (lines[0]?.result as { error?: string } | undefined)?.error ?? '';
    expect(head(error(sim.events))).toBe(head(error(real.out)));
    expect(head(sim.stderr)).toBe(head(`${real.err.join('\n')}\n`));
  });

  it.for([['model.script'], ['effort.script']] as const)(
    '-p /%s: command_result under "command", then the result',
    async ([file], ctx) => {
      // agy-real/littlebearapps-untether-agy-1.3.1/model.script, effort.script (print mode, no init)
      const real = script(ctx, `${UNTETHER}/${file}`);
      const command = `/${file.replace('.script', '')}`;
      const sim = await harness.start({
        raw: true,
        args: ['-p', command, '--output-format', 'stream-json', '--model', 'gemini-3.8-flash-high'],
        env: await homeWith(),
      });
      expect((await sim.exited).code).toBe(real.rc);
      expectSameShapes(sim.events, real.out);
    },
  );
});

const PLENIPO = 'unnamed-plenipo-agy-1.2.13';

describe('agy 1.2.13 (plenipo stdin runs)', () => {
  /** Lines of a capture whose author replaced `init.tools` by a placeholder: tools compared by shape only. */
  const plenipo = (ctx: TestContext, file: string) => parseLines(capture(ctx, `${PLENIPO}/${file}`));

  it('a plan + sandbox turn', async (ctx) => {
    // agy-real/unnamed-plenipo-agy-1.2.13/e3-plan-sandbox-ok.ndjson
    const real = plenipo(ctx, 'e3-plan-sandbox-ok.ndjson');
    const scenario: Scenario = {
      version: '1.2.13',
      turns: [{ actions: [{ text: 'OK\n', chunks: chunksOf(real, 1) }] }],
    };
    const { sim, code } = await runTurn(scenario, ['--mode', 'plan', '--sandbox'], 'go', await homeWith());
    expect(code).toBe(0);
    expectSameShapes(sim.events, real);
    expect(lastResultUsage(real)).toEqual(sumOfDoneSteps(real));
    expect(lastResultUsage(sim.events)).toEqual(sumOfDoneSteps(sim.events));
  });

  it('the same conversation resumed: system_message with a duration, num_turns 2, cumulative usage', async (ctx) => {
    // agy-real/unnamed-plenipo-agy-1.2.13/e3-resume-conversation.ndjson (the resumed process; the first one is
    // e3-plan-sandbox-ok.ndjson's conversation)
    const real = plenipo(ctx, 'e3-resume-conversation.ndjson');
    const scenario: Scenario = {
      version: '1.2.13',
      turns: [{ actions: [{ text: 'OK\n' }] }, { actions: [{ text: 'OK\n', chunks: chunksOf(real, 4) }] }],
    };
    const env = await homeWith();
    const first = await runTurn(scenario, ['--mode', 'plan'], 'go', env);
    const id = first.sim.events[0]?.conversation_id as string;
    const second = await runTurn(scenario, ['--mode', 'plan', '--conversation', id], 'go', env);
    expect(second.code, second.sim.stderr).toBe(0);
    expectSameShapes(second.sim.events, real);
    expect(lastResultUsage(second.sim.events)).toEqual(
      sumOfDoneSteps([...first.sim.events, ...second.sim.events]),
    );
    expect((second.sim.events.at(-1)?.result as { num_turns?: number } | undefined)?.num_turns).toBe(2);
  });

  it('toolPermission "strict": init says so, run_command ERROR "permission check failed", denied_actions', async (ctx) => {
    // agy-real/unnamed-plenipo-agy-1.2.13/e9-strict-denied.excerpt.ndjson (the author left out the user_input and
    // the model step: SOURCE.txt), so those two are left out of the simulator's lines too.
    const real = plenipo(ctx, 'e9-strict-denied.excerpt.ndjson');
    const scenario: Scenario = {
      version: '1.2.13',
      turns: [
        {
          actions: [
            {
              deny: { action: 'command', tool: 'run_command', parameters: { CommandLine: 'Get-ChildItem' } },
            },
          ],
        },
      ],
    };
    const { sim, code } = await runTurn(scenario, [], 'go', await homeWith({ toolPermission: 'strict' }));
    expect(code).toBe(0);
    const shown = sim.events.filter((l) => {
      const s = l.step_update as { step_type?: string; text_delta?: unknown } | undefined;
      return (
        s === undefined ||
        !(s.step_type === 'user_input' || (s.step_type === 'agent_response' && s.text_delta === undefined))
      );
    });
    expectSameShapes(shown, real);
    expect((sim.events[0]?.init as { permission_mode?: string } | undefined)?.permission_mode).toBe('strict');
    const message = (lines: Record<string, unknown>[]) => {
      const failed = lines.find((l) => (l.step_update as { state?: string } | undefined)?.state === 'ERROR');
      const text =
        (failed?.step_update as { tool_info?: { error?: { message?: string } } } | undefined)?.tool_info
          ?.error?.message ?? '';
      // The author cut the message after "user denied permission"; the wording up to there must match.
      return text.slice(0, text.indexOf('user denied permission') + 'user denied permission'.length);
    };
    expect(message(sim.events)).toBe(message(real));
  });
});

/** Folders of agy-real/ that hold no stream-json run, and why. */
const NOT_STREAM_JSON: Record<string, string> = {
  'hooks-anti-samcheonpo-agy-1.3.0':
    'hook stdin payloads and a transcript (test/connection/agy/hook-handlers.real-payloads.test.ts)',
  'mluigi-htui-agy-acp-server-1.1.1':
    'ACP session/update lines (test/connection/acp/agy-acp-server.test.ts*.test.ts)',
  'configs-hooks-json':
    'hooks.json files users wrote (test/testing/simulator/runtime-config.process.test.ts)',
  'configs-mcp-config-json':
    'mcp_config.json files users wrote (test/testing/simulator/runtime-config.process.test.ts)',
};

describe('coverage', () => {
  it('every stream-json capture in agy-real/ is compared here, by folder and file', (ctx) => {
    if (!existsSync(AGY_REAL)) ctx.skip('../shared/fixtures/agy-real is absent');
    const source = readFileSync(fileURLToPath(import.meta.url), 'utf8');
    const missing: string[] = [];
    for (const folder of readdirSync(AGY_REAL, { withFileTypes: true })) {
      if (!folder.isDirectory() || folder.name in NOT_STREAM_JSON) continue;
      if (!source.includes(folder.name)) missing.push(`${folder.name}/`);
      for (const file of readdirSync(join(AGY_REAL, folder.name))) {
        // .stderr files go with the run of the same name; SOURCE.txt describes the folder.
        if (!/\.(script|stdout|ndjson)$/.test(file)) continue;
        if (!source.includes(file)) missing.push(`${folder.name}/${file}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
