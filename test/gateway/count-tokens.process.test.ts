// countTokens (docs/reference/gateway-translation.md#counting-tokens) with the real @google/genai client:
// forwarded to Anthropic `POST /v1/messages/count_tokens` and OpenAI `POST /v1/responses/input_tokens` (answers
// in the documented shapes: `{"input_tokens":N}`, `{"object":"response.input_tokens","input_tokens":N}`), and
// a local count where the upstream has none or it fails: the real o200k_base tokenizer (gpt-tokenizer) for
// OpenAI model families, marked `x-gateway-token-count: tokenizer`, else the estimate, marked `estimate`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoogleGenAI } from '@google/genai';
import { encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/gateway/count-tokens.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import type { UpstreamKind } from '../../src/gateway/upstream/upstream.js';
import { silentLogger } from '../../src/logger.js';
import { post, projectRoot, startUpstream, type TestUpstream } from '../helpers/gateway/helpers.js';

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function start(
  kind: UpstreamKind,
  answer: (url: string) => [number, string],
  model = 'up-model',
): Promise<GoogleGenAI> {
  upstream = await startUpstream((req, res) => {
    const [status, body] = answer(req.url);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  gateway = await createGateway({
    upstream: {
      kind,
      baseUrl: kind === 'anthropic' ? upstream.url : `${upstream.url}/v1`,
      apiKey: 'sk-up-test',
    },
    modelMap: { '*': model },
    logger: silentLogger,
  });
  return new GoogleGenAI({ apiKey: gateway.token, httpOptions: { baseUrl: gateway.url } });
}

const CONTENTS = 'Count the tokens of this sentence, please.';

async function source(): Promise<string | null> {
  const r = await post(
    `${gateway?.url}/v1beta/models/gemini-2.5-flash:countTokens`,
    { contents: [{ role: 'user', parts: [{ text: CONTENTS }] }] },
    { 'x-goog-api-key': gateway?.token ?? '' },
  );
  return r.headers.get('x-gateway-token-count');
}

describe('countTokens', () => {
  it('Anthropic: forwarded to /v1/messages/count_tokens with the mapped model and the messages', async () => {
    const client = await start('anthropic', () => [200, '{"input_tokens":14}']);
    const res = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: CONTENTS });
    expect(res.totalTokens).toBe(14);
    const sent = upstream?.requests[0];
    expect(sent?.url).toBe('/v1/messages/count_tokens');
    expect(sent?.headers['x-api-key']).toBe('sk-up-test');
    expect(sent?.body).toMatchObject({ model: 'up-model', messages: [{ role: 'user' }] });
    expect(sent?.body).not.toHaveProperty('max_tokens');
    expect(sent?.body).not.toHaveProperty('stream');
    expect(await source()).toBe('upstream');
  });

  it('OpenAI Responses: forwarded to /v1/responses/input_tokens', async () => {
    const client = await start('openai-responses', () => [
      200,
      '{"object":"response.input_tokens","input_tokens":11}',
    ]);
    const res = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: CONTENTS });
    expect(res.totalTokens).toBe(11);
    expect(upstream?.requests[0]?.url).toBe('/v1/responses/input_tokens');
    expect(upstream?.requests[0]?.body).toMatchObject({ model: 'up-model', input: [{ role: 'user' }] });
    expect(upstream?.requests[0]?.body).not.toHaveProperty('stream');
  });

  it('Chat has no count endpoint: a local estimate, marked as one, nothing sent upstream', async () => {
    const client = await start('openai-chat', () => [500, '{}']);
    const res = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: CONTENTS });
    expect(res.totalTokens).toBeGreaterThan(0);
    expect(await source()).toBe('estimate');
    expect(upstream?.requests).toHaveLength(0);
  });

  it('a failing or shapeless count falls back to the estimate, marked, never an error', async () => {
    const client = await start('anthropic', (url) =>
      url.includes('count') ? [529, '{"type":"error","error":{"type":"overloaded_error"}}'] : [200, '{}'],
    );
    const res = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: CONTENTS });
    expect(res.totalTokens).toBeGreaterThan(0);
    expect(await source()).toBe('estimate');
    await gateway?.close();
    await upstream?.close();
    await start('openai-responses', () => [200, '{"object":"response.input_tokens"}']);
    expect(await source()).toBe('estimate');
  });

  it("Chat to gpt-4o: the o200k_base count, equal to gpt-tokenizer's own count of the same chat and not the estimate", async () => {
    const client = await start('openai-chat', () => [500, '{}'], 'gpt-4o');
    const res = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: CONTENTS });
    const own = encodeChat([{ role: 'user', content: CONTENTS }], 'gpt-4o').length;
    expect(res.totalTokens).toBe(own);
    const estimate = estimateTokens([undefined, [{ role: 'user', parts: [{ text: CONTENTS }] }], undefined]);
    expect(res.totalTokens).not.toBe(estimate);
    expect(await source()).toBe('tokenizer');
    expect(upstream?.requests).toHaveLength(0);
  });

  it('every turn counts, in its role; a provider prefix and the o-series are the same family', async () => {
    const client = await start('openai-chat', () => [500, '{}'], 'openai/o4-mini');
    const res = await client.models.countTokens({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: CONTENTS }] },
        { role: 'model', parts: [{ text: 'Eight, give or take.' }] },
        { role: 'user', parts: [{ text: 'Exactly?' }] },
      ],
    });
    expect(res.totalTokens).toBe(
      encodeChat(
        [
          { role: 'user', content: CONTENTS },
          { role: 'assistant', content: 'Eight, give or take.' },
          { role: 'user', content: 'Exactly?' },
        ],
        'gpt-4o',
      ).length,
    );
    expect(await source()).toBe('tokenizer');
  });

  it('Chat to a model of another family keeps the estimate, marked as one', async () => {
    const client = await start('openai-chat', () => [500, '{}'], 'llama-3.3-70b-versatile');
    const res = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: CONTENTS });
    expect(res.totalTokens).toBe(
      estimateTokens([undefined, [{ role: 'user', parts: [{ text: CONTENTS }] }], undefined]),
    );
    expect(await source()).toBe('estimate');
  });

  it('a failed Responses count on an OpenAI family falls back to the tokenizer, not the estimate', async () => {
    await start('openai-responses', () => [503, '{}'], 'gpt-5-mini');
    expect(await source()).toBe('tokenizer');
    expect(upstream?.requests.map((r) => r.url)).toContain('/v1/responses/input_tokens');
  });
});

const built = existsSync(join(projectRoot, 'dist/gateway/index.js'));

/** Runs an ES module script in a child Node from the project root; resolves with its stdout, rejects on failure. */
function runModule(script: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: projectRoot });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`))));
  });
}

describe.skipIf(!built)('the tokenizer loads lazily (needs npm run build)', () => {
  it('starting a gateway and streaming a turn load no gpt-tokenizer module; the first count does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-lazy-'));
    const log = join(dir, 'imports.txt');
    // A resolve hook (module.register) that writes down every gpt-tokenizer module the process loads.
    const hook = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.includes('gpt-tokenizer')) appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}`;
    const child = `import { register } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import http from 'node:http';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
const seen = () => (existsSync(${JSON.stringify(log)}) ? readFileSync(${JSON.stringify(log)}, 'utf8').trim().split('\\n').length : 0);
const up = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end('data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\\n\\ndata: [DONE]\\n\\n'); }); });
await new Promise((r) => up.listen(0, '127.0.0.1', r));
const { createGateway } = await import('agy-sdk/gateway');
const gw = await createGateway({ upstream: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:' + up.address().port + '/v1', apiKey: 'k' }, modelMap: { '*': 'gpt-4o' } });
const ask = (action, body) => fetch(gw.url + '/v1beta/models/gemini-2.5-flash:' + action, { method: 'POST', headers: { 'x-goog-api-key': gw.token }, body: JSON.stringify(body) });
const hi = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
await (await ask('streamGenerateContent?alt=sse', hi)).text();
const before = seen();
const count = await (await ask('countTokens', hi)).json();
console.log(JSON.stringify({ before, after: seen(), count }));
await gw.close(); up.close();`;
    try {
      const out = await runModule(child);
      const result = JSON.parse(out.trim()) as {
        before: number;
        after: number;
        count: { totalTokens: number };
      };
      expect(result.before).toBe(0);
      expect(result.after).toBeGreaterThan(0);
      expect(result.count.totalTokens).toBe(encodeChat([{ role: 'user', content: 'hi' }], 'gpt-4o').length);
      expect(readFileSync(log, 'utf8')).toContain('o200k_base');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('without the optional peer gpt-tokenizer: the marked estimate, said once at info, no error', async () => {
    // A resolve hook that makes the package missing, as in a project that did not install it.
    const hook = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('gpt-tokenizer')) {
    const error = new Error('Cannot find package gpt-tokenizer');
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
    const child = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
const lines = [];
const logger = { debug() {}, info: (m) => lines.push(['info', m]), warn: (m) => lines.push(['warn', m]), error: (m) => lines.push(['error', m]) };
const { createGateway } = await import('agy-sdk/gateway');
const gw = await createGateway({ upstream: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' }, modelMap: { '*': 'gpt-4o' }, logger });
const ask = () => fetch(gw.url + '/v1beta/models/gemini-2.5-flash:countTokens', { method: 'POST', headers: { 'x-goog-api-key': gw.token }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }) });
const first = await ask();
const second = await ask();
console.log(JSON.stringify({ status: [first.status, second.status], source: [first.headers.get('x-gateway-token-count'), second.headers.get('x-gateway-token-count')], lines: lines.filter(([, m]) => m.includes('tokenizer')) }));
await gw.close();`;
    const out = await runModule(child);
    const result = JSON.parse(out.trim()) as { status: number[]; source: string[]; lines: string[][] };
    expect(result.status).toEqual([200, 200]);
    expect(result.source).toEqual(['estimate', 'estimate']);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]?.[0]).toBe('info');
    expect(result.lines[0]?.[1]).toContain('npm install gpt-tokenizer');
  }, 60_000);
});
