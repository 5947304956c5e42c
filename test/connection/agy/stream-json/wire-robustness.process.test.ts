// Framing and drift tolerance through real processes (docs/reference/stream-json.md#framing, docs/reference/stream-json.md#drift-tolerance).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BadLine } from '../../../../src/connection/agy/stream-json/parse-line.js';
import { LineTooLongError } from '../../../../src/errors.js';
import type { Scenario } from '../../../../src/testing/simulator/scenario.js';
import { useSandboxAgents } from '../../../helpers/agents.js';

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

describe('stdout robustness', () => {
  it('delivers a 16 MiB line intact', async () => {
    const size = 16 * 1024 * 1024;
    const agent = await agentWith({ turns: [{ actions: [{ hugeText: size }] }] });
    const text = await (await agent.chat('big')).text();
    expect(text.length).toBe(size);
  });

  it('drops a line over maxLineBytes with a typed error; the turn fails closed; the session goes on', async () => {
    const bad: BadLine[] = [];
    const agent = await agentWith(
      { turns: [{ actions: [{ hugeText: 200_000 }, { text: 'after' }] }, { actions: [{ text: 'next' }] }] },
      { maxLineBytes: 100_000, onBadLine: (b) => bad.push(b) },
    );
    const result = await (await agent.chat('big')).result();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(LineTooLongError);
    expect(result.text).toBe('after');
    // The long step, then the result: 1.3.x's response joins the turn's texts (the long one included), so the
    // result line is over the limit too, and the turn ends on it (docs/reference/stream-json.md#framing).
    expect(bad.map((b) => b.reason)).toEqual(['too_long', 'too_long']);
    expect(result.errorMessage).toBe("agy's result line was longer than maxLineBytes and was dropped");
    expect(await (await agent.chat('more')).text()).toBe('next');
  });

  it('a maxLineBytes below the init line: the failed start says a line was dropped, not only "no init"', async () => {
    // The init line (docs/reference/stream-json.md#init-line) is a few hundred bytes.
    const agent = await agentWith({ turns: [] }, { maxLineBytes: 64, startTimeoutMs: 3_000 });
    const start = agent.start();
    await expect(start).rejects.toThrow(
      /did not send init within 3000 ms; 1 stdout line\(s\) before init were longer than maxLineBytes \(64 bytes\) and dropped/,
    );
  });

  it('counts garbage and unknown events via onBadLine, never throws, and the turn succeeds', async () => {
    const bad: BadLine[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { raw: 'Loaded cached credentials.\n' },
              { raw: '{"event":"step_upd\n' },
              { raw: '[1,2,3]\n' },
              { unknownEvent: 'telemetry' },
              { step: { step_type: 'brand_new_kind', state: 'DONE', extra: true } },
              { text: 'fine' },
            ],
          },
        ],
      },
      { onBadLine: (b) => bad.push(b) },
    );
    const r = await agent.chat('x');
    expect(await r.text()).toBe('fine');
    expect(bad.map((b) => b.reason)).toEqual(['not_json', 'not_json', 'not_object', 'unknown_event']);
    expect(agent.stats).toMatchObject({ badLines: 4, unknownEvents: 1 });
    const steps = [];
    for await (const s of r.steps()) steps.push(s);
    expect(steps.find((s) => s.type === 'brand_new_kind')?.raw).toMatchObject({ extra: true });
  });

  it('decodes a UTF-8 character split across writes, and raw U+2028/U+0085 inside strings', async () => {
    const line = `${JSON.stringify({
      event: 'step_update',
      step_update: {
        step_index: 50,
        state: 'DONE',
        step_type: 'agent_response',
        text_delta: '🌍\u2028é\u0085!',
      },
    })}\n`;
    const bytes = Buffer.from(line);
    const cut = bytes.indexOf(Buffer.from('🌍')) + 2;
    const agent = await agentWith({
      turns: [
        {
          actions: [
            { rawBytes: [bytes.subarray(0, cut).toString('base64'), bytes.subarray(cut).toString('base64')] },
          ],
        },
      ],
    });
    const r = await agent.chat('x');
    const deltas: string[] = [];
    for await (const d of r) deltas.push(d);
    expect(deltas).toContain('🌍\u2028é\u0085!');
    expect((await r.result()).status).toBe('success');
  });
});

interface HostReport {
  turns: { status: string; text: string }[];
  badLines: string[];
  logged: { level: string; message: string; detail: string }[];
}

/**
 * Runs `test/fixtures/hostile-host.mjs` (the built package, the real spawn path) in its own Node process, so
 * an exception that escapes the SDK shows as what it is in production: the host exiting non-zero.
 */
async function runHost(
  scenario: Scenario,
  prompts: string[],
  throwIn: string[] = [],
): Promise<{ code: number | null; report: HostReport | undefined; stderr: string }> {
  const config = await sb.box.agentConfig(scenario);
  const host = spawn(
    process.execPath,
    [
      join(import.meta.dirname, '../../../fixtures/hostile-host.mjs'),
      JSON.stringify({ config, prompts, throwIn }),
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  onTestFinished(() => {
    host.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  host.stdout.on('data', (c: Buffer) => {
    stdout += c;
  });
  host.stderr.on('data', (c: Buffer) => {
    stderr += c;
  });
  const code = await new Promise<number | null>((resolve) => host.on('close', (c) => resolve(c)));
  const line = stdout.split('\n').find((l) => l.startsWith('{'));
  return { code, report: line ? (JSON.parse(line) as HostReport) : undefined, stderr };
}

/** `{"a":{"a":…}}` nested `depth` levels. */
const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('nothing agy writes or a callback throws crashes the host', () => {
  // Each deep value sits where the captures put real values: tool_info.error / output / parameters and
  // agent_response usage (agy-real/joiomi-playbook-plugin-agy-1.3.1/success-tools.stdout,
  // agy-real/jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson).
  const deepLines = (depth: number) => [
    `{"event":"step_update","step_update":{"step_index":900,"state":"ERROR","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{},"error":${deep(depth)}}}}\n`,
    `{"event":"step_update","step_update":{"step_index":901,"state":"DONE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":{},"output":${deep(depth)}}}}\n`,
    `{"event":"step_update","step_update":{"step_index":902,"state":"ACTIVE","step_type":"tool","tool_name":"run_command","tool_info":{"name":"run_command","parameters":${deep(depth)}}}}\n`,
    `{"event":"step_update","step_update":{"step_index":903,"state":"DONE","step_type":"agent_response","usage":${deep(depth)}}}\n`,
  ];

  it('survives deeply nested error, output, arguments and usage (1k-100k levels); text around them is kept', async () => {
    const depths = [1_000, 5_000, 100_000];
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { text: 'before ' },
            ...depths.flatMap((d) => deepLines(d).map((raw) => ({ raw }))),
            { text: 'after' },
          ],
        },
        { actions: [{ text: 'next turn' }] },
      ],
    };
    const { code, report, stderr } = await runHost(scenario, ['deep', 'again']);
    expect(stderr).not.toContain('Maximum call stack');
    expect(code).toBe(0);
    expect(report?.turns.map((t) => t.text)).toEqual(['before after', 'next turn']);
    // The turn that lost lines fails closed; the session goes on.
    expect(report?.turns.map((t) => t.status)).toEqual(['error', 'success']);
    expect(report?.badLines).toEqual(Array(depths.length * 4).fill('too_deep'));
  });

  it('contains a throwing onBadLine and onStderr: logged through the logger, the turn goes on', async () => {
    const scenario: Scenario = {
      turns: [
        {
          actions: [
            { text: 'one ' },
            { raw: 'not json at all\n' },
            { stderr: 'a warning from agy' },
            {
              raw: `{"event":"step_update","step_update":{"step_index":950,"state":"DONE","step_type":"tool","tool_info":{"output":${deep(5_000)}}}}\n`,
            },
            { text: 'two' },
          ],
        },
      ],
    };
    const { code, report } = await runHost(scenario, ['x'], ['onBadLine', 'onStderr']);
    expect(code).toBe(0);
    expect(report?.turns[0]?.text).toBe('one two');
    expect(report?.badLines).toEqual(['not_json', 'too_deep']);
    const errors = report?.logged.filter((l) => l.level === 'error') ?? [];
    expect(errors.filter((l) => l.message.startsWith('onBadLine threw')).map((l) => l.detail)).toEqual([
      'onBadLine blew up',
      'onBadLine blew up',
    ]);
    expect(
      errors.some((l) => l.message.startsWith('onStderr threw') && l.detail === 'onStderr blew up'),
    ).toBe(true);
  });

  it('contains an async onBadLine that rejects (no unhandled rejection)', async () => {
    const scenario: Scenario = { turns: [{ actions: [{ raw: '[1]\n' }, { text: 'ok' }] }] };
    const { code, report } = await runHost(scenario, ['x'], ['onBadLineAsync']);
    expect(code).toBe(0);
    expect(report?.turns[0]?.text).toBe('ok');
    expect(
      report?.logged.some(
        (l) => l.message.startsWith('onBadLine threw') && l.detail === 'async onBadLine blew up',
      ),
    ).toBe(true);
  });
});
