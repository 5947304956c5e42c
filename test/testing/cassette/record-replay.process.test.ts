// Cassettes end to end on the real simulator through the real spawn path: recording (AgentConfig.record and
// AGY_SDK_RECORD), the sanitizer against planted secrets, the format's schema check, and replay (hooks and MCP
// calls re-issued to the new session's listener; strict and loose stdin checks). Format:
// docs/guides/testing-your-agent.md#cassettes.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import { CassetteError, CassetteMismatchError } from '../../../src/errors.js';
import { hooks } from '../../../src/hooks/factories.js';
import { policy } from '../../../src/policy/index.js';
import { timelineHtml } from '../../../src/testing/cassette/html.js';
import { parseCassette, readCassette, replayCassette } from '../../../src/testing/cassette/index.js';
import { buildTimeline } from '../../../src/testing/cassette/timeline.js';
import { simulatorPath } from '../../../src/testing/simulator/path.js';
import type { Scenario } from '../../../src/testing/simulator/scenario.js';
import { tool } from '../../../src/tools/tool.js';
import { useSandboxAgents } from '../../helpers/agents.js';
import { startHttpMcp } from '../../helpers/http-mcp.js';

const sb = useSandboxAgents();
const STDIO_MCP = fileURLToPath(new URL('../../fixtures/simulator/mcp-stdio-server.mjs', import.meta.url));

const TOOL_TURN: Scenario = {
  turns: [
    {
      actions: [
        { text: 'looking' },
        { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'a\nb' } },
        { mcpTool: { server: 'agy-sdk_tools', tool: 'add', arguments: { a: 1, b: 2 } } },
        { text: 'done' },
      ],
    },
  ],
};

function adder(calls: number[]) {
  return tool(
    { name: 'add', description: 'Adds', input: z.object({ a: z.number(), b: z.number() }) },
    ({ a, b }) => {
      calls.push(a + b);
      return String(a + b);
    },
  );
}

async function recordOne(scenario: Scenario, prompt: string, extra: Parameters<typeof sb.agentWith>[1] = {}) {
  const dir = join(sb.box.root, 'cassettes');
  const agent = await sb.agentWith(scenario, { record: { dir }, ...extra });
  const result = await (await agent.chat(prompt)).result();
  const token = agent.runtime?.listener?.token;
  const sessionDir = agent.sessionDir;
  const file = agent.cassetteFile!;
  await agent.close();
  return { result, file, token, sessionDir, dir };
}

describe('recording', () => {
  it('writes one cassette per session: header, stdin/stdout, hooks and MCP with offsets, the exit', async () => {
    const calls: number[] = [];
    const { file, dir } = await recordOne(TOOL_TURN, 'hello', {
      tools: [adder(calls)],
      policies: [policy.deny('run_command'), policy.allowAll()],
    });
    expect(readdirSync(dir)).toHaveLength(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const cassette = readCassette(file);
    expect(cassette.header).toMatchObject({
      format: 'agy-sdk-cassette',
      version: 1,
      backend: 'agy',
      sanitized: true,
    });
    expect(cassette.header.agy.args).toContain('--input-format');
    const types = cassette.records.map((r) => r.type);
    expect(types[0]).toBe('spawn');
    for (const t of ['stdin', 'stdout', 'hook', 'mcp', 'close', 'exit'] as const) expect(types).toContain(t);
    const stdin = cassette.records.find((r) => r.type === 'stdin');
    expect(stdin).toMatchObject({ line: expect.stringContaining('"text":"hello"') });
    const call = cassette.records.find(
      (r) => r.type === 'mcp' && JSON.stringify(r.request).includes('tools/call'),
    );
    expect(call).toMatchObject({ server: 'tools', status: 200 });
    const pre = cassette.records.find((r) => r.type === 'hook' && r.event === 'PreToolUse');
    // The SDK's answer to agy's PreToolUse for run_command: the policy's denial.
    expect(JSON.stringify(pre)).toContain('deny');
    const offsets = cassette.records.map((r) => r.t);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
    expect(calls).toEqual([3]);
  });

  it('AGY_SDK_RECORD=<dir> records any program', async () => {
    const dir = join(sb.box.root, 'env-cassettes');
    const before = process.env.AGY_SDK_RECORD;
    process.env.AGY_SDK_RECORD = dir;
    try {
      const agent = await sb.agentWith({ turns: [{ actions: [{ text: 'hi' }] }] });
      await (await agent.chat('x')).result();
      await agent.close();
      expect(agent.cassetteFile?.startsWith(dir)).toBe(true);
    } finally {
      if (before === undefined) delete process.env.AGY_SDK_RECORD;
      else process.env.AGY_SDK_RECORD = before;
    }
    const [name] = readdirSync(dir);
    expect(readCassette(join(dir, name!)).records.some((r) => r.type === 'stdout')).toBe(true);
  });

  it("a redact pattern that matched nothing in the recording is a warning on the agent's logger at close", async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    await recordOne({ turns: [{ actions: [{ text: 'hi' }] }] }, 'p', {
      logger,
      record: { dir: join(sb.box.root, 'cassettes'), redact: ['hi', /NEVER-SEEN-\d+/] },
    });
    expect(warnings.filter((w) => w.startsWith('record.redact'))).toEqual([
      expect.stringMatching(/^record\.redact\[1\] \(a regular expression\) matched nothing in the recording/),
    ]);
  });

  it("a run shorter than agy's --version probe still records the version; show prints it", async () => {
    // The simulator behind a script that answers `--version` 3 s late: the turn and close() come first, as on a
    // short first run of a real process. A fresh path, so no earlier probe's answer is cached.
    const slow = join(sb.box.root, 'slow-version-agy');
    writeFileSync(
      slow,
      `#!/bin/sh\nif [ "$1" = "--version" ]; then sleep 3; fi\nexec '${process.execPath}' '${simulatorPath()}' "$@"\n`,
    );
    chmodSync(slow, 0o755);
    const { file } = await recordOne({ turns: [{ actions: [{ text: 'hi' }] }] }, 'x', { agyPath: slow });
    const cassette = readCassette(file);
    expect(cassette.header.agy.version).toBe('1.3.1');
    const html = timelineHtml(buildTimeline(cassette));
    expect(html).toContain('agy 1.3.1');
    expect(html).not.toContain('version unknown');
  });

  it('a bad record config is refused by name', () => {
    expect(() => new Agent({ record: { dir: '' } })).toThrow(/record\.dir/);
    expect(() => new Agent({ record: { dir: '/x', redact: [1 as never] } })).toThrow(/record\.redact/);
    expect(() => new Agent({ record: { dir: '/x', redact: [/x*/] } })).toThrow(
      /record\.redact\[0\]: matches the empty string/,
    );
  });
});

describe('sanitizing', () => {
  it('no planted secret survives: token, API keys, bearer tokens, env secrets, paths, user name, ids, redact patterns', async () => {
    const googleKey = `AIza${'Q'.repeat(35)}`;
    const openaiKey = `sk-proj-${'x7'.repeat(16)}`;
    const bearer = 'Bearer abcDEF123456789.token';
    const envSecret = 'hunter2-very-secret-value';
    const custom = 'ACME-INTERNAL-4242';
    const prompt = `key ${googleKey} and ${openaiKey}, header ${bearer}, ticket ${custom}, file ${sb.box.workspace}/notes.txt`;
    const { file, token, sessionDir, result } = await recordOne(
      { turns: [{ actions: [{ text: `echo ${googleKey} in ${sb.box.workspace}` }] }] },
      prompt,
      {
        env: { MY_SERVICE_API_KEY: envSecret },
        record: { dir: join(sb.box.root, 'cassettes'), redact: [/ACME-INTERNAL-\d+/] },
      },
    );
    expect(result.status).toBe('success');
    const text = readFileSync(file, 'utf8');
    expect(token).toBeTruthy();
    const conversationId = result.conversationId!;
    for (const secret of [
      googleKey,
      openaiKey,
      'abcDEF123456789.token',
      envSecret,
      custom,
      token!,
      sessionDir!,
      sb.box.workspace,
      sb.box.dataDir,
      sb.box.root,
      conversationId,
    ]) {
      expect(text, `"${secret}" survived`).not.toContain(secret);
    }
    expect(text).toContain('<api-key>');
    expect(text).toContain('Bearer <bearer>');
    expect(text).toContain('<redacted>');
    expect(text).toContain('<workspace>/notes.txt');
    // One conversation id, rewritten the same way everywhere.
    expect(new Set(text.match(/00000000-0000-4000-8000-\d{12}/g))).toEqual(
      new Set(['00000000-0000-4000-8000-000000000001']),
    );
    // Still a valid cassette.
    expect(() => parseCassette(text)).not.toThrow();
  });

  it("the MCP servers' env and headers (whatever the header is called) never reach the cassette", async () => {
    const bearer = randomBytes(12).toString('hex');
    const apiKey = `k-${randomBytes(10).toString('hex')}`;
    const tenant = `tenant-${randomBytes(6).toString('hex')}`;
    const notion = `ntn_${randomBytes(12).toString('hex')}`;
    const http = await startHttpMcp({ name: 'remote', register: () => {}, token: bearer });
    try {
      // The model repeats what it was told; a tool result or an error message could carry them the same way.
      const { file, result } = await recordOne(
        { turns: [{ actions: [{ text: `keys: ${bearer} ${apiKey} ${tenant} ${notion}`, chunks: 1 }] }] },
        'p',
        {
          mcpServers: {
            remote: {
              url: http.url,
              headers: { Authorization: `Bearer ${bearer}`, 'X-API-Key': apiKey, 'X-Tenant': tenant },
            },
            notion: { command: process.execPath, args: [STDIO_MCP], env: { NOTION_TOKEN: notion } },
          },
        },
      );
      expect(result.text).toContain(notion);
      // The session really used them: agy's MCP client sent the headers.
      expect(http.headers.some((h) => h['x-api-key'] === apiKey)).toBe(true);
      const text = readFileSync(file, 'utf8');
      for (const secret of [bearer, apiKey, tenant, notion])
        expect(text, `"${secret}" survived`).not.toContain(secret);
      expect(text).toContain('<secret:NOTION_TOKEN>');
      expect(text).toContain('<secret:X-API-Key>');
    } finally {
      await http.close();
    }
  });

  it('a secret the model streams across text_delta chunks is not given back by joining the deltas', async () => {
    const secret = `s3cr3t-${randomBytes(12).toString('hex')}`;
    const text = `the key is ${secret}, keep it safe`;
    const { file, result } = await recordOne({ turns: [{ actions: [{ text, chunks: 12 }] }] }, 'p', {
      env: { MY_SERVICE_API_KEY: secret },
    });
    expect(result.text).toBe(text);
    const cassette = readCassette(file);
    const deltas = cassette.records
      .filter((r) => r.type === 'stdout')
      .map((r) => JSON.parse(r.line))
      .filter((l) => typeof l.step_update?.text_delta === 'string')
      .map((l) => l.step_update.text_delta as string);
    // Cut into pieces shorter than the secret, so no single piece held it whole.
    expect(deltas.length).toBeGreaterThanOrEqual(12);
    expect(deltas.join('')).toBe('the key is <secret:MY_SERVICE_API_KEY>, keep it safe');
    const raw = readFileSync(file, 'utf8');
    for (const part of [secret.slice(0, 8), secret.slice(8, 16), secret.slice(-8)])
      expect(raw).not.toContain(part);
    // The sanitized cassette still replays to the sanitized text.
    const replay = replayCassette(file);
    const agent = await sb.agentWith(undefined, {
      ...replay,
      env: { ...replay.env, AGY_SIM_STATE_DIR: sb.box.stateDir },
    });
    expect((await (await agent.chat('p')).result()).text).toBe(
      'the key is <secret:MY_SERVICE_API_KEY>, keep it safe',
    );
  });
});

describe('the schema check', () => {
  const header = JSON.stringify({
    format: 'agy-sdk-cassette',
    version: 1,
    backend: 'agy',
    agy: { version: '1.3.1', args: [] },
    recordedAt: '2026-12-01T00:00:00.000Z',
    sanitized: true,
  });
  it.each([
    ['', /empty/],
    ['{"format":"other"}', /header\.format: must be "agy-sdk-cassette"/],
    [header.replace('"version":1', '"version":2'), /header\.version: this SDK reads version 1, got 2/],
    [`${header}\nnot json`, /:2: line: is not JSON/],
    [`${header}\n{"t":1,"type":"stdout"}`, /:2: line: must be a string/],
    [`${header}\n{"t":1,"type":"teleport"}`, /:2: type: must be one of spawn/],
    [`${header}\n{"t":-1,"type":"close"}`, /:2: t: must be a non-negative number/],
    [`${header}\n{"t":5,"type":"close"}\n{"t":2,"type":"close"}`, /:3: t: goes back in time/],
    [`${header}\n{"t":1,"type":"exit","code":"0","signal":null}`, /code: must be an integer or null/],
  ])('rejects %j with a clear error', (text, message) => {
    let error: unknown;
    try {
      parseCassette(text, 'bad.jsonl');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CassetteError);
    expect((error as Error).message).toMatch(message);
  });

  it('a missing file is a CassetteError naming it', () => {
    expect(() => readCassette('/nonexistent/x.jsonl')).toThrow(
      /\/nonexistent\/x\.jsonl:0: file: cannot be read/,
    );
  });
});

describe('replay', () => {
  it("re-issues hook and MCP calls to the new session's listener: the user's tools and policies run again", async () => {
    const recorded: number[] = [];
    const { file, result } = await recordOne(TOOL_TURN, 'hello', {
      tools: [adder(recorded)],
      policies: [policy.deny('run_command'), policy.allowAll()],
    });
    const replayed: number[] = [];
    const seen: string[] = [];
    const agent = await sb.agentWith(undefined, {
      ...replayCassette(file),
      env: { ...replayCassette(file).env, AGY_SIM_STATE_DIR: sb.box.stateDir },
      tools: [adder(replayed)],
      policies: [policy.deny('run_command'), policy.allowAll()],
      hooks: [
        hooks.preToolCall((call) => {
          seen.push(call.name);
          return { allow: true };
        }),
      ],
    });
    const again = await (await agent.chat('hello')).result();
    expect(replayed).toEqual([3]);
    expect(seen).toEqual(['run_command', 'add']);
    expect(again.status).toBe(result.status);
    expect(again.text).toBe(result.text);
    expect(again.usage).toEqual(result.usage);
    expect(again.toolCalls.map((c) => [c.name, c.state, c.denied])).toEqual(
      result.toolCalls.map((c) => [c.name, c.state, c.denied]),
    );
    expect(again.deniedActions.map((d) => [d.action, d.source, d.reason])).toEqual(
      result.deniedActions.map((d) => [d.action, d.source, d.reason]),
    );
  });

  it('strict: a stdin line that differs fails the turn with a typed CassetteMismatchError', async () => {
    const { file } = await recordOne({ turns: [{ actions: [{ text: 'hi' }] }] }, 'the recorded prompt');
    const replay = replayCassette(file, { mode: 'strict' });
    const agent = await sb.agentWith(undefined, {
      ...replay,
      env: { ...replay.env, AGY_SIM_STATE_DIR: sb.box.stateDir },
    });
    const result = await (await agent.chat('another prompt')).result();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(CassetteMismatchError);
    const error = result.error as CassetteMismatchError;
    expect(error.expected).toContain('the recorded prompt');
    expect(error.actual).toContain('another prompt');
  });

  it('loose: a differing stdin line is reported on stderr and the replay goes on', async () => {
    const { file } = await recordOne({ turns: [{ actions: [{ text: 'hi' }] }] }, 'the recorded prompt');
    const stderr: string[] = [];
    const replay = replayCassette(file, { mode: 'loose' });
    const agent = await sb.agentWith(undefined, {
      ...replay,
      env: { ...replay.env, AGY_SIM_STATE_DIR: sb.box.stateDir },
      onStderr: (line) => stderr.push(line),
    });
    const result = await (await agent.chat('another prompt')).result();
    expect(result.status).toBe('success');
    expect(result.text).toBe('hi');
    expect(stderr.join('\n')).toMatch(/stdin differs from the recording/);
  });

  it('timing: real time keeps the recorded gaps, compressed does not', async () => {
    const { file } = await recordOne(
      { turns: [{ actions: [{ text: 'slow', chunks: 2, delayMs: 400 }] }] },
      'p',
    );
    // Stretch the recorded gap so the difference is unmistakable on a loaded machine.
    const text = readFileSync(file, 'utf8')
      .split('\n')
      .map((l) =>
        l.includes('"type":"stdout"') && l.includes('"state\\":\\"DONE')
          ? l.replace(/"t":\d+/, (m) => `"t":${Number(m.slice(4)) + 3000}`)
          : l,
      )
      .join('\n');
    const stretched = join(sb.box.root, 'stretched.jsonl');
    writeFileSync(stretched, fixMonotonic(text));
    const run = async (timing: 'real' | 'none') => {
      const replay = replayCassette(stretched, { timing });
      const agent = await sb.agentWith(undefined, {
        ...replay,
        env: { ...replay.env, AGY_SIM_STATE_DIR: join(sb.box.root, timing) },
      });
      const start = Date.now();
      const result = await (await agent.chat('p')).result();
      await agent.close();
      return { result, ms: Date.now() - start };
    };
    const fast = await run('none');
    const real = await run('real');
    expect(fast.result.text).toBe('slow');
    expect(real.result.text).toBe('slow');
    expect(real.ms).toBeGreaterThanOrEqual(3000);
  });
});

/** Makes the offsets monotonic again after one was moved forward (every later offset moves with it). */
function fixMonotonic(text: string): string {
  let last = 0;
  return text
    .split('\n')
    .map((l) => {
      const m = /"t":(\d+)/.exec(l);
      if (!m) return l;
      const t = Math.max(Number(m[1]), last);
      last = t;
      return l.replace(/"t":\d+/, `"t":${t}`);
    })
    .join('\n');
}

describe('agy-sim --cassette', () => {
  it('answers --version from the header, and refuses a malformed cassette with exit 2 naming the problem', async () => {
    const { file } = await recordOne({ turns: [{ actions: [{ text: 'hi' }] }] }, 'p');
    const version = spawnSync(simulatorPath(), ['--cassette', file, '--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^agy version \d+\.\d+\.\d+ \(cassette\)$/m);
    const bad = join(sb.box.root, 'bad.jsonl');
    writeFileSync(bad, '{"format":"agy-sdk-cassette","version":9}\n');
    const refused = spawnSync(simulatorPath(), [`--cassette=${bad}`, '--version'], { encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/bad\.jsonl:1: header\.version: this SDK reads version 1, got 9/);
  });
});

describe('replay of an interrupted session', () => {
  it('waits for the SIGINT where it was recorded, and plays the restart as the next process start', async () => {
    const scenario: Scenario = {
      turns: [
        { actions: [{ text: 'a long answer that gets cut', chunks: 8, delayMs: 300 }] },
        { actions: [{ text: 'second turn' }] },
      ],
    };
    const run = async (extra: Parameters<typeof sb.agentWith>[1], useScenario: boolean) => {
      const agent = await sb.agentWith(useScenario ? scenario : undefined, extra);
      const first = await agent.chat('one');
      for await (const step of first.steps()) if (step.textDelta) break;
      await agent.interrupt();
      const a = await first.result();
      const b = await (await agent.chat('two')).result();
      await agent.close();
      return { a, b, file: agent.cassetteFile };
    };
    const recorded = await run({ record: { dir: join(sb.box.root, 'cassettes') } }, true);
    expect([recorded.a.status, recorded.b.status]).toEqual(['interrupted', 'success']);
    const cassette = readCassette(recorded.file!);
    expect(cassette.records.filter((r) => r.type === 'spawn').length).toBeGreaterThanOrEqual(2);
    expect(cassette.records.some((r) => r.type === 'signal' && r.signal === 'SIGINT')).toBe(true);
    const replayed = await run(replayCassette(recorded.file!), false);
    expect([replayed.a.status, replayed.b.status]).toEqual(['interrupted', 'success']);
    expect(replayed.b.text).toBe('second turn');
  });
});
