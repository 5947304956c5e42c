/**
 * Integration tests for the agy simulator: each test spawns the built `dist/testing/simulator/main.js` and checks
 * its wire output, stderr and exit code against docs/reference/stream-json.md.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_EVENTS, WireEnvelopeSchema } from '../../../src/protocol/stream-json-wire.js';
import { simulatorPath, writeScenario } from '../../../src/testing/simulator/path.js';
import type { Scenario } from '../../../src/testing/simulator/scenario.js';
import { ensureSimulatorBuilt, SIM_MAIN, SimHarness, type SimProcess } from '../../helpers/sim-process.js';

const ZERO_USAGE = {
  input_tokens: 0,
  output_tokens: 0,
  thinking_tokens: 0,
  cache_read_tokens: 0,
  total_tokens: 0,
};
const KNOWN: ReadonlySet<string> = new Set(KNOWN_EVENTS);

const harness = new SimHarness();

beforeAll(async () => {
  await ensureSimulatorBuilt();
}, 120_000);

afterEach(async () => {
  await harness.cleanup();
});

/** Every known envelope validates against the wire schema; every line is one JSON object. */
function expectWireValid(sim: SimProcess): void {
  for (const line of sim.lines) {
    expect(line.json, `not JSON: ${line.raw.slice(0, 200)}`).toBeTypeOf('object');
    const event = line.json?.event;
    if (typeof event === 'string' && KNOWN.has(event)) {
      const parsed = WireEnvelopeSchema.safeParse(line.json);
      expect(parsed.success, `${line.raw.slice(0, 300)}\n${parsed.error?.message}`).toBe(true);
    }
  }
}

/** Sends prompts, closes stdin and waits for a clean exit. */
async function runPrompts(sim: SimProcess, prompts: string[]): Promise<void> {
  for (const prompt of prompts) sim.prompt(prompt);
  sim.endInput();
  expect(await sim.exited).toEqual({ code: 0, signal: null });
}

function conversationId(sim: SimProcess): string {
  const init = sim.events.find((e) => e.event === 'init');
  return init?.conversation_id as string;
}

describe('flags and startup', () => {
  it('prints the version and exits 0', async () => {
    const sim = await harness.start({ raw: true, args: ['--version'] });
    expect(await sim.exited).toEqual({ code: 0, signal: null });
    // The newest captured build is the default (agy-real/joiomi-playbook-plugin-agy-1.3.1/SOURCE.txt).
    expect(sim.lines[0]?.raw).toBe('agy version 1.3.1');
    const env = await harness.start({ raw: true, args: ['--version'], env: { AGY_SIM_VERSION: '1.2.7' } });
    await env.exited;
    expect(env.lines[0]?.raw).toBe('agy version 1.2.7');
  });

  it('prints a scenario version', async () => {
    const sim = await harness.start({ raw: true, args: ['--version'], scenario: { version: '1.1.8' } });
    await sim.exited;
    expect(sim.lines[0]?.raw).toBe('agy version 1.1.8');
  });

  it('rejects an unknown flag with exit 2', async () => {
    const sim = await harness.start({ args: ['--frobnicate'] });
    expect((await sim.exited).code).toBe(2);
    expect(sim.stderr).toContain('error: unknown flag: --frobnicate');
    expect(sim.lines).toHaveLength(0);
  });

  it('requires --output-format stream-json with --input-format stream-json', async () => {
    const sim = await harness.start({ raw: true, args: ['--input-format', 'stream-json'] });
    expect((await sim.exited).code).toBe(2);
    expect(sim.stderr).toMatch(/^error: .*--output-format stream-json/m);
  });

  it('rejects a flag without its value, and a bad --effort', async () => {
    const missing = await harness.start({ args: ['--model'] });
    expect((await missing.exited).code).toBe(2);
    expect(missing.stderr).toContain('error: flag needs an argument: --model');
    const effort = await harness.start({ args: ['--effort=extreme'] });
    expect((await effort.exited).code).toBe(2);
    expect(effort.stderr).toContain('--effort');
  });

  it('writes init with --flag=value forms, the model, and the permission mode', async () => {
    const sim = await harness.start({
      args: [
        '--model=gemini-3-pro',
        '--effort',
        'high',
        '--dangerously-skip-permissions',
        '-p',
        '',
        '--agent',
        'x',
      ],
    });
    const init = await sim.waitForEvent('init', (e) => e.event === 'init');
    expect(init.conversation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(init.init).toMatchObject({
      cwd: process.cwd(),
      model: 'gemini-3-pro',
      permission_mode: 'always-proceed',
    });
    expect((init.init as { tools: string[] }).tools).toContain('run_command');
    await runPrompts(sim, []);
    expectWireValid(sim);

    const plain = await harness.start();
    const plainInit = await plain.waitForEvent('init', (e) => e.event === 'init');
    expect(plainInit.init).not.toHaveProperty('model');
    expect(plainInit.init).toMatchObject({ permission_mode: 'request-review' });
  });

  it('fails authentication with a lone result and exit 1', async () => {
    const sim = await harness.start({ scenario: { startup: { authFail: true } } });
    expect(await sim.exited).toEqual({ code: 1, signal: null });
    expect(sim.lines.map((l) => l.raw)).toEqual([
      '{"event":"result","result":{"conversation_id":"","status":"ERROR","response":"","error":"authentication failed or timed out","duration_seconds":0,"num_turns":0,"usage":{"input_tokens":0,"output_tokens":0,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":0}}}',
    ]);
    expectWireValid(sim);
  });

  it('rejects an invalid model with a lone result and exit 1', async () => {
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/error-model-rejected.stdout (and the 1.2.17 .stderr)
    const sim = await harness.start({ args: ['--model', 'gemini-9.9-nope'] });
    expect((await sim.exited).code).toBe(1);
    const error =
      'invalid model selection (--model "gemini-9.9-nope" --effort ""): model gemini-9.9-nope is not recognized as a known model or custom model in settings\nAvailable models:\n  Gemini 3.8 Flash (High)';
    expect(sim.results).toEqual([
      expect.objectContaining({ status: 'ERROR', conversation_id: '', num_turns: 0 }),
    ]);
    expect(sim.results[0]?.error as string).toContain(error);
    expect(sim.stderr).toContain(`error: ${error}`);
    expect(sim.lines).toHaveLength(1);
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/error-model-effort-conflict.stdout
    const conflict = await harness.start({ args: ['--model', 'gemini-3.8-flash-low', '--effort', 'high'] });
    expect((await conflict.exited).code).toBe(1);
    expect(conflict.results[0]?.error).toBe(
      'invalid model selection (--model "gemini-3.8-flash-low" --effort "high"): --model gemini-3.8-flash-low conflicts with --effort=high',
    );
  });

  it('exits before init, and reports a bad scenario file with exit 1', async () => {
    const early = await harness.start({
      scenario: { startup: { exitBeforeInit: { code: 7, stderr: 'boom' } } },
    });
    expect((await early.exited).code).toBe(7);
    expect(early.stderr).toBe('boom\n');
    expect(early.lines).toHaveLength(0);

    const bad = await harness.start({
      scenario: { turns: [{ actions: [{ nope: 1 }] }] } as unknown as Scenario,
    });
    expect((await bad.exited).code).toBe(1);
    expect(bad.stderr).toMatch(
      /^error: invalid simulator scenario .*turns\[0\]\.actions\[0\]: unknown action/,
    );
  });

  it('escapes < > & as Go does; 1.3.2 names its default model in init without --model', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script (\u003e),
    // …/slash_prompt_literal.script (1.3.2 init.model)
    const sim = await harness.start({
      scenario: { turns: [{ actions: [{ text: 'a <b> & c', chunks: 1 }] }] },
      env: { AGY_SIM_VERSION: '1.3.2' },
    });
    await runPrompts(sim, ['x']);
    const raw = sim.lines.map((l) => l.raw).join('\n');
    expect(raw).toContain('a \\u003cb\\u003e \\u0026 c');
    expect(raw).not.toContain('<b>');
    expect(sim.results[0]?.response).toBe('a <b> & c');
    expect(sim.events.find((e) => e.event === 'init')?.init).toMatchObject({ model: 'gemini-3.8-flash' });
  });

  it("reads usage in the SDK's camelCase as agy's snake_case", async () => {
    const sim = await harness.start({
      scenario: { turns: [{ actions: [{ text: 'hi', usage: { inputTokens: 7, outputTokens: 3 } }] }] },
    });
    await runPrompts(sim, ['x']);
    expect(sim.results[0]?.usage).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
  });

  it('names an unknown key in a turn, its end, or the top level (a typo never passes silently)', async () => {
    for (const [scenario, message] of [
      [
        { turns: [{ actions: [{ text: 'hi', chunkz: 3 }] }] },
        /unknown key "chunkz" in turns\[0\]\.actions\[0\] /,
      ],
      [
        { turns: [{ actions: [{ text: 'a' }, { tool: { name: 'view_file', ennd: true } }] }] },
        /unknown key "ennd" in turns\[0\]\.actions\[1\]\.tool /,
      ],
      [
        { turns: [{ actions: [{ tool: { name: 'x', error: { mesage: 'm' } } }] }] },
        /unknown key "mesage" in turns\[0\]\.actions\[0\]\.tool\.error /,
      ],
      [
        { turns: [{ actions: [{ text: 'a', usage: { output_tokenz: 1 } }] }] },
        /unknown key "output_tokenz" in turns\[0\]\.actions\[0\]\.usage /,
      ],
      [
        { turns: [{ actions: [{ deny: { action: 'command' }, modelStep: { usage: {}, extra: 1 } }] }] },
        /unknown key "extra" in turns\[0\]\.actions\[0\]\.modelStep /,
      ],
      [
        { turns: [{ actions: [{ sleep: 5, modelStep: false }] }] },
        /unknown key "modelStep" in turns\[0\]\.actions\[0\] /,
      ],
      [
        { turns: [{ actions: [{ subagent: { prompt: 'p', actions: [{ text: 'a', chunk: 1 }] } }] }] },
        /unknown key "chunk" in turns\[0\]\.actions\[0\]\.subagent\.actions\[0\] /,
      ],
      [
        { turns: [{ actions: [{ subagent: { prompt: 'p', actions: [], rol: 'r' } }] }] },
        /unknown key "rol" in turns\[0\]\.actions\[0\]\.subagent /,
      ],
      [
        { turns: [{ actions: [{ timestampDeltas: { count: 1, interval: 2 } }] }] },
        /unknown key "interval" in turns\[0\]\.actions\[0\]\.timestampDeltas /,
      ],
      [
        { turns: [{ actions: [], end: { quota: { retry: 1 } } }] },
        /unknown key "retry" in turns\[0\]\.end\.quota /,
      ],
      [
        { startup: { exitBeforeInit: { code: 1, stdrr: 'x' } } },
        /unknown key "stdrr" in startup\.exitBeforeInit /,
      ],
      [{ turns: [{ actions: [], ennd: {} }] }, /unknown key "ennd" in turns\[0\]/],
      [{ turns: [{ actions: [], end: { statuss: 'ERROR' } }] }, /unknown key "statuss" in turns\[0\]\.end/],
      [{ turnz: [] }, /unknown key "turnz"/],
      [{ interrupt: { exitcode: 1 } }, /unknown key "exitcode" in interrupt/],
    ] as const) {
      const sim = await harness.start({ scenario: scenario as unknown as Scenario });
      expect((await sim.exited).code).toBe(1);
      expect(sim.stderr).toMatch(message);
    }
  });
});

describe('the default script', () => {
  it('lists the first --add-dir and echoes the prompt with deterministic usage', async () => {
    const workspace = await harness.tempDir();
    await writeFile(join(workspace, 'b.txt'), 'b');
    await mkdir(join(workspace, 'a-dir'));
    const sim = await harness.start({ args: ['--add-dir', workspace] });
    await runPrompts(sim, ['hi there']);
    expectWireValid(sim);

    const steps = sim.steps;
    // Every tool call follows a text-less model step (agy-real/joiomi-playbook-plugin-agy-1.3.1/success-tools.stdout).
    expect(steps.map((s) => [s.step_index, s.step_type, s.state])).toEqual([
      [0, 'user_input', 'DONE'],
      [1, 'agent_response', 'DONE'],
      [2, 'tool', 'ACTIVE'],
      [2, 'tool', 'DONE'],
      [3, 'agent_response', 'ACTIVE'],
      [3, 'agent_response', 'ACTIVE'],
      [3, 'agent_response', 'DONE'],
    ]);
    expect(steps[1]).not.toHaveProperty('text_delta');
    expect(steps[3]?.duration_seconds).toBeTypeOf('number');
    expect(steps[3]).toMatchObject({
      tool_name: 'list_dir',
      tool_info: { name: 'list_dir', parameters: { DirectoryPath: workspace }, output: 'a-dir\nb.txt' },
    });
    const text = 'Hello from the agy simulator (offline). You said: "hi there".';
    const deltas = steps.filter((s) => s.step_type === 'agent_response').map((s) => s.text_delta);
    expect(deltas.join('')).toBe(text);
    const usage = {
      input_tokens: 102,
      output_tokens: Math.ceil(text.length / 4) + 8,
      thinking_tokens: 8,
      cache_read_tokens: 0,
      total_tokens: 102 + Math.ceil(text.length / 4) + 8,
    };
    expect(steps[6]).toMatchObject({ usage });
    expect(steps[6]?.duration_seconds).toBeTypeOf('number');
    const modelUsage = steps[1]?.usage as Record<string, number>;
    expect(modelUsage.input_tokens).toBe(102);
    const sum = (key: string): number =>
      ((usage as Record<string, number>)[key] ?? 0) + (modelUsage[key] ?? 0);
    expect(sim.results).toEqual([
      expect.objectContaining({
        status: 'SUCCESS',
        response: text,
        num_turns: 1,
        // The sum over the DONE steps, as in every capture.
        usage: {
          input_tokens: sum('input_tokens'),
          output_tokens: sum('output_tokens'),
          thinking_tokens: sum('thinking_tokens'),
          cache_read_tokens: 0,
          total_tokens: sum('total_tokens'),
        },
        conversation_id: conversationId(sim),
      }),
    ]);
  });

  it('skips hidden --add-dir paths, as agy does', async () => {
    const base = await harness.tempDir();
    await mkdir(join(base, '.hidden'));
    const sim = await harness.start({ args: ['--add-dir', join(base, '.hidden')] });
    await runPrompts(sim, ['x']);
    expect(sim.steps.some((s) => s.step_type === 'tool')).toBe(false);
  });
});

describe('turns', () => {
  it('runs queued turns in order with cumulative usage, num_turns and step_index', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { sleep: 30 },
            {
              text: 'one',
              usage: { input_tokens: 10, output_tokens: 5, thinking_tokens: 2, cache_read_tokens: 1 },
            },
          ],
        },
        { actions: [{ text: 'two', usage: { input_tokens: 20, output_tokens: 7 } }] },
      ],
    };
    const sim = await harness.start({ scenario });
    // The second message arrives while the first turn is still running: it must wait its turn.
    await runPrompts(sim, ['first', 'second']);
    expectWireValid(sim);
    const [r1, r2] = sim.results;
    expect(r1).toMatchObject({
      response: 'one',
      num_turns: 1,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        thinking_tokens: 2,
        cache_read_tokens: 1,
        total_tokens: 15,
      },
    });
    expect(r2).toMatchObject({
      response: 'two',
      num_turns: 2,
      usage: {
        input_tokens: 30,
        output_tokens: 12,
        thinking_tokens: 2,
        cache_read_tokens: 1,
        total_tokens: 42,
      },
    });
    expect(r2?.duration_seconds as number).toBeGreaterThanOrEqual(r1?.duration_seconds as number);
    const indexes = sim.steps.map((s) => s.step_index as number);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    // The result of turn 1 comes before turn 2's user_input.
    const order = sim.events.map((e) =>
      e.event === 'result' ? 'result' : (e.step_update as { step_type?: string })?.step_type,
    );
    expect(order.indexOf('result')).toBeLessThan(order.lastIndexOf('user_input'));
  });

  it('repeats a DONE update without counting its usage twice', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { text: 'hello', chunks: 1, duplicateDone: 2, usage: { input_tokens: 3, output_tokens: 4 } },
          ],
        },
      ],
    };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    const dones = sim.steps.filter((s) => s.step_type === 'agent_response' && s.state === 'DONE');
    expect(dones).toHaveLength(3);
    expect(new Set(dones.map((d) => d.step_index)).size).toBe(1);
    expect(sim.results[0]?.usage).toEqual({
      input_tokens: 3,
      output_tokens: 4,
      thinking_tokens: 0,
      cache_read_tokens: 0,
      total_tokens: 7,
    });
  });

  it('reports tool output, tool errors and model errors', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'a\nb' } },
            {
              tool: {
                name: 'run_command',
                parameters: { CommandLine: 'false' },
                error: { message: 'exit status 1' },
              },
            },
            { text: 'oops', error: true },
            { text: 'never written' },
          ],
          end: { error: 'model failed' },
        },
      ],
    };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    expectWireValid(sim);
    const steps = sim.steps;
    expect(steps[3]).toMatchObject({ state: 'DONE', tool_info: { output: 'a\nb' } });
    expect(steps[3]?.duration_seconds).toBeTypeOf('number');
    expect(steps[6]).toMatchObject({
      state: 'ERROR',
      tool_name: 'run_command',
      tool_info: { error: { type: 'TOOL_ERROR', message: 'exit status 1' } },
    });
    // No real agy writes a model step in ERROR: a failed model call is a DONE error_message step and the
    // turn ends there (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout).
    expect(steps.some((s) => s.state === 'ERROR' && s.step_type === 'agent_response')).toBe(false);
    expect(steps.at(-1)).toEqual({
      conversation_id: conversationId(sim),
      step_index: 5,
      state: 'DONE',
      step_type: 'error_message',
    });
    expect(steps.some((s) => s.text_delta === 'never written' || s.text_delta === 'oo')).toBe(false);
    const sumOfSteps = steps
      .filter((s) => s.state === 'DONE' && s.usage !== undefined)
      .reduce((n, s) => n + (s.usage as { total_tokens: number }).total_tokens, 0);
    expect(sim.results[0]).toMatchObject({ status: 'ERROR', error: 'model failed', response: '' });
    expect((sim.results[0]?.usage as { total_tokens: number } | undefined)?.total_tokens).toBe(sumOfSteps);
  });

  it('soft-denies an action: SUCCESS, empty response, denied_actions, stderr notice', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { text: 'let me write' },
            { deny: { action: 'write_file', tool: 'write_to_file', parameters: { TargetFile: '/w/p.txt' } } },
            { text: 'skipped: the turn ends at the denial' },
          ],
        },
      ],
    };
    // 1.2.17+: the tool step ends DONE with no output (agy-real/joiomi-playbook-plugin-agy-1.3.1/denied-command.stdout)
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    expectWireValid(sim);
    const last = sim.steps.at(-1);
    expect(last).toMatchObject({ step_type: 'tool', state: 'DONE', tool_name: 'write_to_file' });
    expect(last?.tool_info).toEqual({ name: 'write_to_file', parameters: { TargetFile: '/w/p.txt' } });
    expect(last?.duration_seconds).toBeTypeOf('number');
    expect(sim.results[0]).toMatchObject({
      status: 'SUCCESS',
      response: '',
      denied_actions: [{ action: 'write_file', display_name: 'WriteToFile' }],
    });
    expect(sim.stderr).toContain('jetski: no output produced — a tool required the "write_file" permission');

    // 1.2.7: ERROR with TOOL_ERROR "…user denied permission…" (agy-real/jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson)
    const old = await harness.start({ scenario: { ...scenario, version: '1.2.7' } });
    await runPrompts(old, ['x']);
    const error = (old.steps.at(-1)?.tool_info as { error: { type: string; message: string } } | undefined)
      ?.error ?? { type: '', message: '' };
    expect(old.steps.at(-1)).toMatchObject({ state: 'ERROR', tool_name: 'write_to_file' });
    expect(error.type).toBe('TOOL_ERROR');
    expect(error.message).toMatch(
      /^permission check failed for write_file "\/w\/p\.txt": user denied permission for write_file\(\/w\/p\.txt\)\nDo not attempt/,
    );
    expect(old.results[0]).toMatchObject({ status: 'SUCCESS', response: '' });
  });

  it('fails a turn whose prompt misses expectPrompt, then falls back to the echo script', async () => {
    const sim = await harness.start({
      scenario: { turns: [{ expectPrompt: 'magic', actions: [{ text: 'no' }] }] },
    });
    await runPrompts(sim, ['plain', 'after']);
    expect(sim.results[0]).toMatchObject({ status: 'ERROR', error: expect.stringContaining('magic') });
    expect(sim.results[1]?.response).toContain('You said: "after"');
  });

  it('writes structured_output with --json-schema from the scenario, the JSON text, or the schema', async () => {
    const scenario: Scenario = {
      turns: [
        { actions: [{ text: '{"answer": 42}' }] },
        { actions: [{ text: 'not json' }] },
        { actions: [{ text: 'x' }], end: { structuredOutput: { ok: true } } },
      ],
    };
    const sim = await harness.start({ scenario, args: ['--json-schema', '{"type":"object"}'] });
    await runPrompts(sim, ['a', 'b', 'c']);
    expectWireValid(sim);
    expect(sim.results[0]?.structured_output).toEqual({ answer: 42 });
    // Not JSON: a value generated from the schema, as agy's `finish` tool always gives one.
    expect(sim.results[1]?.structured_output).toEqual({});
    expect(sim.results[2]?.structured_output).toEqual({ ok: true });

    const without = await harness.start({ scenario });
    await runPrompts(without, ['a']);
    expect(without.results[0]).not.toHaveProperty('structured_output');
  });

  it('emits unknown events and custom steps verbatim', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { unknownEvent: 'telemetry' },
            { step: { state: 'DONE', step_type: 'checkpoint', note: 1 } },
          ],
        },
      ],
    };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    expect(sim.lines.map((l) => l.raw)).toContain('{"event":"telemetry","telemetry":{}}');
    expect(sim.steps.at(-1)).toMatchObject({
      conversation_id: conversationId(sim),
      step_index: 1,
      step_type: 'checkpoint',
      note: 1,
    });
  });
});

describe('resume with --conversation', () => {
  it('keeps cumulative usage, num_turns, step_index and the scenario cursor across processes', async () => {
    const scenario: Scenario = {
      turns: [
        { actions: [{ text: 'one', usage: { input_tokens: 10, output_tokens: 5 } }] },
        { actions: [{ text: 'two', usage: { input_tokens: 20, output_tokens: 7, cache_read_tokens: 9 } }] },
      ],
    };
    const first = await harness.start({ scenario });
    await runPrompts(first, ['a']);
    const id = conversationId(first);
    const lastIndex = first.steps.at(-1)?.step_index as number;

    const second = await harness.start({ scenario, args: ['--conversation', id] });
    await runPrompts(second, ['b']);
    expectWireValid(second);
    expect(conversationId(second)).toBe(id);
    const steps = second.steps;
    // The resume notice follows the user_input and has no text (agy-real/jdiazromeral-agy-plugin-cc/resume-2026-08-02-run1.ndjson);
    // 1.2+ give it a duration (agy-real/littlebearapps-untether-agy-1.3.1/resume_after_interrupt.script).
    expect(steps[0]).toMatchObject({ step_index: lastIndex + 1, step_type: 'user_input' });
    expect(steps[1]).toEqual({
      conversation_id: id,
      step_index: lastIndex + 2,
      state: 'DONE',
      step_type: 'system_message',
      duration_seconds: expect.any(Number),
    });
    expect(second.results[0]).toMatchObject({
      conversation_id: id,
      response: 'two',
      num_turns: 2,
      usage: {
        input_tokens: 30,
        output_tokens: 12,
        thinking_tokens: 0,
        cache_read_tokens: 9,
        total_tokens: 42,
      },
    });
    expect(second.results[0]?.duration_seconds as number).toBeGreaterThanOrEqual(
      first.results[0]?.duration_seconds as number,
    );
  });

  it('resumes the latest conversation with --continue', async () => {
    const first = await harness.start();
    await runPrompts(first, ['a']);
    const resumed = await harness.start({ args: ['-c'] });
    await runPrompts(resumed, ['b']);
    expect(conversationId(resumed)).toBe(conversationId(first));
    expect(resumed.steps[1]).toMatchObject({ step_type: 'system_message' });
    expect(resumed.results[0]?.num_turns).toBe(2);
  });

  it('1.3.x: an unknown conversation id warns and opens a fresh id', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script
    const sim = await harness.start({ args: ['--conversation', 'my-new-conversation-id'] });
    await runPrompts(sim, ['x']);
    expect(sim.stderr).toContain('warning: conversation "my-new-conversation-id" not found');
    expect(conversationId(sim)).not.toBe('my-new-conversation-id');
    expect(sim.steps.map((s) => s.step_type)).not.toContain('unknown');
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', num_turns: 1 });
  });

  it('1.1.9: an unknown conversation id starts fresh under that id, without a resume notice', async () => {
    const sim = await harness.start({
      args: ['--conversation', 'my-new-conversation-id'],
      env: { AGY_SIM_VERSION: '1.1.9' },
    });
    await runPrompts(sim, ['x']);
    expect(conversationId(sim)).toBe('my-new-conversation-id');
    expect(sim.steps[0]).toMatchObject({ step_index: 0, step_type: 'user_input' });
    // agy 1.1.9 notes the fallback with a DONE `unknown` step (agy-real/jdiazromeral-agy-plugin-cc/resume_fallback-2026-08-02-run1.ndjson).
    expect(sim.steps[1]).toMatchObject({ step_index: 1, step_type: 'unknown', state: 'DONE' });
    expect(sim.results[0]?.num_turns).toBe(1);
  });

  it('keeps its state files private', async () => {
    const sim = await harness.start();
    await runPrompts(sim, ['x']);
    const dir = await harness.stateDir();
    expect(statSync(join(dir, `${conversationId(sim)}.json`)).mode & 0o777).toBe(0o600);
  });
});

describe('input rules', () => {
  it('rejects an image block with a result ERROR and exit 1', async () => {
    const sim = await harness.start();
    sim.send({
      event: 'user',
      message: { role: 'user', content: [{ type: 'image', source: { type: 'base64', data: 'AA==' } }] },
    });
    expect((await sim.exited).code).toBe(1);
    expectWireValid(sim);
    expect(sim.results).toEqual([
      expect.objectContaining({
        status: 'ERROR',
        error: 'stream input content block type "image" is not supported',
      }),
    ]);
  });

  it('rejects malformed JSON and a missing event with exit 1', async () => {
    const garbage = await harness.start();
    garbage.send('{not json');
    expect((await garbage.exited).code).toBe(1);
    expect(garbage.results[0]?.status).toBe('ERROR');

    const noEvent = await harness.start();
    noEvent.send({ message: { content: 'hi' } });
    expect((await noEvent.exited).code).toBe(1);
    expect(noEvent.results[0]?.error).toContain('"event"');
  });

  it('refuses control_request and slash commands with exit 2', async () => {
    const control = await harness.start();
    control.send({ event: 'control_request', request: { subtype: 'interrupt' } });
    expect((await control.exited).code).toBe(2);
    expect(control.stderr).toContain('error: stream input event "control_request" is not supported yet');

    const slash = await harness.start();
    slash.prompt('/usage');
    expect((await slash.exited).code).toBe(2);
    // agy 1.3.1's words, on a result ERROR and stderr (agy-real/littlebearapps-untether-agy-1.3.1/stream_slash_fatal.script).
    expect(slash.stderr).toMatch(/^error: \/usage is answered by the CLI itself/m);
    expect(slash.results[0]).toMatchObject({ status: 'ERROR', num_turns: 0 });

    // 1.3.2 answers other slash text as a prompt (…/slash_prompt_literal.script).
    const literal = await harness.start({ env: { AGY_SIM_VERSION: '1.3.2' } });
    await runPrompts(literal, ['/tmp/notes.txt: reply OK']);
    expect(literal.results[0]?.status).toBe('SUCCESS');
  });

  it('treats a slash prompt as text with --disable-slash-commands', async () => {
    const sim = await harness.start({ args: ['--disable-slash-commands'] });
    await runPrompts(sim, ['/usage please']);
    expect(sim.results[0]?.response).toContain('You said: "/usage please"');
  });

  it('skips unknown events with a warning and keeps going', async () => {
    const sim = await harness.start();
    sim.send({ event: 'keepalive' });
    await runPrompts(sim, ['x']);
    expect(sim.stderr).toContain('keepalive');
    expect(sim.results).toHaveLength(1);
  });
});

describe('captured shapes beyond the captures', () => {
  it('a subagent as agy 1.3.1 writes it: no tool_info, initial_prompt, no subagent steps or usage, then waiting text, system_message, answer', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/subagent.script
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
                actions: [
                  { tool: { name: 'view_file', parameters: { AbsolutePath: 'x' } } },
                  { text: 'banana' },
                ],
                answer: { text: 'SUB SAID banana\n', chunks: 1 },
              },
            },
          ],
        },
      ],
    };
    const sim = await harness.start({ scenario, args: ['--add-dir', workspace] });
    await runPrompts(sim, ['x']);
    expectWireValid(sim);
    const parent = conversationId(sim);
    expect(sim.steps.every((s) => s.conversation_id === parent)).toBe(true);
    expect(sim.steps.map((s) => `${s.step_type}/${s.state}`)).toEqual([
      'user_input/DONE',
      'agent_response/DONE',
      'subagent/ACTIVE',
      'subagent/DONE',
      ...Array(4).fill('agent_response/ACTIVE'),
      'agent_response/DONE',
      'system_message/DONE',
      'agent_response/DONE',
    ]);
    const [active, done] = sim.steps.filter((s) => s.step_type === 'subagent');
    expect(active).not.toHaveProperty('tool_info');
    expect(done).not.toHaveProperty('tool_info');
    expect(active?.subagent_info).toEqual({
      subagents: [
        {
          type_name: 'research',
          role: 'Secret Reader',
          initial_prompt: 'Read notes.txt and reply with the secret word only.',
        },
      ],
    });
    const entry = (done?.subagent_info as { subagents: Record<string, unknown>[] } | undefined)?.subagents[0];
    expect(entry).toMatchObject({ type_name: 'research', workspace_uris: [`file://${workspace}`] });
    expect(entry?.conversation_id).not.toBe(parent);
    expect(entry?.log_uri).toMatch(/\/brain\/[0-9a-f-]{36}\/\.system_generated\/logs\/transcript\.jsonl$/);
    expect(sim.steps.find((s) => s.step_type === 'system_message')).toHaveProperty('duration_seconds');
    // The two parent texts joined, as agy's response; the usage is the parent's steps only.
    expect(sim.results[0]?.response).toBe(
      'I have spawned the subagent. Waiting for its response.\nSUB SAID banana\n',
    );
    const total = sim.steps
      .filter((s) => s.state === 'DONE' && s.usage !== undefined)
      .reduce((n, s) => n + (s.usage as { total_tokens: number }).total_tokens, 0);
    expect((sim.results[0]?.usage as { total_tokens: number } | undefined)?.total_tokens).toBe(total);
  });

  it('a subagent without an answer answers with its last text, ending its line as agy does; the next text starts on its own', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            {
              subagent: {
                prompt: 'p',
                actions: [{ text: 'found it' }],
                waiting: { text: 'wait. ', chunks: 1 },
              },
            },
            { text: 'The parent sums up.' },
          ],
        },
      ],
    };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    // agy-real/littlebearapps-untether-agy-1.3.1/subagent.script: the relayed answer is `SUB SAID banana\n`.
    expect(sim.results[0]?.response).toBe('wait. found it\nThe parent sums up.');
  });

  it('a subagent with stream: true streams under its own conversation id; the prompt is in subagent_info, as 1.3.1 puts it, and the first step a bare user_input (docs/reference/stream-json.md#subagents)', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            {
              subagent: {
                stream: true,
                name: 'researcher',
                prompt: 'look it up',
                actions: [
                  { tool: { name: 'search_web', parameters: { query: 'q' } } },
                  { text: 'found it', usage: { input_tokens: 7, output_tokens: 3 } },
                ],
              },
            },
            { text: 'the subagent found it' },
          ],
        },
      ],
    };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    expectWireValid(sim);
    const parent = conversationId(sim);
    const outer = sim.steps.filter((s) => s.step_type === 'subagent');
    expect(outer.map((s) => s.state)).toEqual(['ACTIVE', 'DONE']);
    const info = (outer[0]?.subagent_info as { subagents: Record<string, unknown>[] } | undefined)
      ?.subagents[0];
    const child = info?.conversation_id as string;
    expect(child).toMatch(/^[0-9a-f-]{36}$/);
    expect(child).not.toBe(parent);
    expect(info).toMatchObject({ type_name: 'researcher', role: 'subagent', initial_prompt: 'look it up' });
    expect(outer[1]).toMatchObject({ tool_name: 'invoke_subagent', tool_info: { output: 'found it' } });
    const inner = sim.steps.filter((s) => s.conversation_id === child);
    // A user_input as every capture writes it: no other field (no source shows `initial_prompt` on a step).
    expect(inner[0]).toEqual({
      conversation_id: child,
      step_index: 0,
      state: 'DONE',
      step_type: 'user_input',
    });
    expect(inner.map((s) => s.step_type)).toEqual([
      'user_input',
      'agent_response',
      'tool',
      'tool',
      'agent_response',
      'agent_response',
    ]);
    // Every DONE step's usage, the subagent's included, adds up to result.usage.
    const total = sim.steps
      .filter((s) => s.state === 'DONE' && s.usage !== undefined)
      .reduce((n, s) => n + (s.usage as { total_tokens: number }).total_tokens, 0);
    expect(sim.results[0]).toMatchObject({ response: 'the subagent found it' });
    expect((sim.results[0]?.usage as { total_tokens: number } | undefined)?.total_tokens).toBe(total);
  });

  it('result.response: 1.3.x joins every text of the turn, older profiles keep the last', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/background_held.script: "STARTED\n" then the answer, joined.
    const turns = [{ actions: [{ text: 'STARTED\n' }, { text: 'The task has finished.\n' }] }];
    const joined = await harness.start({ scenario: { version: '1.3.1', turns } });
    await runPrompts(joined, ['go']);
    expect(joined.results[0]).toMatchObject({ response: 'STARTED\nThe task has finished.\n' });
    const last = await harness.start({ scenario: { version: '1.2.13', turns } });
    await runPrompts(last, ['go']);
    expect(last.results[0]).toMatchObject({ response: 'The task has finished.\n' });
  });

  it('1.1.x: the first turn ends with a checkpoint carrying usage, a later turn does not', async () => {
    // agy-real/jdiazromeral-agy-plugin-cc/resume_fallback-2026-08-02-run1.ndjson, …/resume-2026-08-02-run1.ndjson
    const sim = await harness.start({
      scenario: { version: '1.1.9', turns: [{ actions: [{ text: 'a' }] }, { actions: [{ text: 'b' }] }] },
    });
    await runPrompts(sim, ['1', '2']);
    const types = sim.steps.filter((s) => s.state === 'DONE').map((s) => s.step_type);
    expect(types).toEqual(['user_input', 'agent_response', 'checkpoint', 'user_input', 'agent_response']);
    const checkpoint = sim.steps.find((s) => s.step_type === 'checkpoint');
    expect(checkpoint?.usage).toEqual({
      input_tokens: 100,
      output_tokens: 4,
      thinking_tokens: 0,
      cache_read_tokens: 0,
      total_tokens: 104,
    });
    const sum = sim.steps
      .filter((s) => s.state === 'DONE' && s.usage !== undefined)
      .reduce((n, s) => n + (s.usage as { total_tokens: number }).total_tokens, 0);
    expect((sim.results[1]?.usage as { total_tokens: number } | undefined)?.total_tokens).toBe(sum);
    const init = sim.events.find((e) => e.event === 'init')?.init as { tools: string[] };
    expect(init.tools).toHaveLength(56);
  });

  it('print mode: -p runs one turn; slash commands answer with command_result; unknown ones exit 2', async () => {
    const sim = await harness.start({ raw: true, args: ['-p', 'hello', '--output-format', 'stream-json'] });
    expect((await sim.exited).code).toBe(0);
    expect(sim.events.map((e) => e.event)).toEqual([
      'init',
      'step_update',
      'step_update',
      'step_update',
      'step_update',
      'result',
    ]);
    expect(sim.results[0]?.response).toContain('You said: "hello"');

    // agy-real/jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson
    const model = await harness.start({
      raw: true,
      args: ['-p', '/model', '--model', 'gemini-3.8-flash-high', '--output-format', 'stream-json'],
    });
    expect((await model.exited).code).toBe(0);
    expect(model.events[0]).toEqual({
      event: 'command_result',
      command: {
        name: 'model',
        data: {
          id: 'gemini-3.8-flash-high',
          label: 'Gemini 3.8 Flash (High)',
          effort: 'high',
          is_default: false,
        },
      },
    });
    expect(model.results[0]).toMatchObject({
      conversation_id: '',
      response: 'gemini-3.8-flash-high\tGemini 3.8 Flash (High)\n',
      command: { name: 'model' },
    });

    const unknown = await harness.start({
      raw: true,
      args: ['-p', '/frob', '--output-format', 'stream-json'],
    });
    expect((await unknown.exited).code).toBe(2);
    expect(unknown.stderr).toBe('error: unknown command "/frob"\n');
  });

  it('writes the print-timeout stderr line with stderr: "before" too', async () => {
    // Which of two pipes a reader sees first is not observable reliably, so only presence is checked here;
    // the "after" default is flushed after the result line (turn-runner.ts).
    const sim = await harness.start({
      scenario: { turns: [{ actions: [], end: { printTimeout: { stderr: 'before' } } }] },
    });
    sim.prompt('x');
    expect((await sim.exited).code).toBe(0);
    expect(sim.stderr).toMatch(
      /^\[agy\] print timeout after 5m0s with turn in progress; returning partial output\n$/,
    );
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', response: '', usage: ZERO_USAGE });
  });

  it('never writes a model step in ERROR, PERMISSION_DENIED or MODEL_ERROR, whatever the scenario', async () => {
    const scenario: Scenario = {
      turns: [
        { actions: [{ text: 'x', error: true }] },
        { actions: [{ deny: { action: 'command', tool: 'run_command' } }] },
        { actions: [{ rateLimit: { retries: 2 } }, { text: 'ok' }], end: { quota: true } },
      ],
    };
    const sim = await harness.start({ scenario });
    sim.prompt('a');
    sim.prompt('b');
    sim.prompt('c');
    expect((await sim.exited).code).toBe(3);
    const raw = sim.lines.map((l) => l.raw).join('\n');
    expect(raw).not.toMatch(/PERMISSION_DENIED|MODEL_ERROR/);
    expect(sim.steps.some((s) => s.step_type === 'agent_response' && s.state === 'ERROR')).toBe(false);
    expect(sim.results.map((r) => r.status)).toEqual(['ERROR', 'SUCCESS', 'ERROR']);
  });
});

describe('endings', () => {
  it('reports quota exhaustion with stderr markers, spent usage and exit 3', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [{ text: 'partial', usage: { input_tokens: 50, output_tokens: 5 } }],
          end: { quota: true },
        },
      ],
    };
    const sim = await harness.start({ scenario });
    sim.prompt('x');
    expect((await sim.exited).code).toBe(3);
    expectWireValid(sim);
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr and .stdout
    const message =
      'Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 34m13s.';
    expect(sim.stderr).toContain(`error: ${message}\n`);
    const agyError = /^AGY_ERROR: (.*)$/m.exec(sim.stderr)?.[1];
    expect(Object.keys(JSON.parse(agyError ?? '{}'))).toEqual([
      'short_error',
      'status',
      'error_code',
      'code_kind',
      'retryable',
      'error_id',
    ]);
    expect(JSON.parse(agyError ?? '{}')).toMatchObject({
      short_error: `RESOURCE_EXHAUSTED (code 429): ${message}`,
      status: 'RESOURCE_EXHAUSTED',
      error_code: 429,
    });
    expect(sim.steps.at(-1)).toMatchObject({ state: 'DONE', step_type: 'error_message' });
    expect(sim.results[0]).toMatchObject({
      status: 'ERROR',
      error: message,
      usage: { input_tokens: 50, total_tokens: 55 },
    });
  });

  it('retries a transient 429 as error_message steps, then recovers', async () => {
    const scenario: Scenario = { turns: [{ actions: [{ rateLimit: {} }, { text: 'fine now' }] }] };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    const types = sim.steps.map((s) => s.step_type);
    expect(types).toEqual([
      'user_input',
      ...Array(7).fill('error_message'),
      'agent_response',
      'agent_response',
    ]);
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', response: 'fine now' });
  });

  it('reports a scripted print timeout as SUCCESS with empty response and zero usage, exit 0', async () => {
    // agy-real/joiomi-playbook-plugin-agy-1.3.1/print-timeout.stdout, …-1.2.17/print-timeout.stderr
    const scenario: Scenario = { turns: [{ actions: [], end: { printTimeout: true } }] };
    const sim = await harness.start({ scenario });
    sim.prompt('x');
    expect((await sim.exited).code).toBe(0);
    expect(sim.stderr).toBe(
      '[agy] print timeout after 5m0s with turn in progress; returning partial output\n',
    );
    expect(sim.steps.map((s) => s.step_type)).toEqual(['user_input']);
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', response: '', usage: ZERO_USAGE });

    const silent = await harness.start({
      scenario: { turns: [{ actions: [], end: { printTimeout: { stderr: 'none' } } }] },
    });
    silent.prompt('x');
    expect((await silent.exited).code).toBe(0);
    expect(silent.stderr).toBe('');
    expect(silent.results[0]).toMatchObject({ status: 'SUCCESS', response: '' });

    // 1.1.9: ERROR "timeout waiting for response", exit 1 (agy-real/jdiazromeral-agy-plugin-cc/error_result-2026-08-02-run1.ndjson)
    const old = await harness.start({ scenario: { ...scenario, version: '1.1.9' } });
    old.prompt('x');
    expect((await old.exited).code).toBe(1);
    expect(old.results[0]).toMatchObject({
      status: 'ERROR',
      error: 'timeout waiting for response',
      usage: ZERO_USAGE,
    });
  });

  it('enforces --print-timeout on a stalled turn', async () => {
    const scenario: Scenario = { turns: [{ actions: [{ text: 'so far', chunks: 1 }, { stall: true }] }] };
    const sim = await harness.start({ scenario, args: ['--print-timeout', '300ms'] });
    sim.prompt('x');
    expect((await sim.exited).code).toBe(0);
    expect(sim.stderr).toContain('[agy] print timeout after 300ms with turn in progress');
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', response: '', usage: ZERO_USAGE });
  });

  it('can end without a result, or exit after it', async () => {
    const cut = await harness.start({
      scenario: { turns: [{ actions: [{ text: 'x' }], end: { noResult: true } }] },
    });
    cut.prompt('x');
    expect((await cut.exited).code).toBe(0);
    expect(cut.results).toHaveLength(0);

    const after = await harness.start({
      scenario: { turns: [{ actions: [], end: { status: 'ERROR', error: 'bad', exitAfter: 1 } }] },
    });
    after.prompt('x');
    expect((await after.exited).code).toBe(1);
    expect(after.results[0]).toMatchObject({ status: 'ERROR', error: 'bad' });
  });
});

describe('signals', () => {
  it('interrupts a turn on SIGINT as 1.3.1 does: ERROR "interrupted", stderr, no tool DONE, exit 1', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { text: 'working on it', chunks: 1, usage: { input_tokens: 4, output_tokens: 2 } },
            {
              modelStep: { usage: { input_tokens: 1, output_tokens: 1 } },
              tool: { name: 'run_command', parameters: { CommandLine: 'sleep 100' }, hang: true },
            },
          ],
        },
      ],
    };
    const sim = await harness.start({ scenario });
    sim.prompt('x');
    const tool = await sim.waitForEvent(
      'tool ACTIVE',
      (e) => (e.step_update as { step_type?: string })?.step_type === 'tool',
    );
    sim.child.kill('SIGINT');
    expect(await sim.exited).toEqual({ code: 1, signal: null });
    expectWireValid(sim);
    expect(sim.stderr).toContain('error: interrupted');
    const toolIndex = (tool.step_update as { step_index: number }).step_index;
    expect(sim.steps.filter((s) => s.step_index === toolIndex).map((s) => s.state)).toEqual(['ACTIVE']);
    expect(sim.results).toEqual([
      expect.objectContaining({
        status: 'ERROR',
        error: 'interrupted',
        response: 'working on it',
        num_turns: 1,
      }),
    ]);
    expect(sim.results[0]?.usage).toMatchObject({ total_tokens: 8 });
  });

  it('reports INTERRUPTED and the scenario exit code when asked', async () => {
    const scenario: Scenario = {
      interrupt: { status: 'INTERRUPTED', exitCode: 0 },
      turns: [{ actions: [{ stall: true }] }],
    };
    const sim = await harness.start({ scenario });
    sim.prompt('x');
    await sim.waitForEvent(
      'user_input',
      (e) => (e.step_update as { step_type?: string })?.step_type === 'user_input',
    );
    sim.child.kill('SIGINT');
    expect((await sim.exited).code).toBe(0);
    expect(sim.results[0]).toMatchObject({ status: 'INTERRUPTED' });
  });

  it('1.1.x: ERROR "context canceled" on SIGINT', async () => {
    // Shape: test/fixtures/agy-shapes/1.1.18-sigint-stdin.script (docs/reference/stream-json.md#interrupt-answers)
    const sim = await harness.start({
      scenario: { turns: [{ actions: [{ stall: true }] }] },
      env: { AGY_SIM_VERSION: '1.1.18' },
    });
    sim.prompt('x');
    await sim.waitForEvent(
      'user_input',
      (e) => (e.step_update as { step_type?: string })?.step_type === 'user_input',
    );
    sim.child.kill('SIGINT');
    expect((await sim.exited).code).toBe(1);
    expect(sim.results[0]).toMatchObject({ status: 'ERROR', error: 'context canceled' });
    expect(sim.stderr).toContain('error: context canceled');
  });

  it('exits 130 on SIGINT and 143 on SIGTERM while idle; SIGTERM during a turn ends it as SIGINT does', async () => {
    // agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigterm.script
    const idle = await harness.start();
    await idle.waitForEvent('init', (e) => e.event === 'init');
    idle.child.kill('SIGINT');
    expect((await idle.exited).code).toBe(130);
    expect(idle.results).toHaveLength(0);

    const busy = await harness.start({ scenario: { turns: [{ actions: [{ stall: true }] }] } });
    busy.prompt('x');
    await busy.waitForEvent(
      'user_input',
      (e) => (e.step_update as { step_type?: string })?.step_type === 'user_input',
    );
    busy.child.kill('SIGTERM');
    expect((await busy.exited).code).toBe(1);
    expect(busy.results[0]).toMatchObject({ status: 'ERROR', error: 'interrupted' });

    const idleTerm = await harness.start();
    await idleTerm.waitForEvent('init', (e) => e.event === 'init');
    idleTerm.child.kill('SIGTERM');
    expect((await idleTerm.exited).code).toBe(143);
  });

  it('a stall outlives stdin EOF until a signal', async () => {
    const sim = await harness.start({ scenario: { turns: [{ actions: [{ stall: true }] }] } });
    sim.prompt('x');
    sim.endInput();
    await sim.waitForEvent(
      'user_input',
      (e) => (e.step_update as { step_type?: string })?.step_type === 'user_input',
    );
    sim.child.kill('SIGINT');
    expect((await sim.exited).code).toBe(1);
    expect(sim.results[0]?.error).toBe('interrupted');
  });
});

describe('crashes and raw output', () => {
  it('kills itself with a signal', async () => {
    for (const signal of ['SIGKILL', 'SIGSEGV', 'SIGTERM'] as const) {
      const sim = await harness.start({
        scenario: { turns: [{ actions: [{ text: 'bye' }, { killSelf: signal }] }] },
      });
      sim.prompt('x');
      expect(await sim.exited).toEqual({ code: null, signal });
      expect(sim.results).toHaveLength(0);
    }
  });

  it('exits mid-turn with a code, and the next process continues the conversation', async () => {
    const scenario: Scenario = {
      turns: [{ actions: [{ text: 'a' }, { exit: 9 }] }, { actions: [{ text: 'b' }] }],
    };
    const sim = await harness.start({ scenario });
    sim.prompt('x');
    expect((await sim.exited).code).toBe(9);
    const resumed = await harness.start({ scenario, args: ['--conversation', conversationId(sim)] });
    await runPrompts(resumed, ['y']);
    expect(resumed.results[0]).toMatchObject({ response: 'b', num_turns: 2 });
    expect(resumed.steps[0]?.step_index).toBe((sim.steps.at(-1)?.step_index as number) + 1);
  });

  it('writes raw bytes split inside a UTF-8 character, and raw garbage', async () => {
    const line = Buffer.from('{"event":"x_split","x_split":{"s":"€ ok"}}\n', 'utf8');
    const cut = line.indexOf(0xe2) + 1; // inside the 3-byte euro sign
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { rawBytes: [line.subarray(0, cut).toString('base64'), line.subarray(cut).toString('base64')] },
            { raw: 'not json at all\n' },
          ],
        },
      ],
    };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    expect(sim.events).toContainEqual({ event: 'x_split', x_split: { s: '€ ok' } });
    expect(sim.lines.map((l) => l.raw)).toContain('not json at all');
  });

  it('delivers a 16 MiB line intact, and leaves U+2028 raw', async () => {
    const size = 16 * 1024 * 1024;
    const scenario: Scenario = {
      turns: [{ actions: [{ text: 'a\u2028b', chunks: 1 }, { hugeText: size }] }],
    };
    const sim = await harness.start({ scenario });
    await runPrompts(sim, ['x']);
    expectWireValid(sim);
    const huge = sim.steps.find((s) => typeof s.text_delta === 'string' && s.text_delta.length > 1000);
    const hugeDelta = String(huge?.text_delta);
    expect(hugeDelta.length).toBe(size);
    expect(hugeDelta.slice(0, 10)).toBe('0123456789');
    // The response joins the turn's texts on 1.3.x: 'a\u2028b' then the huge one.
    expect(sim.results[0]?.response).toHaveLength(size + 3);
    expect(sim.lines.some((l) => l.raw.includes('"text_delta":"a\u2028b"'))).toBe(true);
  }, 60_000);

  it('spawns a grandchild in its own session and reports its pid', async () => {
    const sim = await harness.start({
      scenario: { turns: [{ actions: [{ spawnChild: { detached: true } }] }] },
    });
    sim.prompt('x');
    const pid = await sim.waitUntil('child pid', () => {
      const match = /\[agy-sim\] child pid (\d+)/.exec(sim.stderr);
      return match ? Number(match[1]) : undefined;
    });
    try {
      sim.endInput();
      expect((await sim.exited).code).toBe(0);
      // The grandchild outlives the simulator.
      expect(() => process.kill(pid, 0)).not.toThrow();
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
});

describe('path helpers', () => {
  it('points at the built simulator and writes private scenario files', async () => {
    // The build's one-file bundle beside main.js, unless main.js was rebuilt after it.
    expect([SIM_MAIN, SIM_MAIN.replace(/main\.js$/, 'agy-sim.mjs')]).toContain(simulatorPath());
    expect(spawnSync(process.execPath, [simulatorPath(), '--version'], { encoding: 'utf8' }).stdout).toMatch(
      /^agy version \d/,
    );
    const file = await writeScenario({ version: '9.9.9' });
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
      const sim = await harness.start({ raw: true, args: ['--version'], env: { AGY_SIM_SCENARIO: file } });
      await sim.exited;
      expect(sim.lines[0]?.raw).toBe('agy version 9.9.9');
    } finally {
      await rm(dirname(file), { recursive: true, force: true });
    }
    const dir = await harness.tempDir();
    const inDir = await writeScenario({}, dir);
    expect(dirname(inDir)).toBe(dir);
  });
});
