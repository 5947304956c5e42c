// Every program in examples/ runs offline, as a user would run it after `npm run build`: a child Node process
// with AGY_PATH and provider keys removed from its environment, so each one falls back to the bundled
// simulator (and example 15 to its local stand-in upstream). Each must exit 0, print its marker line, and
// leave no process behind: every process it starts inherits a per-run environment marker, and on Linux the
// test scans /proc for it after the example exits.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnStatus } from '../../src/index.js';
import { envSurvivors } from '../helpers/env-marker.js';

const root = resolve(import.meta.dirname, '../..');
const examplesDir = join(root, 'examples');
const built =
  existsSync(join(root, 'dist/index.js')) && existsSync(join(root, 'dist/testing/simulator/main.js'));

/** The line each example prints when it did what it shows (its final status, or the test summary). */
const MARKERS: Record<string, RegExp[]> = {
  '01-hello-world.mjs': [/^agent: .+/m, /^status: success$/m],
  // The tool line is not left after an empty `agent: ` label.
  '02-streaming.mjs': [
    /^ {2}→ tool list_dir\n(?!agent: \n)/m,
    /^agent: \S/m,
    /^model steps: [1-9]\d*$/m,
    /^status: success$/m,
  ],
  '03-custom-tools.mjs': [/✓ lookup_order → .*shipped/, /^status: success$/m],
  '04-hooks.mjs': [
    /preToolCall: run_command curl/,
    /denied: run_command by sdk: No network access\./,
    /^status: denied$/m,
  ],
  '05-policies.mjs': [/✗ run_command/, /Destructive commands are not allowed\./, /^status: denied$/m],
  '06-human-in-the-loop.mjs': [/`ls` → yes/, /`git push --force` → no/, /^status: denied$/m],
  '07-structured-output.mjs': [
    /^title: agy-sdk; files: 120; languages: TypeScript, Markdown$/m,
    /^status: success$/m,
  ],
  '08-multimodal.mjs': [
    /rejected up front: .*image\/tiff/,
    /attached: image \(image\/png\)/,
    /attached: document \(text\/csv\)/,
    /view_file \d+-pixel\.png ✓ 3 lines, 70 bytes/,
    /view_file \d+-sales\.csv ✓ 3 lines, 26 bytes/,
    /^status: success$/m,
  ],
  '09-triggers.mjs': [/^trigger turns: files, timer$/m, /^status: success$/m],
  '10-mcp-tools.mjs': [/add_note ✓ added note 3/, /list_notes ✓ .*write the changelog/, /^status: success$/m],
  '11-subagents.mjs': [/delegating to: researcher/, /\[researcher\] tool find_by_name/, /^status: success$/m],
  '12-budget-limits.mjs': [
    /^first turn: budget_exceeded \(limit: maxToolCalls\)/m,
    /^second turn: success$/m,
    /^status: budget_exceeded$/m,
  ],
  '13-cancellation-and-interrupt.mjs': [
    /^first turn: interrupted$/m,
    /^second turn: canceled; queued turn: canceled$/m,
    /^status: success$/m,
  ],
  '14-persistence-and-resume.mjs': [/^same conversation: true$/m, /^resumed: yes$/m, /^status: success$/m],
  '15-provider-openai-compatible.mjs': [
    /^agent: Hello from an OpenAI-compatible model\.$/m,
    /^upstream tokens: 56$/m,
    /^status: success$/m,
  ],
  '16-testing-your-agent.mjs': [/^# pass 3$/m, /^# fail 0$/m],
  '17-observability.mjs': [
    /^ {2}invoke_agent agy \(.*\) {2}denied {2}in=\d+ out=\d+ {2}\$\d/m,
    /^ {4}execute_tool run_command .*outcome=denied {2}reason="Denied by policy 'no-network'"/m,
    /^ {6}db\.orders\.find/m,
    /^status: denied$/m,
  ],
  '18-ag-ui-chat.mjs': [
    /^page: http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/m,
    /^ {2}→ tool run_command \{"CommandLine":"ls"\}$/m,
    /^ {2}\? Allow run_command `ls`\? → approved$/m,
    /^ {2}✓ README\.md, package\.json$/m,
    /^agent: The workspace holds README\.md and package\.json\.$/m,
    /^status: success$/m,
  ],
  '19-ai-sdk-stream-text.mjs': [
    /^agent: Let me list the files\.$/m,
    /^ {2}→ list_dir \{"DirectoryPath":"\."\}$/m,
    /^ {2}✓ README\.md, src\/$/m,
    /^finish: stop \(success\); tokens in \d+, out \d+$/m,
    /^agent: Hello from the agy simulator \(offline\)\. You said: "Thanks!"\.$/m,
    /^same conversation: true$/m,
    /^status: success$/m,
  ],
  // The version line once `agy --version` answered (src/testing/simulator/README.md, "Which agy build"), and the
  // demo's own tool called by the simulator's default script (docs/reference/mcp.md#calling-mcp-tools).
  'demo.mjs': [
    /running offline against the agy simulator/,
    /^agy 1\.3\.1 · conversation \S+$/m,
    /^ {2}→ tool count_files \{\} ✓$/m,
    /Your tool count_files returned: \d+ entries in /,
    /^turn: success/m,
  ],
  'offline-provider-chain.mjs': [/→ tool list_dir/, /^turn: success/m],
};

/** Every `TurnStatus` (src/model/turn-result.ts). */
const TURN_STATUSES: readonly TurnStatus[] = [
  'success',
  'denied',
  'timeout',
  'quota_exhausted',
  'rate_limited',
  'auth_failed',
  'interrupted',
  'canceled',
  'budget_exceeded',
  'error',
];

const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.mjs'))
  .sort();

// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'agy-sdk-examples-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A clean offline environment: no real agy, no provider keys, the simulator's state in a scratch dir. */
function offlineEnv(marker: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', AGY_SDK_EXAMPLE_RUN: marker };
  for (const key of ['AGY_PATH', 'AGY_SIM_SCENARIO', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_MODEL'])
    delete env[key];
  env.AGY_SIM_STATE_DIR = join(scratch, marker);
  // Keep `agy` off PATH so demo.mjs takes its offline branch even on a machine that has agy installed.
  env.PATH = (env.PATH ?? '')
    .split(':')
    .filter((p) => !existsSync(join(p, 'agy')))
    .join(':');
  return env;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs one example; a run past `timeoutMs` is killed (its whole group) and reported as a failure. */
function runExample(file: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(examplesDir, file)], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      stderr += `\n[test] ${file} still running after ${timeoutMs} ms: killed`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

describe.skipIf(!built)('examples (offline, after npm run build)', () => {
  it('every example has a marker, and every marker an example', () => {
    expect(examples.length).toBeGreaterThanOrEqual(18);
    expect(examples).toEqual(Object.keys(MARKERS).sort());
  });

  // Concurrent: every run has its own marker, state dir and sandbox, and most of an example's wall time is
  // process start-up and waiting, not CPU.
  it.concurrent.each(examples)(
    '%s runs offline, exits 0, prints its marker and leaves nothing running',
    async (file) => {
      const marker = randomUUID();
      const run = await runExample(file, offlineEnv(marker), 150_000);
      const report = `exit ${run.code} ${run.signal ?? ''}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, report).toBe(0);
      for (const pattern of MARKERS[file] ?? []) expect(run.stdout, report).toMatch(pattern);
      // The bundled simulator writes only shapes the SDK knows: its own drift warning would mislead.
      expect(run.stdout + run.stderr, report).not.toMatch(/this SDK does not know/);
      // examples/README.md promises a `status:` line: it is always a turn status, and it is the last line of a
      // numbered example (16, a node:test file, ends with node:test's summary; the others with `turn:`).
      for (const m of run.stdout.matchAll(/^status: (.*)$/gm)) expect(TURN_STATUSES, report).toContain(m[1]);
      const last = run.stdout.trimEnd().split('\n').at(-1) ?? '';
      if (file.startsWith('16-')) expect(run.stdout, report).toMatch(/^# fail 0$/m);
      else if (/^\d\d-/.test(file)) expect(last, report).toMatch(/^status: \S+$/);
      else expect(last, report).toMatch(/^turn: /);
      // Processes reparented away from the example (agy under its supervisor, MCP servers) must be gone too.
      expect(await envSurvivors('AGY_SDK_EXAMPLE_RUN', marker, 10_000), report).toEqual([]);
    },
    180_000,
  );
});
