/**
 * The simulator against real agy: for each captured run in `../shared/fixtures/agy-real/`, the equivalent
 * scenario runs through the built simulator (a real spawn, `test/helpers/sim-process.ts`) and its output is
 * compared with the capture shape by shape — the same events in the same order, the same keys per event and
 * step (recursively; ids, text, numbers and timestamps are ignored), the same step types and states, the same
 * `result.status`, exit code and stderr pattern. Skips (with the reason) when the fixtures are absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { Scenario } from '../../src/testing/simulator/scenario.js';
import { ensureSimulatorBuilt, SimHarness, type SimProcess } from '../helpers/sim-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const AGY_REAL = join(ROOT, '../shared/fixtures/agy-real');
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

/** A capture file's text; skips the test (with the reason) when the fixtures are not there. */
function capture(ctx: TestContext, file: string): string {
  const path = join(AGY_REAL, file);
  if (!existsSync(path)) ctx.skip(`agy-real capture ${file} is absent (../shared/fixtures not checked out)`);
  return readFileSync(path, 'utf8');
}

function parseLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * A value's shape: objects become their sorted keys with the shapes of their values, arrays the distinct
 * shapes of their elements, anything else its type. Values (ids, text, numbers) do not matter.
 */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const distinct = new Map<string, unknown>();
    for (const element of value) {
      const s = shape(element);
      distinct.set(JSON.stringify(s), s);
    }
    return [...distinct.values()];
  }
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((key) => [key, shape(obj[key])]),
    );
  }
  return typeof value;
}

/** What must match per line: the event, its shape, and the values that carry meaning (types, states, status). */
function signature(line: Record<string, unknown>): Record<string, unknown> {
  const step = line.step_update as Record<string, unknown> | undefined;
  const result = (line.event === undefined ? line : line.result) as Record<string, unknown> | undefined;
  return {
    event: line.event,
    shape: shape(line),
    ...(step === undefined ? {} : { step: `${step.step_type}/${step.state}` }),
    ...(result?.status === undefined ? {} : { status: result.status }),
  };
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

  it('/quota as json: one bare result with the command payload', async (ctx) => {
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/quota.stdout (`agy -p /quota --output-format json`)
    const real = parseLines(capture(ctx, `${V1_3_1}/quota.stdout`));
    const sim = await harness.start({ raw: true, args: ['-p', '/quota', '--output-format', 'json'] });
    expect((await sim.exited).code).toBe(0);
    expectSameShapes(sim.events, real);
    expect((sim.events[0]?.command as { name: string } | undefined)?.name).toBe('usage');
  });
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

  it('subagent runs: not captured', (ctx) => {
    ctx.skip(
      'no agy-real capture shows a subagent run; test/simulator/simulator.test.ts covers the reference shape',
    );
  });
});

const UNTETHER = 'littlebearapps-untether-agy-1.3.1';

/** A `.script` capture (agy-real/littlebearapps-untether-agy-1.3.1/SOURCE.txt): its stdout lines, stderr, exit code. */
function script(ctx: TestContext, file: string) {
  const entries = capture(ctx, file)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => ({ kind: l.slice(0, l.indexOf(':')), text: l.slice(l.indexOf(':') + 1) }));
  return {
    out: entries.filter((e) => e.kind === 'out').map((e) => JSON.parse(e.text) as Record<string, unknown>),
    err: entries.filter((e) => e.kind === 'err').map((e) => e.text),
    rc: Number(entries.find((e) => e.kind === 'rc')?.text),
  };
}

const TOOL_ACTIVE = (e: Record<string, unknown>) =>
  (e.step_update as { step_type?: string; state?: string } | undefined)?.step_type === 'tool';

describe('agy 1.3.1 (untether stdin runs)', () => {
  it('ok', async (ctx) => {
    // agy-real/littlebearapps-untether-agy-1.3.1/ok.script
    const real = script(ctx, `${UNTETHER}/ok.script`);
    const { sim, code } = await runTurn({ turns: [{ actions: [{ text: 'OK\n', chunks: 2 }] }] }, []);
    expect(code).toBe(real.rc);
    expectSameShapes(sim.events, real.out);
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
    expect(result.structured_output).toEqual({ answer: 'simulated', count: 0 });
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
