// countTokens (docs/reference/gateway-translation.md#counting-tokens) with the real @google/genai client:
// forwarded to Anthropic `POST /v1/messages/count_tokens` and OpenAI `POST /v1/responses/input_tokens` (answers
// in the documented shapes: `{"input_tokens":N}`, `{"object":"response.input_tokens","input_tokens":N}`), and
// a local estimate, marked `x-gateway-token-count: estimate`, for Chat upstreams and when the count fails.
import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import type { UpstreamKind } from '../../src/gateway/upstream/upstream.js';
import { silentLogger } from '../../src/logger.js';
import { post, startUpstream, type TestUpstream } from './helpers.js';

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function start(kind: UpstreamKind, answer: (url: string) => [number, string]): Promise<GoogleGenAI> {
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
    modelMap: { '*': 'up-model' },
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
});
