// The cassette sanitizer on decoded values (src/cassette/sanitize.ts): credentials in the encodings they
// take inside agy's lines, URL credentials whatever the variable is called, the gateway's keys, text split
// across streamed pieces, and `record.redact` patterns that can no longer corrupt a cassette (they apply to
// string values only, never to the JSON or to record and step types; one matching the empty string is refused,
// one matching nothing or every value is reported). Format: docs/guides/testing-your-agent.md#cassettes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { ConfigError } from '../../src/errors.js';
import { CassetteRecorder, parseCassette, Sanitizer } from '../../src/testing/cassette/index.js';
import { stdinMatches } from '../../src/testing/cassette/mismatch.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sanitize-test-'));
  dirs.push(dir);
  return dir;
}

const CONV = '4eeb7dfd-0000-4000-8000-123456789abc';

/** An agy step_update line as agy writes it (docs/reference/stream-json.md#step-updates). */
function delta(step: number, text: string, state = 'ACTIVE'): string {
  return JSON.stringify({
    event: 'step_update',
    step_update: {
      conversation_id: CONV,
      step_index: step,
      state,
      step_type: 'agent_response',
      text_delta: text,
    },
  });
}

/** A recorder fed a small agy session by hand (no process), closed; returns the file's text and warnings. */
async function recordByHand(
  redact: (string | RegExp)[],
  stdout: string[],
): Promise<{ text: string; warnings: string[] }> {
  const warnings: string[] = [];
  const recorder = new CassetteRecorder(
    { dir: tempDir(), redact },
    {},
    (e) => {
      throw e;
    },
    (w) => warnings.push(w),
  );
  recorder.spawn(['--output-format', 'stream-json']);
  recorder.stdin(
    JSON.stringify({ type: 'user', message: { content: [{ type: 'text', text: 'api_key=abc123' }] } }),
  );
  for (const line of stdout) recorder.stdout(line);
  recorder.stderr('some stderr text');
  recorder.stdinClosed();
  recorder.exit(0, null);
  await recorder.close();
  return { text: readFileSync(recorder.file, 'utf8'), warnings };
}

describe('credentials in the encodings agy writes them in', () => {
  it("a secret holding &, < or > is found in stdout lines where agy's JSON writes \\u0026, \\u003c, \\u003e", () => {
    // Go's encoder escapes <, > and & (docs/reference/stream-json.md#second-round-fields).
    const secret = 'pa&ss<wo>rd-0123456789';
    const line = delta(3, `the key is ${secret}`).replace(
      /[<>&]/g,
      (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
    );
    expect(line).toContain('pa\\u0026ss\\u003cwo\\u003erd');
    const out = new Sanitizer({ env: { SERVICE_TOKEN: secret } }).line(line);
    expect(JSON.parse(out).step_update.text_delta).toBe('the key is <secret:SERVICE_TOKEN>');
    expect(out).not.toContain('pa\\u0026ss');
    expect(JSON.parse(out).step_update.text_delta).not.toContain('pa&ss');
    // A rewritten line keeps agy's escaping style.
    expect(out).toContain('\\u003csecret:SERVICE_TOKEN\\u003e');
  });

  it('a secret inside a larger string, JSON-escaped inside JSON text or URL-encoded, is found', () => {
    const secret = 'zq"9/8 7-secret';
    const s = new Sanitizer({ env: { APP_SECRET: secret } });
    const inner = JSON.stringify({ output: JSON.stringify({ env: `x${secret}y` }) });
    expect(s.line(inner)).not.toContain('zq');
    expect(s.line(`https://h/?q=${encodeURIComponent(secret)}`)).toBe('https://h/?q=<secret:APP_SECRET>');
  });
});

describe('credentials in URLs, whatever the variable is called', () => {
  it('DATABASE_URL=postgres://user:pass@host: the password is removed from the URL and wherever it appears alone', () => {
    const s = new Sanitizer({ env: { DATABASE_URL: 'postgres://app:Sup3rS3cretPw@db.internal:5432/prod' } });
    const line = delta(
      1,
      'connecting to postgres://app:Sup3rS3cretPw@db.internal:5432/prod, password Sup3rS3cretPw',
    );
    const text = JSON.parse(s.line(line)).step_update.text_delta;
    expect(text).not.toContain('Sup3rS3cretPw');
    expect(text).toBe(
      'connecting to postgres://<credentials>@db.internal:5432/prod, password <secret:DATABASE_URL>',
    );
  });

  it('credentials in any URL of any text are removed, with secret-named query values', () => {
    const s = new Sanitizer({});
    expect(s.line('clone https://bot:ghtoken123456@git.example.com/repo.git')).toBe(
      'clone https://<credentials>@git.example.com/repo.git',
    );
    expect(s.line('GET https://api.example.com/v1?access_token=abcdef123456&page=2')).toBe(
      'GET https://api.example.com/v1?access_token=<secret>&page=2',
    );
  });
});

describe("the gateway's keys and the MCP servers' credentials", () => {
  it("the provider's upstream key and headers are secrets whatever their names", () => {
    const s = new Sanitizer({
      credentials: { 'provider-api-key': 'upstream-key-77889900', 'provider-x-org': 'org-4455667788' },
    });
    expect(s.line('sent upstream-key-77889900 for org-4455667788')).toBe(
      'sent <secret:provider-api-key> for <secret:provider-x-org>',
    );
  });

  it('MCP headers (but Accept & co), secret-named env, the token after an auth scheme, URL secrets', () => {
    const s = new Sanitizer({
      mcpServers: {
        notion: {
          command: 'notion-mcp',
          env: { NOTION_TOKEN: 'ntn_abcdef123456', LOG_LEVEL: 'verbose-logging' },
        },
        remote: {
          url: 'https://mcp.example.com/mcp?api_key=qwerty987654',
          headers: {
            Authorization: 'Token tok-112233445566',
            'X-Tenant': 'tenant-acme-001',
            Accept: 'application/json',
          },
        },
      },
    });
    expect(
      s.line(
        'ntn_abcdef123456 tok-112233445566 tenant-acme-001 qwerty987654 verbose-logging application/json',
      ),
    ).toBe(
      '<secret:NOTION_TOKEN> <secret:Authorization> <secret:X-Tenant> <secret:url> verbose-logging application/json',
    );
  });
});

describe('text streamed in pieces', () => {
  it('a secret split across consecutive text_delta updates is removed from every piece it overlaps', async () => {
    const secret = 'hunter2-very-secret-value';
    const pieces = ['the secret is hun', 'ter2-very-sec', 'ret-val', 'ue, done'];
    const recorder = new CassetteRecorder(
      { dir: tempDir() },
      { env: { MY_SERVICE_API_KEY: secret } },
      () => {},
    );
    recorder.stdout(delta(2, pieces[0]!));
    recorder.stderr('unrelated');
    for (const p of pieces.slice(1, -1)) recorder.stdout(delta(2, p));
    recorder.stdout(delta(2, pieces.at(-1)!, 'DONE'));
    await recorder.close();
    const cassette = parseCassette(readFileSync(recorder.file, 'utf8'));
    const deltas = cassette.records
      .filter((r) => r.type === 'stdout')
      .map((r) => JSON.parse(r.line).step_update.text_delta as string);
    expect(deltas.join('')).toBe('the secret is <secret:MY_SERVICE_API_KEY>, done');
    for (const d of deltas) expect(d).not.toMatch(/hun|ter2|ret-val/);
  });

  it("an ACP session's message chunks are sanitized across chunks too", async () => {
    const chunk = (text: string) => ({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 's1',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
      },
    });
    const recorder = new CassetteRecorder(
      { dir: tempDir() },
      { env: { GH_TOKEN: 'ghsecret-abcdefgh' } },
      () => {},
    );
    for (const text of ['x ghsec', 'ret-abc', 'defgh y']) recorder.acp('in', chunk(text));
    await recorder.close();
    const texts = parseCassette(readFileSync(recorder.file, 'utf8')).records.map(
      (r) => (r as unknown as { message: ReturnType<typeof chunk> }).message.params.update.content.text,
    );
    expect(texts.join('')).toBe('x <secret:GH_TOKEN> y');
  });
});

describe('record.redact cannot corrupt a cassette', () => {
  const stdout = [
    JSON.stringify({ event: 'init', conversation_id: CONV, init: { cwd: '/w', tools: ['run_command'] } }),
    delta(1, 'exit code 0, api_key=abc123 and more'),
    JSON.stringify({ event: 'result', result: { status: 'SUCCESS', response: 'exit code 0' } }),
  ];

  it('/api_key=.*/ replaces within the string value: the cassette stays readable', async () => {
    const { text } = await recordByHand([/api_key=.*/], stdout);
    const cassette = parseCassette(text);
    expect(text).not.toContain('abc123');
    const lines = cassette.records.filter((r) => r.type === 'stdout').map((r) => JSON.parse(r.line));
    expect(lines[1].step_update.text_delta).toBe('exit code 0, <redacted>');
    const stdin = cassette.records.find((r) => r.type === 'stdin');
    expect(JSON.parse(stdin!.line).message.content[0].text).toBe('<redacted>');
  });

  it("a short literal such as 'x' keeps record types, events, states and step types", async () => {
    const { text } = await recordByHand(['x', 'e'], stdout);
    const cassette = parseCassette(text);
    expect(cassette.records.map((r) => r.type)).toEqual([
      'spawn',
      'stdin',
      'stdout',
      'stdout',
      'stdout',
      'stderr',
      'close',
      'exit',
    ]);
    const lines = cassette.records.filter((r) => r.type === 'stdout').map((r) => JSON.parse(r.line));
    expect(lines.map((l) => l.event)).toEqual(['init', 'step_update', 'result']);
    expect(lines[1].step_update).toMatchObject({ state: 'ACTIVE', step_type: 'agent_response' });
    expect(lines[1].step_update.text_delta).toBe(
      '<redacted><redacted>it cod<redacted> 0, api_k<redacted>y=abc123 and mor<redacted>',
    );
    expect(lines[2].result.status).toBe('SUCCESS');
  });

  it('a pattern matching the empty string is a ConfigError naming it, at config validation and in the recorder', () => {
    const dir = tempDir();
    for (const bad of [/a*/, /^/m, /\b/, '']) {
      expect(() => new Agent({ record: { dir, redact: ['fine', bad] } })).toThrow(/record\.redact\[1\]/);
      expect(() => new CassetteRecorder({ dir, redact: [bad] }, {}, () => {})).toThrow(ConfigError);
    }
  });

  it('a pattern that matched nothing, or every value, of a recording is reported as a warning on close', async () => {
    const { warnings } = await recordByHand([/NEVER-THERE-\d+/, /api_key/, /[\s\S]+/], stdout);
    expect(warnings).toEqual([
      expect.stringMatching(/^record\.redact\[0\] \(a regular expression\) matched nothing in the recording/),
      expect.stringMatching(
        /^record\.redact\[2\] \(a regular expression\) matched in every one of the \d+ string values/,
      ),
    ]);
    // The warning names the pattern by index only: a pattern is often the secret itself.
    expect(warnings.join('\n')).not.toContain('NEVER-THERE');
  });
});

describe('placeholders stay what the replayer matches', () => {
  it('a sanitized stdin line still matches the live line it was recorded from', () => {
    const s = new Sanitizer({
      mcpServers: {
        api: { url: 'https://mcp.example.com/mcp', headers: { 'X-API-Key': 'k-1234567890abcdef' } },
      },
    });
    const live = JSON.stringify({ type: 'user', text: `use k-1234567890abcdef in ${CONV}` });
    const recorded = s.line(live);
    expect(recorded).toBe(
      JSON.stringify({
        type: 'user',
        text: 'use <secret:X-API-Key> in 00000000-0000-4000-8000-000000000001',
      }),
    );
    expect(stdinMatches(recorded, live)).toBe(true);
  });
});
