// The gateway's HTTP surface and lifecycle (docs/reference/gateway-checklist.md#http-surface): routes on
// v1/v1beta/v1alpha, Google 404s, the three auth forms with the per-run token, keys kept on their side,
// malformed requests naming the field, model map routing and reporting, immediate headers, deltas forwarded
// as they arrive, keep-alive chunks, client disconnect aborting the upstream, clean close, and logs free of
// keys and tokens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import type { Logger } from '../../src/logger.js';
import { silentLogger } from '../../src/logger.js';
import {
  HELLO,
  post,
  startUpstream,
  strictFrames,
  summarize,
  type TestUpstream,
} from '../helpers/gateway/helpers.js';

const CHAT_DONE =
  'data: {"id":"c1","model":"up-model","choices":[{"index":0,"delta":{"content":"ok"}}]}\n\n' +
  'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' +
  'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}\n\ndata: [DONE]\n\n';

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = (message: string, ...details: unknown[]): void => {
    lines.push([message, ...details.map((d) => JSON.stringify(d))].join(' '));
  };
  return { logger: { debug: log, info: log, warn: log, error: log }, lines };
}

async function chatGateway(
  handler: (res: ServerResponse, req: IncomingMessage) => void = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(CHAT_DONE);
  },
  extra: Partial<Parameters<typeof createGateway>[0]> = {},
): Promise<Gateway> {
  upstream = await startUpstream((_r, res, raw) => handler(res, raw));
  gateway = await createGateway({
    logger: silentLogger,
    upstream: {
      kind: 'openai-chat',
      baseUrl: `${upstream.url}/v1`,
      apiKey: 'sk-upstream-secret',
      headers: { 'x-extra': 'e' },
    },
    ...extra,
  });
  return gateway;
}

describe('routes and auth', () => {
  it('serves generateContent on v1, v1beta and v1alpha, and binds 127.0.0.1', async () => {
    const gw = await chatGateway();
    expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const ver of ['v1', 'v1beta', 'v1alpha']) {
      const r = await post(`${gw.url}/${ver}/models/gemini-2.5-flash:generateContent`, HELLO, {
        'x-goog-api-key': gw.token,
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=UTF-8');
      const body = JSON.parse(r.text);
      expect(body.candidates[0].content.parts).toEqual([{ text: 'ok' }]);
      expect(body.candidates[0].finishReason).toBe('STOP');
      expect(body.usageMetadata).toEqual({
        promptTokenCount: 5,
        candidatesTokenCount: 1,
        totalTokenCount: 6,
      });
    }
  });

  it('accepts x-goog-api-key, ?key= and Bearer; refuses a wrong or missing key with 401', async () => {
    const gw = await chatGateway();
    const url = `${gw.url}/v1beta/models/m:generateContent`;
    expect((await post(url, HELLO, { 'x-goog-api-key': gw.token })).status).toBe(200);
    expect((await post(`${url}?key=${encodeURIComponent(gw.token)}`, HELLO)).status).toBe(200);
    expect((await post(url, HELLO, { authorization: `Bearer ${gw.token}` })).status).toBe(200);
    const wrong = await post(url, HELLO, { 'x-goog-api-key': `${gw.token}x` });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).error.status).toBe('UNAUTHENTICATED');
    // Of the token's length, one character off; and the token's length in non-ASCII characters.
    const last = gw.token.at(-1) === 'A' ? 'B' : 'A';
    expect((await post(url, HELLO, { 'x-goog-api-key': `${gw.token.slice(0, -1)}${last}` })).status).toBe(
      401,
    );
    expect((await post(`${url}?key=${encodeURIComponent('é'.repeat(gw.token.length))}`, HELLO)).status).toBe(
      401,
    );
    expect((await post(url, HELLO)).status).toBe(401);
    const list = await fetch(`${gw.url}/v1beta/models`);
    expect(list.status).toBe(401);
  });

  it('forwards the upstream key and extra headers upstream, never the gateway token', async () => {
    const gw = await chatGateway();
    const r = await post(`${gw.url}/v1beta/models/m:generateContent`, HELLO, { 'x-goog-api-key': gw.token });
    expect(r.text).not.toContain('sk-upstream-secret');
    const seen = upstream?.requests[0];
    expect(seen?.url).toBe('/v1/chat/completions');
    expect(seen?.headers.authorization).toBe('Bearer sk-upstream-secret');
    expect(seen?.headers['x-extra']).toBe('e');
    expect(JSON.stringify(seen)).not.toContain(gw.token);
  });

  it('answers anything else with a JSON 404 in Google shape', async () => {
    const gw = await chatGateway();
    for (const [method, path] of [
      ['GET', '/'],
      ['POST', '/v1beta/models/m:embedContent'],
      ['POST', '/v2/models/m:generateContent'],
      ['DELETE', '/v1/models'],
    ] as const) {
      const r = await fetch(`${gw.url}${path}`, { method, headers: { 'x-goog-api-key': gw.token } });
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(((await r.json()) as { error: unknown }).error).toMatchObject({
        code: 404,
        status: 'NOT_FOUND',
      });
    }
  });

  it('malformed bodies get a 400 naming the field; urlContext is refused so the CLI fetches locally (docs/reference/gemini-clients.md#built-in-google-tools)', async () => {
    const gw = await chatGateway();
    const url = `${gw.url}/v1beta/models/m:generateContent`;
    const h = { 'x-goog-api-key': gw.token };
    const bad = await post(url, '{not json', h);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error.status).toBe('INVALID_ARGUMENT');
    const field = await post(
      url,
      { contents: [{ role: 'user', parts: [{ functionCall: { args: {} } }] }] },
      h,
    );
    expect(field.status).toBe(400);
    expect(JSON.parse(field.text).error.message).toContain('contents[0].parts[0].functionCall.name');
    const noContents = await post(url, {}, h);
    expect(JSON.parse(noContents.text).error.message).toContain("'contents'");
    const urlContext = await post(url, { ...HELLO, tools: [{ urlContext: {} }] }, h);
    expect(urlContext.status).toBe(400);
    expect(JSON.parse(urlContext.text).error.message).toContain('tools[0].urlContext');
    // Chat Completions has no web search: googleSearch is refused rather than silently dropped.
    const search = await post(url, { ...HELLO, tools: [{ googleSearch: {} }] }, h);
    expect(search.status).toBe(400);
    expect(JSON.parse(search.text).error).toMatchObject({ status: 'INVALID_ARGUMENT' });
    expect(JSON.parse(search.text).error.message).toContain('googleSearch');
    expect(upstream?.requests).toHaveLength(0);
  });

  it('reads snake_case keys (system_instruction, generation_config) like camelCase ones', async () => {
    const gw = await chatGateway();
    await post(
      `${gw.url}/v1beta/models/m:generateContent`,
      {
        system_instruction: { parts: [{ text: 'be brief' }] },
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        generation_config: { max_output_tokens: 77, stop_sequences: ['END'] },
      },
      { 'x-goog-api-key': gw.token },
    );
    const body = upstream?.requests[0]?.body as {
      messages: { role: string; content: string }[];
      max_tokens: number;
      stop: string[];
    };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'be brief' });
    expect(body.max_tokens).toBe(77);
    expect(body.stop).toEqual(['END']);
  });

  it('countTokens answers locally for both body forms', async () => {
    const gw = await chatGateway();
    for (const body of [HELLO, { generateContentRequest: { model: 'models/m', ...HELLO } }]) {
      const r = await post(`${gw.url}/v1/models/m:countTokens`, body, { 'x-goog-api-key': gw.token });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text).totalTokens).toBeGreaterThan(0);
    }
    expect(upstream?.requests).toHaveLength(0);
  });
});

describe('model map', () => {
  it('routes pro / flash / flash-lite tiers by pattern and reports the map on GET /models', async () => {
    const gw = await chatGateway(undefined, {
      modelMap: { '*flash-lite*': 'small', '*flash*': 'fast', '*pro*': 'big', 'gemini-exact': 'exact-up' },
    });
    const h = { 'x-goog-api-key': gw.token };
    for (const [model, want] of [
      ['gemini-3.5-flash-lite', 'small'],
      ['gemini-3.8-flash', 'fast'],
      ['gemini-3.1-pro-preview', 'big'],
      ['gemini-exact', 'exact-up'],
      ['gemma-4-31b-it', 'gemma-4-31b-it'],
    ]) {
      await post(`${gw.url}/v1beta/models/${model}:generateContent`, HELLO, h);
      expect((upstream?.requests.at(-1)?.body as { model: string } | undefined)?.model).toBe(want);
    }
    const list = (await (await fetch(`${gw.url}/v1beta/models`, { headers: h })).json()) as {
      models: { name: string; description: string }[];
    };
    expect(list.models.map((m) => m.name)).toEqual([
      'models/gemini-exact',
      'models/small',
      'models/fast',
      'models/big',
    ]);
    expect(list.models[1]?.description).toContain('*flash-lite*');
    const one = (await (await fetch(`${gw.url}/v1beta/models/gemini-3.8-flash`, { headers: h })).json()) as {
      name: string;
      description: string;
    };
    expect(one.name).toBe('models/gemini-3.8-flash');
    expect(one.description).toContain('fast');
  });

  it("'*' pins every request, utility calls included, to one model", async () => {
    const gw = await chatGateway(undefined, { modelMap: { '*': 'pinned' } });
    for (const model of ['gemini-3.5-flash-lite', 'gemini-3.1-pro-preview', 'anything']) {
      await post(`${gw.url}/v1beta/models/${model}:generateContent`, HELLO, { 'x-goog-api-key': gw.token });
    }
    expect(upstream?.requests.map((r) => (r.body as { model: string }).model)).toEqual([
      'pinned',
      'pinned',
      'pinned',
    ]);
  });
});

describe('streaming behaviour', () => {
  it('flushes headers at once and forwards each text delta as it arrives', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let upstreamRes: ServerResponse | undefined;
    const gw = await chatGateway((res) => {
      upstreamRes = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"c","choices":[{"index":0,"delta":{"content":"first"}}]}\n\n');
      void released.then(() =>
        res.end(
          `data: {"id":"c","choices":[{"index":0,"delta":{"content":" second"},"finish_reason":"stop"}]}\n\n${'data: {"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}\n\n'}`,
        ),
      );
    });
    const res = await fetch(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.token },
      body: JSON.stringify(HELLO),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('content-encoding')).toBeNull();
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The first delta reaches us while the upstream is still holding the rest back.
    while (!text.includes('first')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('"text":"first"');
    expect(upstreamRes?.writableEnded).toBe(false);
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const got = summarize(strictFrames(text));
    expect(got.text).toBe('first second');
    expect(got.finish).toBe('STOP');
    expect(got.usage?.totalTokenCount).toBe(3);
  });

  it('sends empty-parts keep-alive chunks while the upstream is silent', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const gw = await chatGateway(
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        void released.then(() => res.end(CHAT_DONE));
      },
      { keepAliveMs: 30 },
    );
    const res = await fetch(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.token },
      body: JSON.stringify(HELLO),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"parts":[]')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const frames = strictFrames(text) as { candidates: { content: { role: string; parts: unknown[] } }[] }[];
    expect(frames[0]).toEqual({ candidates: [{ content: { role: 'model', parts: [] }, index: 0 }] });
    expect(summarize(frames).text).toBe('ok');
    expect(summarize(frames).finish).toBe('STOP');
  });

  it('a client disconnect aborts the upstream request', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => {
      upstreamClosed = r;
    });
    const gw = await chatGateway((res, req) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]}\n\n');
      req.socket.on('close', () => upstreamClosed());
    });
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.token },
      body: JSON.stringify(HELLO),
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await closed; // resolves only if the gateway tore the upstream connection down
    expect(upstream?.requests).toHaveLength(1);
  });
});

describe('URL handling', () => {
  it('keeps a query on the upstream base URL and answers streamGenerateContent without alt=sse as a JSON array', async () => {
    upstream = await startUpstream((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(CHAT_DONE);
    });
    gateway = await createGateway({
      logger: silentLogger,
      upstream: {
        kind: 'openai-chat',
        baseUrl: `${upstream.url}/openai/v1/?api-version=2025-01-01`,
        apiKey: 'k',
      },
    });
    const r = await post(`${gateway.url}/v1beta/models/m:streamGenerateContent`, HELLO, {
      'x-goog-api-key': gateway.token,
    });
    expect(upstream.requests[0]?.url).toBe('/openai/v1/chat/completions?api-version=2025-01-01');
    const body = JSON.parse(r.text) as {
      candidates: { content: { parts: unknown[] }; finishReason: string }[];
    }[];
    expect(Array.isArray(body)).toBe(true);
    expect(body[0]?.candidates[0]?.content.parts).toEqual([{ text: 'ok' }]);
  });
});

describe('upstream connections', () => {
  it('are kept alive and reused across requests', async () => {
    const ports: (number | undefined)[] = [];
    const gw = await chatGateway((res, req) => {
      ports.push(req.socket.remotePort);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(CHAT_DONE);
    });
    for (let i = 0; i < 3; i++) {
      const r = await post(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, HELLO, {
        'x-goog-api-key': gw.token,
      });
      expect(summarize(strictFrames(r.text)).finish).toBe('STOP');
    }
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(1);
  });
});

describe('headers guard and tool names', () => {
  it('a slow upstream: 200 and keep-alives go out after headersGuardMs; a late upstream error arrives in-stream', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const gw = await chatGateway(
      (res) => {
        void released.then(() => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":{"message":"late failure"}}');
        });
      },
      { headersGuardMs: 20, keepAliveMs: 20 },
    );
    const res = await fetch(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.token },
      body: JSON.stringify(HELLO),
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"parts":[]')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const got = summarize(strictFrames(text));
    expect(got.error).toMatchObject({ code: 500, status: 'INTERNAL' });
    expect(got.error?.message).toContain('late failure');
    expect(got.finish).toBeUndefined();
  });

  it('Gemini names with dots and colons go upstream sanitized and come back as the original', async () => {
    upstream = await startUpstream((req, res) => {
      const tools = (req.body as { tools: { function: { name: string } }[] }).tools;
      const served = tools[0]?.function.name ?? '';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_N', function: { name: served, arguments: '{}' } }] } }] })}\n\n` +
          'data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
      );
    });
    gateway = await createGateway({
      logger: silentLogger,
      upstream: { kind: 'openai-chat', baseUrl: `${upstream.url}/v1`, apiKey: 'k' },
    });
    const r = await post(
      `${gateway.url}/v1beta/models/m:streamGenerateContent?alt=sse`,
      {
        ...HELLO,
        tools: [
          {
            functionDeclarations: [
              { name: 'mcp.server:do_it', parameters: { type: 'OBJECT', properties: {} } },
            ],
          },
        ],
      },
      { 'x-goog-api-key': gateway.token },
    );
    const sent = upstream.requests[0]?.body as { tools: { function: { name: string } }[] } | undefined;
    const served = sent?.tools[0]?.function.name;
    expect(served).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(summarize(strictFrames(r.text)).calls).toEqual([
      { id: 'call_N', name: 'mcp.server:do_it', args: {} },
    ]);
  });
});

describe('lifecycle and hygiene', () => {
  it('after close() the gateway refuses connections', async () => {
    const gw = await chatGateway();
    await gw.close();
    await expect(fetch(`${gw.url}/v1/models`, { headers: { 'x-goog-api-key': gw.token } })).rejects.toThrow();
    gateway = undefined;
  });

  it('bad options are a ConfigError naming the field', async () => {
    await expect(
      createGateway({
        logger: silentLogger,
        upstream: { kind: 'nope' as 'anthropic', baseUrl: 'http://x', apiKey: 'k' },
      }),
    ).rejects.toThrow(ConfigError);
    await expect(
      createGateway({
        logger: silentLogger,
        upstream: { kind: 'anthropic', baseUrl: 'not a url', apiKey: 'k' },
      }),
    ).rejects.toThrow(/upstream\.baseUrl/);
    await expect(
      createGateway({
        logger: silentLogger,
        upstream: { kind: 'anthropic', baseUrl: 'http://x', apiKey: 'k' },
        modelMap: { a: '' },
      }),
    ).rejects.toThrow(/modelMap/);
    await expect(
      createGateway({
        logger: silentLogger,
        upstream: { kind: 'anthropic', baseUrl: 'http://x', apiKey: 'k' },
        port: -1,
      }),
    ).rejects.toThrow(/port/);
  });

  it('a port already in use fails the start and leaves nothing listening', async () => {
    const first = await chatGateway();
    const port = Number(new URL(first.url).port);
    await expect(
      createGateway({
        logger: silentLogger,
        upstream: { kind: 'anthropic', baseUrl: 'http://x', apiKey: 'k' },
        port,
      }),
    ).rejects.toThrow(/EADDRINUSE/);
  });

  it('logs never contain the upstream key or the gateway token', async () => {
    const { logger, lines } = recordingLogger();
    const gw = await chatGateway(
      (res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"boom"}}');
      },
      { logger },
    );
    await post(`${gw.url}/v1beta/models/m:generateContent?key=${gw.token}`, HELLO);
    await post(`${gw.url}/v1beta/models/m:generateContent?key=wrong`, HELLO);
    await fetch(`${gw.url}/nowhere?key=${gw.token}`);
    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join('\n');
    expect(all).not.toContain(gw.token);
    expect(all).not.toContain('sk-upstream-secret');
  });
});
