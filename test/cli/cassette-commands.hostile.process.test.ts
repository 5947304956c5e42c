// `agy-sdk show` and `cassette import` of hostile files through the built command, each run under a kill
// timer (a hang fails the test instead of stalling the suite): a trace whose spans share ids (2^30 paths by
// id) and malformed traces and captures end with the usage exit code 2 and one line naming the file, the span
// or line, and the field, without a stack trace; well-formed files of 200,000 spans or lines are rendered or
// imported. Limits: docs/guides/testing-your-agent.md#limits-on-files-read.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT, type CliRun, startCli } from '../helpers/cli.js';
import {
  chatSpan,
  type RawSpan,
  sharedIdTrace,
  traceText,
  turnSpan,
  wideTrace,
} from '../helpers/otlp-traces.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agy-sdk-cli-hostile-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * Runs the CLI, SIGKILLed after `ms`: 20 s for the hangs this guards against (they took hours), more for the
 * 200,000-span and -line files, whose old failure was a crash, on a loaded machine.
 */
async function bounded(args: string[], ms = 20_000): Promise<CliRun> {
  const cli = startCli(args);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), ms);
  try {
    return await cli.done;
  } finally {
    clearTimeout(timer);
  }
}

/** `show` of a file holding `text`: a usage error naming the file and `where`, without a stack trace. */
async function refused(name: string, text: string, where: RegExp): Promise<void> {
  const file = join(dir, name);
  writeFileSync(file, text);
  const run = await bounded(['show', file, '-o', join(dir, `${name}.html`)]);
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain(file);
  expect(run.stderr).toMatch(where);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

function withStep(edit: (span: RawSpan) => void): string {
  const step = chatSpan('c1', 'turn', 1);
  edit(step);
  return traceText([turnSpan('turn'), step]);
}

describe.skipIf(!BUILT)(BUILT ? 'hostile files' : 'skipped: run `npm run build` first', () => {
  it('show of 61 spans sharing ids is refused at once, naming the repeated id', async () => {
    await refused(
      'shared.json',
      sharedIdTrace(30),
      /:1: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[2\] \(spanId "L1"\)\.spanId: repeats the id/,
    );
  });

  it('show of malformed spans: self-parent, numeric status, string cost, non-numeric timestamp', async () => {
    const span = /spans\[1\] \(spanId "c1"\)/.source;
    await refused(
      'self.json',
      traceText([turnSpan('turn'), chatSpan('c1', 'c1')]),
      new RegExp(`${span}\\.parentSpanId: is the span's own id`),
    );
    await refused(
      'status.json',
      withStep((s) => (s.status = 2)),
      new RegExp(`${span}\\.status: must be an object`),
    );
    const cost = { key: 'agy_sdk.usage.cost_usd', value: { stringValue: '0.5' } };
    await refused(
      'cost.json',
      withStep((s) => (s.attributes as unknown[]).push(cost)),
      new RegExp(`${span}\\.attributes\\[4\\] \\("agy_sdk\\.usage\\.cost_usd"\\): must be a number`),
    );
    await refused(
      'time.json',
      withStep((s) => (s.endTimeUnixNano = 'later')),
      new RegExp(`${span}\\.endTimeUnixNano: must be`),
    );
  });

  it('show of a well-formed 200,000-span trace writes the page', async () => {
    const file = join(dir, 'wide.json');
    writeFileSync(file, wideTrace(200_000));
    const run = await bounded(['show', file, '-o', join(dir, 'wide.html')], 100_000);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'wide.html'), 'utf8')).toContain('199999 steps');
  }, 120_000);

  it('show of a cassette whose one step carries 100,000 different messages is linear (it was quadratic)', async () => {
    const file = join(dir, 'notices.cassette.jsonl');
    const header = {
      format: 'agy-sdk-cassette',
      version: 1,
      backend: 'agy',
      agy: { version: '1.3.1', args: [] },
      recordedAt: '2026-01-01T00:00:00.000Z',
      sanitized: true,
    };
    const out = (line: object) => JSON.stringify({ t: 0, type: 'stdout', line: JSON.stringify(line) });
    const lines = [
      JSON.stringify(header),
      JSON.stringify({ t: 0, type: 'spawn', args: [] }),
      out({ event: 'init', conversation_id: 'c1', init: { cwd: '/w', tools: [] } }),
      JSON.stringify({ t: 0, type: 'stdin', line: 'hello' }),
    ];
    for (let i = 0; i < 100_000; i++) {
      const step = { conversation_id: 'c1', step_index: 1, state: 'ACTIVE', step_type: 'error_message' };
      lines.push(
        out({
          event: 'step_update',
          step_update: { ...step, error_message: `notice ${i} ${'.'.repeat(60)}` },
        }),
      );
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await bounded(['show', file, '-o', join(dir, 'notices.html')]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'notices.html'), 'utf8')).toContain('notice 99999 ');
  });

  it('cassette import of a malformed hook payload is refused naming file, line and field', async () => {
    const hooks = join(dir, 'hooks');
    mkdirSync(hooks);
    writeFileSync(join(hooks, 'PreToolUse-step1.json'), '{"toolCall":');
    const run = await bounded(['cassette', 'import', hooks]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${join(hooks, 'PreToolUse-step1.json')}:1: request: is not JSON`);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('cassette import of a 200,000-line .script writes the cassette', async () => {
    const file = join(dir, 'long.script');
    const lines = ['out:{"event":"init","conversation_id":"c1","init":{}}'];
    for (let i = 0; i < 200_000; i++) lines.push(`out:{"n":${i}}`);
    writeFileSync(file, `${lines.join('\n')}\nrc:0\n`);
    const out = join(dir, 'long.cassette.jsonl');
    const run = await bounded(['cassette', 'import', file, '-o', out], 100_000);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n').length).toBeGreaterThan(200_001);
  }, 120_000);
});
