// The error matrix (docs/reference/gemini-api.md#who-retries-what,
// docs/reference/gateway-translation.md#errors-upstream-to-gemini): upstream HTTP failures become
// Google-shaped errors with the status Gemini CLI retries on exactly when it should, for each upstream kind,
// unary and streaming; mid-stream failures end the SSE body with an error event the client sees, never a
// silent STOP.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import type { UpstreamKind } from '../../src/gateway/upstream/upstream.js';
import { silentLogger } from '../../src/logger.js';
import {
  HELLO,
  post,
  startUpstream,
  strictFrames,
  summarize,
  type TestUpstream,
} from '../helpers/gateway/helpers.js';

const KINDS: UpstreamKind[] = ['openai-chat', 'openai-responses', 'anthropic'];
const base = (kind: UpstreamKind, url: string): string => (kind === 'anthropic' ? url : `${url}/v1`);

function errorBody(kind: UpstreamKind, status: number): string {
  if (kind === 'anthropic') {
    const type = status === 529 ? 'overloaded_error' : status === 429 ? 'rate_limit_error' : 'api_error';
    return JSON.stringify({ type: 'error', error: { type, message: `upstream says ${status}` } });
  }
  return JSON.stringify({ error: { message: `upstream says ${status}`, type: 'x', code: null } });
}

const MATRIX: [number, number, string][] = [
  [400, 400, 'INVALID_ARGUMENT'],
  [401, 401, 'UNAUTHENTICATED'],
  [403, 403, 'PERMISSION_DENIED'],
  [404, 404, 'NOT_FOUND'],
  [429, 429, 'RESOURCE_EXHAUSTED'],
  [500, 500, 'INTERNAL'],
  [503, 503, 'UNAVAILABLE'],
  [529, 503, 'UNAVAILABLE'],
];

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

async function setup(kind: UpstreamKind, handler: (res: ServerResponse) => void): Promise<Gateway> {
  upstream = await startUpstream((_req, res) => handler(res));
  gateway = await createGateway({
    logger: silentLogger,
    upstream: { kind, baseUrl: base(kind, upstream.url), apiKey: 'sk-up' },
  });
  return gateway;
}

for (const kind of KINDS) {
  describe(`${kind}: upstream HTTP errors`, () => {
    for (const [upstreamStatus, code, status] of MATRIX) {
      it(`${upstreamStatus} → ${code} ${status} (unary and stream)`, async () => {
        const gw = await setup(kind, (res) => {
          res.writeHead(upstreamStatus, { 'content-type': 'application/json', 'retry-after': '7' });
          res.end(errorBody(kind, upstreamStatus));
        });
        for (const path of [':generateContent', ':streamGenerateContent?alt=sse']) {
          const r = await post(`${gw.url}/v1beta/models/m${path}`, HELLO, { 'x-goog-api-key': gw.token });
          expect(r.status).toBe(code);
          expect(r.headers.get('content-type')).toMatch(/application\/json/);
          const body = JSON.parse(r.text) as {
            error: {
              code: number;
              status: string;
              message: string;
              details?: { '@type': string; retryDelay?: string }[];
            };
          };
          expect(body.error.code).toBe(code);
          expect(body.error.status).toBe(status);
          expect(body.error.message).toContain(`upstream says ${upstreamStatus}`);
          if (code === 429) {
            const retry = body.error.details?.find((d) => d['@type'].endsWith('RetryInfo'));
            expect(retry?.retryDelay).toBe('7s');
          }
        }
      });
    }

    it('an unreachable upstream → 503 UNAVAILABLE', async () => {
      const dead = await startUpstream(() => {});
      const url = dead.url;
      await dead.close();
      gateway = await createGateway({
        logger: silentLogger,
        upstream: { kind, baseUrl: base(kind, url), apiKey: 'k' },
      });
      const r = await post(`${gateway.url}/v1/models/m:generateContent`, HELLO, {
        'x-goog-api-key': gateway.token,
      });
      expect(r.status).toBe(503);
      expect(JSON.parse(r.text).error.status).toBe('UNAVAILABLE');
    });

    it('a dropped connection mid-stream ends the SSE with an error event, no finishReason', async () => {
      const firstText: Record<UpstreamKind, string> = {
        'openai-chat': 'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n',
        'openai-responses':
          'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"m","output_index":0,"delta":"Hel"}\n\n',
        anthropic:
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
      };
      const gw = await setup(kind, (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(firstText[kind]);
        setTimeout(() => res.destroy(), 20);
      });
      const r = await post(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, HELLO, {
        'x-goog-api-key': gw.token,
      });
      expect(r.status).toBe(200);
      const got = summarize(strictFrames(r.text));
      expect(got.text).toBe('Hel');
      expect(got.finish).toBeUndefined();
      expect(got.error?.status).toBe('UNAVAILABLE');
    });

    it('a clean end without a finish marker is an error, not a silent STOP', async () => {
      const gw = await setup(kind, (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          kind === 'openai-chat'
            ? 'data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n'
            : '',
        );
      });
      const r = await post(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, HELLO, {
        'x-goog-api-key': gw.token,
      });
      if (kind === 'openai-chat') {
        // Text went out first: the 200 is committed, the error follows in-stream.
        const got = summarize(strictFrames(r.text));
        expect(got.finish).toBeUndefined();
        expect(got.error?.code).toBe(503);
      } else {
        // Nothing streamed: the held status becomes the error's own (docs/reference/gateway-translation.md#errors-upstream-to-gemini).
        expect(r.status).toBe(503);
        expect((JSON.parse(r.text) as { error: { code: number } }).error.code).toBe(503);
      }
      const unary = await post(`${gw.url}/v1beta/models/m:generateContent`, HELLO, {
        'x-goog-api-key': gw.token,
      });
      expect(unary.status).toBe(503);
    });
  });
}

describe('in-stream upstream error events', () => {
  it('Anthropic `event: error` overloaded_error after content → in-stream 503 UNAVAILABLE', async () => {
    const gw = await setup('anthropic', (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
          'event: ping\ndata: {"type": "ping"}\n\n' +
          'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"partial"}}\n\n' +
          'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      );
    });
    const r = await post(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, HELLO, {
      'x-goog-api-key': gw.token,
    });
    const got = summarize(strictFrames(r.text));
    expect(got.text).toBe('partial');
    expect(got.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(got.finish).toBeUndefined();
  });

  it('OpenAI Chat `{"error":…}` chunk mid-stream → in-stream error', async () => {
    const gw = await setup('openai-chat', (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        'data: {"id":"c","choices":[{"index":0,"delta":{"content":"a"}}]}\n\n' +
          'data: {"error":{"message":"server overloaded","type":"server_error","code":"server_error"}}\n\n',
      );
    });
    const r = await post(`${gw.url}/v1beta/models/m:streamGenerateContent?alt=sse`, HELLO, {
      'x-goog-api-key': gw.token,
    });
    const got = summarize(strictFrames(r.text));
    expect(got.error?.code).toBe(500);
    expect(got.finish).toBeUndefined();
  });

  it('Responses `response.failed` after `response.created` (unary) → HTTP error status', async () => {
    const gw = await setup('openai-responses', (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        'event: response.created\ndata: {"type":"response.created","response":{"id":"r","model":"gpt-x"}}\n\n' +
          'event: response.failed\ndata: {"type":"response.failed","response":{"id":"r","error":{"code":"rate_limit_exceeded","message":"slow down"}}}\n\n',
      );
    });
    const r = await post(`${gw.url}/v1beta/models/m:generateContent`, HELLO, { 'x-goog-api-key': gw.token });
    expect(r.status).toBe(429);
    expect(JSON.parse(r.text).error.message).toContain('slow down');
  });
});

describe('key hygiene in errors', () => {
  it('an upstream 401 echoing the key reaches the client redacted', async () => {
    upstream = await startUpstream((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: 'Incorrect API key provided: sk-proj-SECRET1234. Also sk-pr***1234.',
            code: 'invalid_api_key',
          },
        }),
      );
    });
    gateway = await createGateway({
      logger: silentLogger,
      upstream: { kind: 'openai-chat', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-proj-SECRET1234' },
    });
    const r = await post(`${gateway.url}/v1beta/models/m:generateContent`, HELLO, {
      'x-goog-api-key': gateway.token,
    });
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('SECRET1234');
    expect(r.text).not.toContain('sk-pr***');
    expect(JSON.parse(r.text).error.message).toContain('[redacted]');
  });
});
