// A real @google/genai client (the devDependency, 2.32.0; it defaults to API version v1 like 3.x,
// docs/reference/gemini-clients.md#api-version-defaults) against the gateway with a minimal in-test Anthropic
// upstream: streaming with a function call (id round-trip), unary, countTokens, models.list and models.get,
// and a 429 surfacing as the SDK's ApiError.
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { silentLogger } from '../../src/logger.js';
import { startUpstream, type TestUpstream } from '../helpers/gateway/helpers.js';

const sse = (events: Record<string, unknown>[]): string =>
  events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

const TOOL_TURN = sse([
  {
    type: 'message_start',
    message: {
      id: 'msg_t',
      model: 'claude-up',
      usage: { input_tokens: 20, cache_read_input_tokens: 5, output_tokens: 1 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' weather.' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_W1', name: 'get_weather', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
  { type: 'message_stop' },
]);

const TEXT_TURN = sse([
  {
    type: 'message_start',
    message: { id: 'msg_x', model: 'claude-up', usage: { input_tokens: 3, output_tokens: 1 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello there' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
  { type: 'message_stop' },
]);

let upstream: TestUpstream;
let gateway: Gateway;
let client: GoogleGenAI;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    const body = req.body as { messages: { content: { type: string }[] }[]; max_tokens?: number };
    if (JSON.stringify(body).includes('RATE_ME')) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
      res.end('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const wantsTool =
      JSON.stringify(body).includes('weather') && !JSON.stringify(body).includes('tool_result');
    res.end(wantsTool ? TOOL_TURN : TEXT_TURN);
  });
  gateway = await createGateway({
    upstream: { kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant' },
    modelMap: { '*': 'claude-up' },
    logger: silentLogger,
  });
  client = new GoogleGenAI({ apiKey: gateway.token, httpOptions: { baseUrl: gateway.url } });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('@google/genai against the gateway', () => {
  it('streams text and a whole function call carrying the upstream id; the id round-trips', async () => {
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Get weather',
            parametersJsonSchema: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
            },
          },
        ],
      },
    ];
    const stream = await client.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'What is the weather in Paris?',
      config: { tools, systemInstruction: 'You are helpful.' },
    });
    let text = '';
    const calls: { id?: string; name?: string; args?: Record<string, unknown> }[] = [];
    let finish: string | undefined;
    let usage: { promptTokenCount?: number; cachedContentTokenCount?: number } | undefined;
    for await (const chunk of stream) {
      // Parts read directly: `chunk.text` warns on chunks that also hold a functionCall.
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) text += part.text ?? '';
      calls.push(...(chunk.functionCalls ?? []));
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
      usage = chunk.usageMetadata ?? usage;
    }
    expect(text).toBe('Checking weather.');
    expect(calls).toEqual([{ id: 'toolu_W1', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(finish).toBe('STOP');
    expect(usage?.promptTokenCount).toBe(25);
    expect(usage?.cachedContentTokenCount).toBe(5);

    await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'toolu_W1', name: 'get_weather', args: { city: 'Paris' } } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'toolu_W1', name: 'get_weather', response: { output: 'sunny' } } },
          ],
        },
      ],
      config: { tools },
    });
    const sent = upstream.requests.at(-1)?.body as {
      messages: { role: string; content: Record<string, unknown>[] }[];
      system?: unknown;
    };
    expect(sent.messages[1]?.content).toEqual([
      { type: 'tool_use', id: 'toolu_W1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(sent.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_W1', content: 'sunny' },
    ]);
  });

  it('unary generateContent', async () => {
    const res = await client.models.generateContent({ model: 'gemini-2.5-pro', contents: 'hi' });
    expect(res.text).toBe('Hello there');
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    expect(res.usageMetadata?.totalTokenCount).toBe(5);
    expect((upstream.requests.at(-1)?.body as { model: string } | undefined)?.model).toBe('claude-up');
  });

  it('countTokens', async () => {
    const res = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: 'hello world' });
    expect(res.totalTokens).toBeGreaterThan(0);
  });

  it('models.list and models.get report the map', async () => {
    const pager = await client.models.list();
    const names: string[] = [];
    for await (const m of pager) names.push(m.name ?? '');
    expect(names).toEqual(['models/claude-up']);
    const one = await client.models.get({ model: 'gemini-3.8-flash' });
    expect(one.name).toBe('models/gemini-3.8-flash');
    expect(one.description).toContain('claude-up');
  });

  it('an upstream 429 surfaces as ApiError 429 with RetryInfo', async () => {
    const error = await client.models
      .generateContent({ model: 'gemini-2.5-flash', contents: 'RATE_ME' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429 });
    expect(String((error as Error).message)).toContain('RetryInfo');
  });
});
