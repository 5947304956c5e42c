/**
 * Integration tests for what the simulator does with agy's configuration (plugins, rules, custom agents,
 * hooks.json, mcp_config.json): each test writes the files into private temp dirs (a workspace passed with
 * `--add-dir`, and a fake `$HOME`), spawns the built simulator and checks its wire output, what the hook
 * commands received, and what real MCP servers (stdio and Streamable HTTP, built with the official SDK) saw.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { WireEnvelopeSchema } from '../../../src/protocol/stream-json-wire.js';
import { echoText } from '../../../src/testing/simulator/default-script.js';
import type { Scenario } from '../../../src/testing/simulator/scenario.js';
import { type HttpMcp, startHttpMcp } from '../../helpers/http-mcp.js';
import { ensureSimulatorBuilt, SimHarness, type SimProcess } from '../../helpers/sim-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const harness = new SimHarness();

beforeAll(async () => {
  await ensureSimulatorBuilt();
}, 120_000);

afterEach(async () => {
  await harness.cleanup();
});

/** A private tree: a fake `$HOME`, a workspace for `--add-dir`, and the log the hook commands append to. */
interface Fixture {
  root: string;
  home: string;
  work: string;
  log: string;
}

async function fixture(): Promise<Fixture> {
  const root = realpathSync(await harness.tempDir());
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  return { root, home, work, log: join(root, 'hooks.log') };
}

/** Writes a file (JSON unless a string), creating its directories. */
function put(file: string, content: unknown): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** How a test hook answers. */
interface HookReply {
  stdout?: string;
  exit?: number;
  /** Seconds to sleep (as the hook process itself, via exec) after answering. */
  sleep?: number;
}

/**
 * Writes an executable hook: it logs `name`, its cwd, `$ANTIGRAVITY_CONVERSATION_ID` and its stdin as one
 * tab-separated line, then answers. A shell script, so each hook run costs milliseconds.
 */
function hook(fx: Fixture, name: string, reply: HookReply = {}): string {
  const file = join(fx.root, 'hook-bin', name);
  const lines = [
    '#!/bin/sh',
    'input=$(cat)',
    `printf '%s\\t%s\\t%s\\t%s\\n' '${name}' "$(pwd)" "$ANTIGRAVITY_CONVERSATION_ID" "$input" >> '${fx.log}'`,
  ];
  if (reply.stdout !== undefined) lines.push(`cat '${put(`${file}.out`, reply.stdout)}'`);
  if (reply.sleep !== undefined) lines.push(`exec sleep ${reply.sleep}`);
  lines.push(`exit ${reply.exit ?? 0}`);
  chmodSync(put(file, `${lines.join('\n')}\n`), 0o755);
  return file;
}

interface HookLogEntry {
  name: string;
  cwd: string;
  conversationId: string;
  input: Record<string, unknown>;
}

function hookLog(fx: Fixture): HookLogEntry[] {
  if (!existsSync(fx.log)) return [];
  return readFileSync(fx.log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name, cwd, conversationId, ...rest] = line.split('\t');
      return {
        name: name as string,
        cwd: cwd as string,
        conversationId: conversationId as string,
        input: JSON.parse(rest.join('\t')) as Record<string, unknown>,
      };
    });
}

/** A command hook entry for hooks.json. */
function cmd(command: string, timeout?: number): Record<string, unknown> {
  return timeout === undefined ? { type: 'command', command } : { type: 'command', command, timeout };
}

function start(fx: Fixture, options: { scenario?: Scenario; args?: string[] } = {}): Promise<SimProcess> {
  return harness.start({
    args: ['--add-dir', fx.work, ...(options.args ?? [])],
    env: { HOME: fx.home },
    ...(options.scenario === undefined ? {} : { scenario: options.scenario }),
  });
}

/** Sends prompts, closes stdin and waits for a clean exit. */
async function runPrompts(sim: SimProcess, prompts: string[]): Promise<void> {
  for (const prompt of prompts) sim.prompt(prompt);
  sim.endInput();
  expect(await sim.exited).toEqual({ code: 0, signal: null });
}

function conversationId(sim: SimProcess): string {
  return sim.events.find((e) => e.event === 'init')?.conversation_id as string;
}

/** The final update of each step, by index. */
function finalSteps(sim: SimProcess): Map<number, Record<string, unknown>> {
  const steps = new Map<number, Record<string, unknown>>();
  for (const step of sim.steps) steps.set(step.step_index as number, step);
  return steps;
}

/** The final update of every tool step, in order. */
function toolSteps(sim: SimProcess): Record<string, unknown>[] {
  return [...finalSteps(sim).values()].filter((step) => step.step_type === 'tool');
}

function toolInfo(step: Record<string, unknown> | undefined): Record<string, unknown> {
  return (step?.tool_info ?? {}) as Record<string, unknown>;
}

function expectWireValid(sim: SimProcess): void {
  for (const line of sim.lines) {
    expect(line.json, `not JSON: ${line.raw.slice(0, 200)}`).toBeTypeOf('object');
    const parsed = WireEnvelopeSchema.safeParse(line.json);
    expect(parsed.success, `${line.raw.slice(0, 300)}\n${parsed.error?.message}`).toBe(true);
  }
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('hooks', () => {
  it('runs a hook command as a command line through /bin/sh -c, with its arguments', async () => {
    // Real hooks are command lines with arguments: `python ./plugins/…/hook.py PreToolUse`
    // (agy-real/configs-hooks-json/Ajw2003-AjsAgyTools.hooks.json), `python3 '<path>' hook` (agy-real/README.md).
    const fx = await fixture();
    const dir = join(fx.root, "bin dir 'q'");
    const script = put(
      join(dir, 'h.sh'),
      `#!/bin/sh\ninput=$(cat)\nprintf '%s\\t%s\\t%s\\t%s\\n' "args:$1|$2" "$(pwd)" "$ANTIGRAVITY_CONVERSATION_ID" "$input" >> '${fx.log}'\n`,
    );
    chmodSync(script, 0o755);
    const quoted = `'${script.replace(/'/g, `'\\''`)}'`;
    put(join(fx.work, '.agents/hooks.json'), {
      ws: { PreInvocation: [cmd(`/bin/sh ${quoted} PreInvocation "two words"`)] },
    });
    const sim = await start(fx);
    await runPrompts(sim, ['one']);
    const log = hookLog(fx);
    // One line per model call of the turn (the default script calls a tool, so there are two).
    expect(log.length).toBeGreaterThan(0);
    expect(new Set(log.map((e) => e.name))).toEqual(new Set(['args:PreInvocation|two words']));
    expect(log[0]?.input).toMatchObject({ invocationNum: 0 });
    expect(sim.stderr).not.toContain('warning: PreInvocation hook');
  });

  it('loads hooks from $HOME, the workspace and plugins, runs them in that order with agy input', async () => {
    const fx = await fixture();
    put(join(fx.home, '.gemini/config/hooks.json'), {
      home: {
        SessionStart: [cmd(hook(fx, 'session-start'))],
        PreInvocation: [cmd(hook(fx, 'pre-home'))],
      },
    });
    put(join(fx.work, '.agents/hooks.json'), {
      ws: {
        enabled: true,
        PreInvocation: [cmd(hook(fx, 'pre-workspace'))],
        PostInvocation: [cmd(hook(fx, 'post-workspace'))],
        Bogus: [cmd(hook(fx, 'bogus'))],
        note: 'unknown keys are dropped',
      },
      off: { enabled: false, PreInvocation: [cmd(hook(fx, 'disabled'))] },
    });
    // User plugins: docs/reference/plugins-and-config.md#plugin-directory ~/.gemini/antigravity-cli/plugins/, and ~/.gemini/config/plugins/.
    const userPlugins = join(fx.home, '.gemini/config/plugins');
    put(join(userPlugins, 'cfg/plugin.json'), { name: 'cfg' });
    put(join(userPlugins, 'cfg/hooks.json'), {
      cfg: { PreInvocation: [cmd(hook(fx, 'pre-config-plugin'))] },
    });
    const plugins = join(fx.work, '.agents/plugins');
    put(join(plugins, 'kit/plugin.json'), { name: 'kit' });
    put(join(plugins, 'kit/hooks.json'), { kit: { PreInvocation: [cmd(hook(fx, 'pre-plugin'))] } });
    put(join(plugins, 'p-broken/plugin.json'), { name: 'broken' });
    put(join(plugins, 'p-broken/hooks.json'), '{"b": {');
    put(join(plugins, 'p-flat/plugin.json'), { name: 'flat' });
    // Event-keyed at the top level: "PreInvocation" is then a bundle whose value is not an object.
    put(join(plugins, 'p-flat/hooks.json'), { PreInvocation: [cmd(hook(fx, 'flat'))] });

    const sim = await start(fx, { args: ['--model', 'gemini-test'] });
    await runPrompts(sim, ['one', 'two']);
    expectWireValid(sim);
    const conv = conversationId(sim);

    const log = hookLog(fx);
    // Two model calls per turn: the text-less one that chose list_dir, then the reply
    // (agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreInvocation-*.json: invocations before tool calls too).
    const invocation = ['pre-home', 'pre-config-plugin', 'pre-workspace', 'pre-plugin', 'post-workspace'];
    expect(log.map((entry) => entry.name)).toEqual([
      'session-start',
      ...invocation,
      ...invocation,
      ...invocation,
      ...invocation,
    ]);
    for (const entry of log) {
      expect(entry.cwd).toBe(join(fx.work, '.agents'));
      expect(entry.conversationId).toBe(conv);
    }
    const brain = join(fx.home, '.gemini/antigravity-cli/brain', conv);
    // The common fields of real agy 1.3.0 payloads, and no others: no hookEventName, no stepIdx
    // (agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreInvocation-0.json).
    const common = {
      conversationId: conv,
      transcriptPath: join(brain, '.system_generated/logs/transcript_full.jsonl'),
      workspacePaths: [fx.work],
      artifactDirectoryPath: brain,
      modelName: 'gemini-test',
    };
    expect(log[0]?.input).toEqual(common);
    // Turn 1: user_input 0, the model step 1, list_dir 2, the response 3. Turn 2 starts at step 4.
    expect(log[1]?.input).toEqual({ ...common, invocationNum: 0, initialNumSteps: 1 });
    expect(log[5]?.input).toEqual({ ...common, invocationNum: 0, initialNumSteps: 1 });
    expect(log[6]?.input).toEqual({ ...common, invocationNum: 1, initialNumSteps: 1 });
    expect(log[11]?.input).toEqual({ ...common, invocationNum: 0, initialNumSteps: 5 });
    expect(sim.stderr).toContain(`warning: ignoring hooks file ${join(plugins, 'p-broken/hooks.json')}`);
    expect(sim.stderr).toContain(
      `warning: ignoring hooks file ${join(plugins, 'p-flat/hooks.json')}: bundle "PreInvocation" must be an object`,
    );
    // agy only reads $HOME: nothing was written there.
    expect(filesUnder(fx.home)).toEqual([
      '.gemini/config/hooks.json',
      '.gemini/config/plugins/cfg/hooks.json',
      '.gemini/config/plugins/cfg/plugin.json',
    ]);
  });

  it('applies the PreToolUse decision table measured on agy 1.2.3', async () => {
    const fx = await fixture();
    const rows: [string, HookReply, number?][] = [
      ['t_empty', {}],
      ['t_emptyobj', { stdout: '{}' }],
      ['t_blank', { stdout: '{"decision":""}' }],
      ['t_allow', { stdout: '{"decision":"allow"}' }],
      ['t_ask', { stdout: '{"decision":"ask"}' }],
      ['t_force', { stdout: '{"decision":"force_ask","reason":"a human should look"}' }],
      ['t_deny', { stdout: '{"decision":"deny","reason":"nope"}' }],
      ['t_nonjson', { stdout: 'sure, go ahead' }],
      ['t_exit1', { exit: 1 }],
      ['t_timeout', { sleep: 10 }, 0.3],
      ['t_overwrite', { stdout: '{"decision":"allow","overwrite":{"CommandLine":"echo safe","Extra":1}}' }],
    ];
    const groups = rows.map(([name, reply, timeout]) => ({
      matcher: name,
      hooks: [cmd(hook(fx, `pre-${name}`, reply), timeout)],
    }));
    put(join(fx.work, '.agents/hooks.json'), {
      table: {
        PreToolUse: [
          ...groups,
          // Runs after t_overwrite's own hook: it sees the merged arguments.
          { matcher: 't_over.*', hooks: [cmd(hook(fx, 'pre-after-overwrite'))] },
          // A matcher must match the whole tool name: this one matches none of the tools.
          { matcher: 't_a', hooks: [cmd(hook(fx, 'never', { stdout: '{"decision":"deny"}' }))] },
        ],
        PostToolUse: [{ matcher: '*', hooks: [cmd(hook(fx, 'post'))] }],
      },
    });
    const parameters = { CommandLine: 'rm -rf /' };
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            // `ask` soft-denies, which ends the turn: those two run in their own process below.
            ...rows
              .filter(([name]) => name !== 't_ask' && name !== 't_force')
              .map(([name]) => ({ tool: { name, parameters, output: `${name} ran` } })),
            { text: 'done' },
          ],
        },
        {
          actions: [
            { tool: { name: 't_ask', parameters, output: 't_ask ran' } },
            { tool: { name: 't_force', parameters, output: 't_force ran' } },
            { text: 'done' },
          ],
        },
      ],
    };
    const sim = await start(fx, { scenario });
    await runPrompts(sim, ['go']);
    expectWireValid(sim);

    const byName = new Map(toolSteps(sim).map((step) => [step.tool_name as string, step]));
    const ran = (name: string): void => {
      expect(byName.get(name)?.state, name).toBe('DONE');
      expect(toolInfo(byName.get(name)).output, name).toBe(`${name} ran`);
    };
    const denied = (name: string, type: string, reason: string | RegExp): void => {
      const step = byName.get(name);
      expect(step?.state, name).toBe('ERROR');
      const info = toolInfo(step);
      expect(info).not.toHaveProperty('output');
      expect(info.error, name).toMatchObject({ type });
      const message = (info.error as { message: string }).message;
      // agy's own words (agy-real/littlebearapps-untether-agy-1.3.1/hook_deny_bypass.script, step 11).
      expect(message.startsWith('tool call denied by pre-tool hook: '), message).toBe(true);
      if (typeof reason === 'string') expect(message).toBe(`tool call denied by pre-tool hook: ${reason}`);
      else expect(message).toMatch(reason);
    };
    ran('t_empty');
    denied('t_emptyobj', 'TOOL_ERROR', /no decision/);
    denied('t_blank', 'TOOL_ERROR', /unknown decision ""/);
    ran('t_allow');
    denied('t_deny', 'TOOL_ERROR', 'nope');
    denied('t_nonjson', 'TOOL_ERROR', /not valid JSON/);
    denied('t_exit1', 'TOOL_ERROR', /exited with code 1/);
    denied('t_timeout', 'TOOL_ERROR', /timed out after 0.3s/);
    ran('t_overwrite');
    expect(toolInfo(byName.get('t_overwrite')).parameters).toEqual({ CommandLine: 'echo safe', Extra: 1 });
    // The ACTIVE update showed the model's own arguments.
    const active = sim.steps.find((s) => s.tool_name === 't_overwrite' && s.state === 'ACTIVE');
    expect(toolInfo(active).parameters).toEqual(parameters);

    // The turn went on after every hook denial.
    const result = sim.results[0];
    expect(result).toMatchObject({ status: 'SUCCESS', response: 'done' });
    expect(result).not.toHaveProperty('denied_actions');
    expect([...finalSteps(sim).values()].at(-1)).toMatchObject({
      step_type: 'agent_response',
      state: 'DONE',
    });
    expect(sim.stderr).toContain('warning: PreToolUse hook');

    const log = hookLog(fx);
    expect(log.some((entry) => entry.name === 'never')).toBe(false);
    const pre = log.find((entry) => entry.name === 'pre-t_deny');
    // agy adds its toolAction/toolSummary to the args (agy-real/hooks-anti-samcheonpo-agy-1.3.0/
    // PreToolUse-write_to_file.json); no hookEventName.
    expect(pre?.input).toMatchObject({
      stepIdx: byName.get('t_deny')?.step_index,
      toolCall: {
        name: 't_deny',
        args: { ...parameters, toolAction: 'Running t_deny', toolSummary: 'Run t_deny' },
      },
    });
    expect(pre?.input).not.toHaveProperty('hookEventName');
    expect(log.find((entry) => entry.name === 'pre-after-overwrite')?.input.toolCall).toEqual({
      name: 't_overwrite',
      args: {
        CommandLine: 'echo safe',
        Extra: 1,
        toolAction: 'Running t_overwrite',
        toolSummary: 'Run t_overwrite',
      },
    });
    // PostToolUse runs only for tools that ran; like agy 1.3.0 it carries only `error`, no output
    // (agy-real/hooks-anti-samcheonpo-agy-1.3.0/PostToolUse-step2.json).
    const post = log.filter((entry) => entry.name === 'post');
    expect(post.map((entry) => (entry.input.toolCall as { name: string }).name)).toEqual([
      't_empty',
      't_allow',
      't_overwrite',
    ]);
    expect(post[2]?.input).toMatchObject({
      stepIdx: byName.get('t_overwrite')?.step_index,
      toolCall: { name: 't_overwrite', args: { CommandLine: 'echo safe', Extra: 1 } },
      error: '',
    });
    expect(
      Object.keys(post[2]?.input ?? {}).filter((k) => ['toolResult', 'output', 'hookEventName'].includes(k)),
    ).toEqual([]);

    // Without always-proceed, `ask` and `force_ask` soft-deny the way agy 1.3.1 does: the tool step ends DONE
    // with no output, denied_actions grows, the turn ends with an empty response
    // (agy-real/joiomi-playbook-plugin-agy-1.3.1/denied-command.stdout).
    const soft = await start(fx, {
      scenario: {
        turns: [
          { actions: [{ tool: { name: 't_ask', parameters, output: 'no' } }, { text: 'not reached' }] },
          { actions: [{ tool: { name: 't_force', parameters, output: 'no' } }] },
        ],
      },
    });
    await runPrompts(soft, ['one', 'two']);
    const softSteps = toolSteps(soft);
    expect(softSteps.map((step) => [step.tool_name, step.state])).toEqual([
      ['t_ask', 'DONE'],
      ['t_force', 'DONE'],
    ]);
    for (const step of softSteps) expect(toolInfo(step)).not.toHaveProperty('output');
    expect(soft.results.map((r) => [r.response, r.denied_actions])).toEqual([
      ['', [{ action: 't_ask', display_name: 'TAsk' }]],
      ['', [{ action: 't_force', display_name: 'TForce' }]],
    ]);

    // With --dangerously-skip-permissions, `ask` and `force_ask` let the tool run.
    const skip = await start(fx, {
      scenario: { turns: scenario.turns?.slice(1) ?? [] },
      args: ['--dangerously-skip-permissions'],
    });
    await runPrompts(skip, ['go']);
    const skipped = new Map(toolSteps(skip).map((step) => [step.tool_name as string, step]));
    expect(skipped.get('t_ask')?.state).toBe('DONE');
    expect(skipped.get('t_force')?.state).toBe('DONE');
    expect(skip.results[0]).toMatchObject({ status: 'SUCCESS', response: 'done' });
    expect(skip.results[0]).not.toHaveProperty('denied_actions');
  });

  it('lets settings.json toolPermission always-proceed set the mode, so `ask` runs', async () => {
    const fx = await fixture();
    put(join(fx.home, '.gemini/antigravity-cli/settings.json'), { toolPermission: 'always-proceed' });
    put(join(fx.work, '.agents/hooks.json'), {
      b: { PreToolUse: [{ matcher: '', hooks: [cmd(hook(fx, 'ask', { stdout: '{"decision":"ask"}' }))] }] },
    });
    const sim = await start(fx, {
      scenario: { turns: [{ actions: [{ tool: { name: 'view_file', output: 'x' } }] }] },
    });
    await runPrompts(sim, ['go']);
    expect(sim.events[0]).toMatchObject({ event: 'init', init: { permission_mode: 'always-proceed' } });
    expect(toolSteps(sim)[0]).toMatchObject({ state: 'DONE', tool_info: { output: 'x' } });
  });

  it('turns PreInvocation injectSteps into user_input steps, and the echo reply mentions them', async () => {
    const fx = await fixture();
    const inject = '{"injectSteps":[{"userMessage":"remember the milk"},{"ephemeralMessage":"unseen"}]}';
    put(join(fx.home, '.gemini/config/hooks.json'), {
      b: {
        PreInvocation: [cmd(hook(fx, 'pre', { stdout: inject }))],
        PostInvocation: [cmd(hook(fx, 'post'))],
      },
    });
    const sim = await start(fx, {
      scenario: { turns: [{ actions: [{ text: 'first' }, { text: 'second' }] }] },
    });
    await runPrompts(sim, ['scripted', 'default']);
    expectWireValid(sim);

    const steps = [...finalSteps(sim).values()];
    // Scripted turn: user_input, injected, first, injected, second.
    expect(
      steps.slice(0, 5).map((s) => [s.step_type, (s.user_input as { text?: string } | undefined)?.text]),
    ).toEqual([
      ['user_input', undefined],
      ['user_input', 'remember the milk'],
      ['agent_response', undefined],
      ['user_input', 'remember the milk'],
      ['agent_response', undefined],
    ]);
    expect(steps[1]).toMatchObject({ state: 'DONE', step_index: 1 });
    // 1.3.x joins the turn's texts (agy-real/littlebearapps-untether-agy-1.3.1/background_held.script).
    expect(sim.results[0]).toMatchObject({ response: 'firstsecond' });
    // Default script: user_input, injected, the model step choosing list_dir, list_dir, injected, the echo.
    expect(steps.slice(5).map((s) => s.step_type)).toEqual([
      'user_input',
      'user_input',
      'agent_response',
      'tool',
      'user_input',
      'agent_response',
    ]);
    const added = ' A hook added: "remember the milk".';
    expect(sim.results[1]?.response).toBe(`${echoText('default')}${added}${added}`);

    const log = hookLog(fx);
    expect(log.map((e) => [e.name, e.input.invocationNum, e.input.initialNumSteps])).toEqual([
      ['pre', 0, 1],
      ['post', 0, 1],
      ['pre', 1, 1],
      ['post', 1, 1],
      ['pre', 0, 6],
      ['post', 0, 6],
      ['pre', 1, 6],
      ['post', 1, 6],
    ]);
  });

  it('continues a turn on a Stop hook "continue", at most 3 times', async () => {
    const fx = await fixture();
    put(join(fx.work, '.agents/hooks.json'), {
      b: { Stop: [cmd(hook(fx, 'stop', { stdout: '{"decision":"continue","reason":"keep going"}' }))] },
    });
    const sim = await start(fx, { scenario: { turns: [{ actions: [{ text: 'first answer' }] }] } });
    await runPrompts(sim, ['go']);
    const responses = [...finalSteps(sim).values()]
      .filter((s) => s.step_type === 'agent_response')
      .map((s) =>
        sim.steps
          .filter((u) => u.step_index === s.step_index)
          .map((u) => u.text_delta ?? '')
          .join(''),
      );
    expect(responses).toEqual([
      'first answer',
      'Continuing: keep going',
      'Continuing: keep going',
      'Continuing: keep going',
    ]);
    // 1.3.x joins the turn's texts (agy-real/littlebearapps-untether-agy-1.3.1/background_held.script).
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', response: responses.join('') });
    const stops = hookLog(fx);
    expect(stops).toHaveLength(4);
    // The fields of agy-real/hooks-anti-samcheonpo-agy-1.3.0/Stop.json: no stepIdx, no response text.
    for (const stop of stops) {
      expect(stop.input).toMatchObject({
        terminationReason: 'NO_TOOL_CALL',
        error: '',
        executionNum: 0,
        fullyIdle: true,
      });
      expect(stop.input).not.toHaveProperty('stepIdx');
      expect(stop.input).not.toHaveProperty('hookEventName');
    }
  });
});

/** The tools of the HTTP test server (the stdio server's script registers the same ones, plus `env`). */
function registerTools(server: McpServer): void {
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  server.registerTool('structured', { outputSchema: { n: z.number() } }, async () => ({
    content: [],
    structuredContent: { n: 42 },
  }));
  server.registerTool('fail', {}, async () => ({
    content: [{ type: 'text', text: 'it broke' }],
    isError: true,
  }));
  server.registerTool('danger', {}, async () => ({ content: [{ type: 'text', text: 'boom' }] }));
}

/** A stdio MCP server script (official SDK) that writes its pid to `pidFile` and reports its env and cwd. */
function stdioServerScript(fx: Fixture): string {
  const sdk = (path: string): string =>
    pathToFileURL(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path)).href;
  const zod = pathToFileURL(join(ROOT, 'node_modules/zod/index.js')).href;
  return put(
    join(fx.root, 'servers/stdio-server.mjs'),
    `import { writeFileSync } from 'node:fs';
import { McpServer } from '${sdk('server/mcp.js')}';
import { StdioServerTransport } from '${sdk('server/stdio.js')}';
import * as z from '${zod}';

writeFileSync(process.argv[2], String(process.pid));
const server = new McpServer({ name: 'test-stdio', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text: 'echo: ' + text }],
}));
server.registerTool('structured', { outputSchema: { n: z.number() } }, async () => ({
  content: [],
  structuredContent: { n: 42 },
}));
server.registerTool('fail', {}, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
server.registerTool('danger', {}, async () => ({ content: [{ type: 'text', text: 'boom' }] }));
server.registerTool('env', {}, async () => ({
  content: [{ type: 'text', text: process.env.MCP_TEST_VAR + '|' + process.cwd() }],
}));
await server.connect(new StdioServerTransport());
`,
  );
}

/** Whether `pid` is a live process (a zombie waiting for its reaper counts as gone). */
function isRunning(pid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone: nothing signals the end of a process that is not our child. */
async function expectGone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (isRunning(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function mcpStep(step: Record<string, unknown> | undefined): Record<string, unknown> {
  return { state: step?.state, ...toolInfo(step) };
}

describe('MCP servers', () => {
  let http: HttpMcp;

  beforeAll(async () => {
    http = await startHttpMcp({ name: 'test-http', register: registerTools });
  });

  afterAll(async () => {
    await http.close();
  });

  it('calls tools of a stdio server through call_mcp_tool, and stops the server at exit', async () => {
    const fx = await fixture();
    const pidFile = join(fx.root, 'server.pid');
    const serverCwd = join(fx.root, 'servers');
    put(join(fx.work, '.agents/mcp_config.json'), {
      mcpServers: {
        local: {
          command: process.execPath,
          args: [stdioServerScript(fx), pidFile],
          env: { MCP_TEST_VAR: 'from-config' },
          cwd: serverCwd,
          disabledTools: ['danger'],
        },
        off: { command: '/nonexistent/off', disabled: true },
      },
    });
    const call = (tool: string, args?: Record<string, unknown>, server = 'local') => ({
      mcpTool: { server, tool, ...(args === undefined ? {} : { arguments: args }) },
    });
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            call('echo', { text: 'hi' }),
            call('structured'),
            call('fail'),
            call('danger'),
            call('nosuch'),
            call('env'),
            call('echo', {}, 'nowhere'),
            { text: 'done' },
          ],
        },
        {
          actions: [
            { mcpTool: { server: 'local', tool: 'echo', arguments: { text: 'x' }, expectError: true } },
          ],
        },
      ],
    };
    const sim = await start(fx, { scenario });
    sim.prompt('call them');
    sim.prompt('expect wrongly');
    sim.prompt('mcp:local/echo {"text":"from the prompt"} please');
    await sim.waitForResult(3);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isRunning(pid)).toBe(true);
    sim.endInput();
    expect(await sim.exited).toEqual({ code: 0, signal: null });
    expectWireValid(sim);

    const steps = toolSteps(sim);
    expect(steps.every((s) => s.tool_name === 'call_mcp_tool' || s.tool_name === 'list_dir')).toBe(true);
    const mcp = steps.filter((s) => s.tool_name === 'call_mcp_tool');
    expect(mcpStep(mcp[0])).toEqual({
      state: 'DONE',
      name: 'call_mcp_tool',
      parameters: { ServerName: 'local', ToolName: 'echo', Arguments: { text: 'hi' } },
      output: 'echo: hi',
    });
    expect(mcpStep(mcp[1])).toMatchObject({ state: 'DONE', output: '{"n":42}' });
    expect(mcpStep(mcp[2])).toMatchObject({
      state: 'ERROR',
      error: { type: 'TOOL_ERROR', message: 'it broke' },
    });
    const unknown = { type: 'TOOL_ERROR', message: 'tool "danger" not found on MCP server "local"' };
    expect(mcpStep(mcp[3])).toMatchObject({ state: 'ERROR', error: unknown });
    expect(mcpStep(mcp[4])).toMatchObject({
      state: 'ERROR',
      error: { message: 'tool "nosuch" not found on MCP server "local"' },
    });
    expect(mcpStep(mcp[5])).toMatchObject({ state: 'DONE', output: `from-config|${serverCwd}` });
    expect(mcpStep(mcp[6])).toMatchObject({
      state: 'ERROR',
      parameters: { ServerName: 'nowhere' },
      error: { message: 'MCP server "nowhere" not found' },
    });
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS', response: 'done' });
    // expectError that does not hold fails the turn.
    expect(sim.results[1]).toMatchObject({ status: 'ERROR', response: '' });
    expect(sim.results[1]?.error).toMatch(/^simulator: expected call_mcp_tool local\/echo to fail/);
    // The default script calls `mcp:<server>/<tool> {args}` and reports the output.
    expect(mcpStep(mcp[8])).toMatchObject({ state: 'DONE', output: 'echo: from the prompt' });
    expect(sim.results[2]?.response).toBe(
      `${echoText('mcp:local/echo {"text":"from the prompt"} please')} The MCP tool local/echo returned: echo: from the prompt`,
    );
    await expectGone(pid);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('stops stdio servers when an idle simulator gets %s', async (signal, code) => {
    const fx = await fixture();
    const pidFile = join(fx.root, 'server.pid');
    put(join(fx.home, '.gemini/config/mcp_config.json'), {
      mcpServers: { local: { command: process.execPath, args: [stdioServerScript(fx), pidFile] } },
    });
    const sim = await start(fx, {
      scenario: {
        turns: [{ actions: [{ mcpTool: { server: 'local', tool: 'echo', arguments: { text: 'a' } } }] }],
      },
    });
    sim.prompt('go');
    await sim.waitForResult(1);
    expect(toolSteps(sim)[0]).toMatchObject({ state: 'DONE', tool_info: { output: 'echo: a' } });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    sim.child.kill(signal);
    expect(await sim.exited).toEqual({ code, signal: null });
    await expectGone(pid);
  });

  it('calls a Streamable HTTP server with its headers, names plugin servers <plugin>_<server>, and hooks apply', async () => {
    const fx = await fixture();
    put(join(fx.home, '.gemini/config/mcp_config.json'), {
      mcpServers: { remote: { serverUrl: http.url, headers: { Authorization: 'Bearer t0k3n' } } },
    });
    put(join(fx.work, '.agents/plugins/kit/plugin.json'), { name: 'kit' });
    put(join(fx.work, '.agents/plugins/kit/mcp_config.json'), {
      mcpServers: {
        srv: { serverUrl: http.url, disabledTools: ['danger'] },
        broken: { command: '/nonexistent/mcp-server' },
        badenv: { command: process.execPath, env: { N: 1 } },
      },
    });
    put(join(fx.work, '.agents/hooks.json'), {
      b: {
        PreToolUse: [{ matcher: 'call_mcp_tool', hooks: [cmd(hook(fx, 'pre'))] }],
        PostToolUse: [{ matcher: 'call_mcp_tool', hooks: [cmd(hook(fx, 'post'))] }],
      },
    });
    const sim = await start(fx, {
      scenario: {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'remote', tool: 'echo', arguments: { text: 'over http' } } },
              { mcpTool: { server: 'srv', tool: 'echo', arguments: { text: 'short name' } } },
              { mcpTool: { server: 'kit_srv', tool: 'danger' } },
              { mcpTool: { server: 'broken', tool: 'echo', expectError: 'not connected' } },
            ],
          },
        ],
      },
    });
    await runPrompts(sim, ['go']);
    expectWireValid(sim);
    const mcp = toolSteps(sim);
    expect(mcpStep(mcp[0])).toMatchObject({
      state: 'DONE',
      parameters: { ServerName: 'remote', ToolName: 'echo', Arguments: { text: 'over http' } },
      output: 'echo: over http',
    });
    expect(mcpStep(mcp[1])).toMatchObject({
      state: 'DONE',
      parameters: { ServerName: 'kit_srv' },
      output: 'echo: short name',
    });
    expect(mcpStep(mcp[2])).toMatchObject({
      state: 'ERROR',
      error: { message: 'tool "danger" not found on MCP server "kit_srv"' },
    });
    expect(mcpStep(mcp[3])).toMatchObject({ state: 'ERROR', parameters: { ServerName: 'kit_broken' } });
    expect(sim.results[0]).toMatchObject({ status: 'SUCCESS' });
    expect(sim.stderr).toMatch(/warning: MCP server "kit_broken" .* failed to connect: .*; dropping it/);
    expect(sim.stderr).toContain('warning: ignoring MCP server "badenv"');
    expect(http.headers.some((h) => h.authorization === 'Bearer t0k3n')).toBe(true);

    const log = hookLog(fx);
    expect(log.filter((e) => e.name === 'pre')).toHaveLength(4);
    expect(log.find((e) => e.name === 'pre')?.input.toolCall).toEqual({
      name: 'call_mcp_tool',
      args: {
        ServerName: 'remote',
        ToolName: 'echo',
        Arguments: { text: 'over http' },
        toolAction: 'Running call_mcp_tool',
        toolSummary: 'Run call_mcp_tool',
      },
    });
    expect(log.find((e) => e.name === 'post')?.input).toMatchObject({ error: '' });
    const failedPost = log.filter((e) => e.name === 'post')[2];
    expect(failedPost?.input.error).toBe('tool "danger" not found on MCP server "kit_srv"');
  });

  it('lets a PreToolUse overwrite change the MCP call, and a deny stop it', async () => {
    const fx = await fixture();
    put(join(fx.work, '.agents/mcp_config.json'), { mcpServers: { remote: { serverUrl: http.url } } });
    const overwrite = '{"decision":"allow","overwrite":{"Arguments":{"text":"rewritten"}}}';
    put(join(fx.work, '.agents/hooks.json'), {
      b: {
        PreToolUse: [{ matcher: 'call_mcp_tool', hooks: [cmd(hook(fx, 'rewrite', { stdout: overwrite }))] }],
      },
    });
    const sim = await start(fx, {
      scenario: {
        turns: [
          { actions: [{ mcpTool: { server: 'remote', tool: 'echo', arguments: { text: 'original' } } }] },
        ],
      },
    });
    await runPrompts(sim, ['go']);
    expect(mcpStep(toolSteps(sim)[0])).toMatchObject({
      state: 'DONE',
      parameters: { ServerName: 'remote', ToolName: 'echo', Arguments: { text: 'rewritten' } },
      output: 'echo: rewritten',
    });
    expect(http.calls).toContainEqual({ text: 'rewritten' });
    expect(http.calls).not.toContainEqual({ text: 'original' });

    const denying = await fixture();
    put(join(denying.work, '.agents/mcp_config.json'), { mcpServers: { remote: { serverUrl: http.url } } });
    const deny = '{"decision":"deny","reason":"no network today"}';
    put(join(denying.work, '.agents/hooks.json'), {
      b: {
        PreToolUse: [{ matcher: 'call_mcp_tool', hooks: [cmd(hook(denying, 'deny', { stdout: deny }))] }],
      },
    });
    const denied = await start(denying, {
      scenario: {
        turns: [
          {
            actions: [
              {
                mcpTool: {
                  server: 'remote',
                  tool: 'echo',
                  arguments: { text: 'blocked' },
                  expectError: 'no network',
                },
              },
              { text: 'went on' },
            ],
          },
        ],
      },
    });
    await runPrompts(denied, ['go']);
    expect(mcpStep(toolSteps(denied)[0])).toMatchObject({
      state: 'ERROR',
      error: { type: 'TOOL_ERROR', message: 'tool call denied by pre-tool hook: no network today' },
    });
    expect(mcpStep(toolSteps(denied)[0])).not.toHaveProperty('output');
    expect(denied.results[0]).toMatchObject({ status: 'SUCCESS', response: 'went on' });
    expect(http.calls).not.toContainEqual({ text: 'blocked' });
  });

  it('exits 1 on an mcp_config.json syntax error, before init', async () => {
    const fx = await fixture();
    const file = put(join(fx.work, '.agents/mcp_config.json'), '{"mcpServers": {');
    const sim = await start(fx);
    expect((await sim.exited).code).toBe(1);
    expect(sim.lines).toHaveLength(0);
    expect(sim.stderr).toMatch(new RegExp(`^error: failed to parse MCP config ${file}: `, 'm'));

    const plugin = await fixture();
    put(join(plugin.work, '.agents/plugins/p/plugin.json'), { name: 'p' });
    put(join(plugin.work, '.agents/plugins/p/mcp_config.json'), { mcpServers: [] });
    const sim2 = await start(plugin);
    expect((await sim2.exited).code).toBe(1);
    expect(sim2.stderr).toContain('"mcpServers" must be an object');
  });
});

describe('scenario files', () => {
  it('validates mcpTool actions', async () => {
    const fx = await fixture();
    const sim = await start(fx, {
      scenario: { turns: [{ actions: [{ mcpTool: { server: 'x' } } as never] }] },
    });
    expect((await sim.exited).code).toBe(1);
    expect(sim.stderr).toContain('turns[0].actions[0]: mcpTool must be {server: string, tool: string, …}');
    const bad = await start(fx, {
      scenario: { turns: [{ actions: [{ mcpTool: { server: 'x', tool: 'y', expectError: 1 } } as never] }] },
    });
    expect((await bad.exited).code).toBe(1);
    expect(bad.stderr).toContain('mcpTool.expectError must be a boolean or a string');
  });
});

describe('plugins, rules and custom agents', () => {
  it('answers "what are your rules?" with the always-on rules, cut at 24,000 bytes, and lists custom agents', async () => {
    const fx = await fixture();
    const plugins = join(fx.work, '.agents/plugins');
    put(join(plugins, 'a-sdk/plugin.json'), { name: 'agy-sdk', description: 'session plugin' });
    put(join(plugins, 'a-sdk/rules/AGENTS.md'), 'Guidance without frontmatter is always on.\n');
    put(
      join(plugins, 'a-sdk/rules/notes.md'),
      '---\ntrigger: always_on\ndescription: "notes"\n---\n\nNotes body.\n',
    );
    put(join(plugins, 'a-sdk/rules/manual.md'), '---\ntrigger: manual\n---\nOnly on request.\n');
    // 1 + 2 × 15,000 bytes: the 24,000-byte cut falls inside an "é", which is dropped whole.
    put(join(plugins, 'a-sdk/rules/zz-long.md'), `a${'é'.repeat(15_000)}`);
    put(
      join(plugins, 'a-sdk/agents/helper/agent.md'),
      '---\ndescription: helps\nsubagent: true\n---\nBody.\n',
    );
    put(join(plugins, 'b-off/plugin.json'), { name: 'off', disabled: true });
    put(join(plugins, 'b-off/rules/r.md'), 'Disabled plugin rule.');
    put(join(plugins, 'c-bad/plugin.json'), '{"name": ');
    put(join(plugins, 'c-bad/rules/r.md'), 'Invalid plugin rule.');
    put(join(plugins, 'd-name/plugin.json'), { name: 'bad name!' });
    put(
      join(fx.work, '.agents/agents/rev/agent.md'),
      '---\nname: code-reviewer\ndescription: reviews\n---\nReview.\n',
    );

    const sim = await start(fx);
    await runPrompts(sim, ['What are your rules?', 'what agents?']);
    const long = `a${'é'.repeat(11_999)}`;
    expect(Buffer.byteLength(long)).toBe(23_999);
    expect(sim.results[0]?.response).toBe(
      ['Guidance without frontmatter is always on.', 'Notes body.', long].join('\n\n'),
    );
    expect(sim.results[1]?.response).toBe('Custom agents: code-reviewer, helper.');
    expect(sim.stderr).toContain(
      `warning: skipping plugin ${join(plugins, 'c-bad')}: plugin.json is not valid JSON`,
    );
    expect(sim.stderr).toContain(
      `warning: skipping plugin ${join(plugins, 'd-name')}: plugin.json "name" must match`,
    );
    expect(sim.stderr).not.toContain('b-off');
  });

  it('answers plainly without rules or agents, and keeps the echo otherwise', async () => {
    const fx = await fixture();
    const sim = await start(fx);
    await runPrompts(sim, ['what are your rules?', 'what agents?', 'hello']);
    expect(sim.results.map((r) => r.response)).toEqual([
      'I have no always-on rules.',
      'I have no custom agents.',
      echoText('hello'),
    ]);
    expect(sim.stderr).toBe('');
  });
});
