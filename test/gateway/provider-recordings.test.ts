// Real provider streams, recorded by vercel/ai and pydantic-ai against the live APIs (sources, commits and
// licences: test/fixtures/upstream-providers/README.md), replayed by a 127.0.0.1 upstream through the real
// gateway and read with the real @google/genai client. What each provider sends, and what must come out:
// docs/reference/gateway-translation.md#openai-chat-completions (array content, reasoning by every name),
// docs/reference/gateway-translation.md#usage (reasoning inside or beside the completion),
// docs/reference/gateway-translation.md#thought-signature-carriage (text-only thinking turns),
// docs/reference/gateway-translation.md#errors-upstream-to-gemini (in-stream errors keep their 4xx).
import { type Content, GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { unpackSignature } from '../../src/gateway/signature.js';
import type { UpstreamConfig } from '../../src/gateway/upstream/upstream.js';
import { silentLogger } from '../../src/logger.js';
import {
  type GeminiChunkLike,
  genai130Frames,
  post,
  strictFrames,
  summarize,
  type TestUpstream,
} from '../helpers/gateway/helpers.js';
import {
  cassetteBodies,
  chatSse,
  chunkEvents,
  groqErrorBeforeText,
  replayUpstream,
  responsesSse,
  type StreamedTurn,
  ssePayloads,
  streamTurn,
} from '../helpers/gateway/provider-recordings.js';

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

async function through(
  kind: UpstreamConfig['kind'],
  bodies: string[],
  model: string,
  extra: Partial<UpstreamConfig> = {},
): Promise<GoogleGenAI> {
  upstream = await replayUpstream(bodies);
  gateway = await createGateway({
    upstream: { kind, baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-test', ...extra },
    modelMap: { '*': model },
    logger: silentLogger,
  });
  return new GoogleGenAI({ apiKey: gateway.token, httpOptions: { baseUrl: gateway.url } });
}

const ASK: Content[] = [{ role: 'user', parts: [{ text: 'What is 2+2?' }] }];
const ASK_BODY = { contents: ASK };

/** Gemini's invariant: prompt + candidates + thoughts = total. */
function addsUp(turn: StreamedTurn): void {
  const u = turn.usage ?? {};
  expect((u.promptTokenCount ?? 0) + (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0)).toBe(
    u.totalTokenCount,
  );
}

/** The upstream's own usage figures from the last chunk that had them. */
function recordedUsage(events: Record<string, unknown>[]): Record<string, unknown> {
  const withUsage = events.filter((e) => e.usage && typeof e.usage === 'object');
  return (withUsage.at(-1)?.usage ?? {}) as Record<string, unknown>;
}

describe('Chat Completions providers', () => {
  it('Mistral Magistral: array content: text blocks are text, thinking blocks are thoughts (mistral/mistral-reasoning.chunks.txt)', async () => {
    const client = await through(
      'openai-chat',
      [chatSse('mistral/mistral-reasoning.chunks.txt')],
      'magistral-medium-2507',
    );
    const turn = await streamTurn(client, ASK);
    expect(turn.error).toBeUndefined();
    expect(turn.text).toBe('2 + 2 = 4');
    expect(turn.thoughts).toBe('The user is asking for 2+2. This is basic arithmetic. 2+2=4.');
    expect(turn.finishReason).toBe('STOP');
    expect(turn.usage).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 46, totalTokenCount: 56 });
    addsUp(turn);
  });

  it('xAI: reasoning_content, and reasoning tokens beside the completion: 307 + 26 + 227 = 560 (xai/xai-tool-call.chunks.txt)', async () => {
    const file = 'xai/xai-tool-call.chunks.txt';
    const client = await through('openai-chat', [chatSse(file)], 'grok-3-mini');
    const turn = await streamTurn(client, [{ role: 'user', parts: [{ text: 'Weather in San Francisco?' }] }]);
    expect(turn.error).toBeUndefined();
    expect(turn.usage).toMatchObject({
      promptTokenCount: 307,
      candidatesTokenCount: 26,
      thoughtsTokenCount: 227,
      totalTokenCount: 560,
      cachedContentTokenCount: 306,
    });
    addsUp(turn);
    const reasoning = chunkEvents(file)
      .flatMap((e) => (e.choices as { delta?: { reasoning_content?: string } }[]) ?? [])
      .map((c) => c.delta?.reasoning_content ?? '')
      .join('');
    expect(turn.thoughts).toBe(reasoning);
    const call = turn.parts.find((p) => p.functionCall);
    expect(call?.functionCall).toMatchObject({ id: 'call_79382389', name: 'weather' });
    const packed = unpackSignature(call?.thoughtSignature, 'chat');
    expect(packed?.p === 'chat' ? packed.b[0]?.reasoning_content : undefined).toBe(reasoning);
  });

  it('xAI native endpoint: the same rule holds: 291 + 26 + 196 = 513 (xai-native/xai-tool-call.chunks.txt)', async () => {
    const client = await through(
      'openai-chat',
      [chatSse('xai-native/xai-tool-call.chunks.txt')],
      'grok-3-mini',
    );
    const turn = await streamTurn(client, ASK);
    expect(turn.usage).toMatchObject({
      promptTokenCount: 291,
      candidatesTokenCount: 26,
      thoughtsTokenCount: 196,
    });
    expect(turn.usage?.totalTokenCount).toBe(513);
    addsUp(turn);
  });

  it('Groq: `reasoning`, counted inside the completion: 17 + (1107 − 963) + 963 = 1124 (groq/groq-reasoning.chunks.txt)', async () => {
    const file = 'groq/groq-reasoning.chunks.txt';
    const client = await through('openai-chat', [chatSse(file)], 'qwen/qwen3-32b');
    const turn = await streamTurn(client, ASK);
    expect(turn.error).toBeUndefined();
    const choices = chunkEvents(file).flatMap(
      (e) => (e.choices as { delta?: { reasoning?: string; content?: string } }[]) ?? [],
    );
    expect(turn.thoughts).toBe(choices.map((c) => c.delta?.reasoning ?? '').join(''));
    expect(turn.text).toBe(choices.map((c) => c.delta?.content ?? '').join(''));
    expect(turn.thoughts.length).toBeGreaterThan(100);
    expect(turn.usage).toMatchObject({
      promptTokenCount: 17,
      candidatesTokenCount: 144,
      thoughtsTokenCount: 963,
      totalTokenCount: 1124,
    });
    addsUp(turn);
  });

  it('DeepSeek: reasoning_content inside the completion: 18 + 14 + 205 = 237 (deepseek/deepseek-reasoning.chunks.txt)', async () => {
    const client = await through(
      'openai-chat',
      [chatSse('deepseek/deepseek-reasoning.chunks.txt')],
      'deepseek-reasoner',
    );
    const turn = await streamTurn(client, ASK);
    expect(turn.thoughts.length).toBeGreaterThan(0);
    expect(turn.text.length).toBeGreaterThan(0);
    expect(turn.usage).toMatchObject({
      promptTokenCount: 18,
      candidatesTokenCount: 14,
      thoughtsTokenCount: 205,
    });
    addsUp(turn);
  });

  it('every recorded Chat stream with a total: prompt + candidates + thoughts = the upstream total', async () => {
    const files = [
      'mistral/mistral-reasoning.chunks.txt',
      'xai/xai-tool-call.chunks.txt',
      'xai-native/xai-tool-call.chunks.txt',
      'groq/groq-reasoning.chunks.txt',
      'deepseek/deepseek-reasoning.chunks.txt',
    ];
    for (const file of files) {
      const client = await through('openai-chat', [chatSse(file)], 'm');
      const turn = await streamTurn(client, ASK);
      expect(turn.usage?.totalTokenCount, file).toBe(recordedUsage(chunkEvents(file)).total_tokens);
      addsUp(turn);
      await gateway?.close();
      await upstream?.close();
      gateway = undefined;
      upstream = undefined;
    }
    const body = cassetteBodies('openrouter/test_openrouter_streaming_reasoning.yaml')[0] ?? '';
    const client = await through('openai-chat', [body], 'anthropic/claude-sonnet-4.5');
    const turn = await streamTurn(client, ASK);
    expect(turn.usage?.totalTokenCount).toBe(recordedUsage(ssePayloads(body)).total_tokens);
    addsUp(turn);
  });

  it('OpenRouter reasoning_details: thoughts once (not doubled by `reasoning`), the upstream signature on the text-only turn, replayed as reasoning_details (openrouter/test_openrouter_streaming_reasoning.yaml)', async () => {
    const body = cassetteBodies('openrouter/test_openrouter_streaming_reasoning.yaml')[0] ?? '';
    const signed = ssePayloads(body)
      .flatMap((e) => (e.choices as { delta?: { reasoning_details?: { signature?: string }[] } }[]) ?? [])
      .flatMap((c) => c.delta?.reasoning_details ?? [])
      .find((d) => d.signature)?.signature;
    expect(signed).toMatch(/^Et0B/);
    const client = await through('openai-chat', [body, body], 'anthropic/claude-sonnet-4.5');
    const turn = await streamTurn(client, ASK);
    expect(turn.error).toBeUndefined();
    expect(turn.thoughts).toBe('This is a simple arithmetic question. 2+2 equals 4.');
    expect(turn.text).toBe('2 + 2 = 4');
    expect(turn.usage).toMatchObject({
      promptTokenCount: 43,
      candidatesTokenCount: 23,
      thoughtsTokenCount: 13,
    });
    addsUp(turn);
    const firstText = turn.parts.find((p) => !p.thought && typeof p.text === 'string');
    const packed = unpackSignature(firstText?.thoughtSignature, 'chat');
    expect(packed?.p).toBe('chat');
    const details = packed?.p === 'chat' ? packed.b[0]?.reasoning_details : undefined;
    expect(details).toEqual([
      {
        type: 'reasoning.text',
        text: 'This is a simple arithmetic question. 2+2 equals 4.',
        signature: signed,
        format: 'anthropic-claude-v1',
        index: 0,
      },
    ]);
    // Next turn: the history as Gemini CLI replays it (thought parts dropped, signature on the first text).
    await streamTurn(client, [
      ...ASK,
      { role: 'model', parts: [{ text: turn.text, thoughtSignature: firstText?.thoughtSignature ?? '' }] },
      { role: 'user', parts: [{ text: 'And 3+3?' }] },
    ]);
    const sent = upstream?.requests.at(-1)?.body as { messages: Record<string, unknown>[] };
    const assistant = sent.messages.find((m) => m.role === 'assistant');
    expect(assistant?.reasoning_details).toEqual(details);
    expect(assistant?.content).toBe('2 + 2 = 4');
  });
});

describe('in-stream errors keep the status the provider meant', () => {
  it('Groq `event: error` tool_use_failed (status_code 400) after streamed text: a 400, the text once (groq/test_tool_use_failed_error_streaming_with_text.yaml)', async () => {
    const body = cassetteBodies('groq/test_tool_use_failed_error_streaming_with_text.yaml')[0] ?? '';
    expect(body).toContain('"status_code":400');
    const client = await through('openai-chat', [body], 'openai/gpt-oss-120b');
    const turn = await streamTurn(client, ASK, {});
    expect(turn.text).toBe('maybe');
    expect(turn.error?.status).toBe(400);
    expect(turn.error?.message).toContain('tool_use_failed');
    expect(upstream?.requests).toHaveLength(1);
  });

  it('after streamed text the error frame is the last one, retryable or not: no closing finish after it (groq/test_tool_use_failed_error_streaming_with_text.yaml)', async () => {
    const body = cassetteBodies('groq/test_tool_use_failed_error_streaming_with_text.yaml')[0] ?? '';
    await through('openai-chat', [body, body, body.replace('"status_code":400', '"status_code":503')], 'm');
    const url = `${gateway?.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`;
    const auth = { 'x-goog-api-key': gateway?.token ?? '' };
    const frames = strictFrames((await post(url, ASK_BODY, auth)).text) as GeminiChunkLike[];
    expect(frames.at(-1)?.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    // genai 1.30, as bundled in Gemini CLI: the text, then the error event (it yields it as an empty chunk), no finish.
    expect(summarize(genai130Frames((await post(url, ASK_BODY, auth)).text))).toMatchObject({
      text: 'maybe',
      finish: undefined,
    });
    const retryable = strictFrames((await post(url, ASK_BODY, auth)).text) as GeminiChunkLike[];
    expect(retryable.at(-1)?.error).toMatchObject({ code: 503 });
  });

  it('Groq tool_use_failed before any text: the HTTP status is the 400 itself, not a 200 and an error event (groq/test_tool_use_failed_error_streaming_with_text.yaml)', async () => {
    const body = groqErrorBeforeText();
    expect(body).toContain('"content":""');
    expect(body).not.toContain('"reasoning"');
    const client = await through('openai-chat', [body], 'openai/gpt-oss-120b');
    const turn = await streamTurn(client, ASK);
    expect(turn.text).toBe('');
    expect(turn.error?.status).toBe(400);
    expect(turn.error?.message).toContain('tool_use_failed');
    expect(upstream?.requests).toHaveLength(1);
    // On the wire: the status line says 400, the body is Google's error JSON, no SSE at all.
    const res = await post(
      `${gateway?.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`,
      ASK_BODY,
      {
        'x-goog-api-key': gateway?.token ?? '',
      },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });

  it('OpenAI Responses insufficient_quota before any content: an HTTP 429, not a 200 and an error event (openai/openai-error.1.chunks.txt)', async () => {
    await through('openai-responses', responsesSse('openai/openai-error.1.chunks.txt'), 'gpt-5-nano');
    const res = await post(
      `${gateway?.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`,
      ASK_BODY,
      {
        'x-goog-api-key': gateway?.token ?? '',
      },
    );
    expect(res.status).toBe(429);
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  });

  it('with headersHoldMs: 0 the same error arrives in-stream after a 200, as before the hold (groq/test_tool_use_failed_error_streaming_with_text.yaml)', async () => {
    upstream = await replayUpstream([groqErrorBeforeText()]);
    gateway = await createGateway({
      upstream: { kind: 'openai-chat', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-test' },
      modelMap: { '*': 'openai/gpt-oss-120b' },
      logger: silentLogger,
      headersHoldMs: 0,
    });
    const res = await post(
      `${gateway.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`,
      ASK_BODY,
      {
        'x-goog-api-key': gateway.token,
      },
    );
    expect(res.status).toBe(200);
    expect(strictFrames(res.text).at(-1)).toMatchObject({ error: { code: 400 } });
  });

  it('OpenRouter numeric error.code 400 on a chunk after finish_reason "length": a 400, not a 500 (openrouter/test_openrouter_stream_error.yaml)', async () => {
    const body = cassetteBodies('openrouter/test_openrouter_stream_error.yaml')[0] ?? '';
    const client = await through('openai-chat', [body], 'minimax/minimax-m2:free');
    const turn = await streamTurn(client, ASK);
    expect(turn.thoughts).toBe('We need to respond to a greeting. The user');
    expect(turn.error?.status).toBe(400);
    expect(turn.error?.message).toContain('Token limit reached');
  });

  it('OpenAI Responses `error` insufficient_quota: a 429 with a daily QuotaFailure, so clients stop (openai/openai-error.1.chunks.txt)', async () => {
    const client = await through(
      'openai-responses',
      responsesSse('openai/openai-error.1.chunks.txt'),
      'gpt-5-nano',
    );
    const turn = await streamTurn(client, ASK);
    expect(turn.error?.status).toBe(429);
    expect(turn.error?.message).toContain('UpstreamCreditPerDay');
  });
});

describe('Responses: reasoning replay by presence, not by model name', () => {
  it('Azure deployment name behind a model map: include is sent, the final encrypted_content rides the call and is replayed before it (azure/azure-reasoning-encrypted-content.1.chunks.txt)', async () => {
    const bodies = responsesSse('azure/azure-reasoning-encrypted-content.1.chunks.txt');
    const done = chunkEvents('azure/azure-reasoning-encrypted-content.1.chunks.txt').find(
      (e) => e.type === 'response.output_item.done' && (e.item as { type: string }).type === 'reasoning',
    )?.item as { encrypted_content: string };
    const client = await through('openai-responses', bodies, 'my-reasoning-deployment');
    const turn = await streamTurn(client, [{ role: 'user', parts: [{ text: 'Compute 12+7' }] }]);
    expect(turn.error).toBeUndefined();
    const first = upstream?.requests[0]?.body as Record<string, unknown>;
    expect(first.include).toEqual(['reasoning.encrypted_content']);
    expect(first.store).toBe(false);
    const call = turn.parts.find((p) => p.functionCall);
    expect(call?.functionCall?.args).toEqual({ a: 12, b: 7, op: 'add' });
    const packed = unpackSignature(call?.thoughtSignature, 'responses');
    expect(packed?.p === 'responses' ? packed.b[0]?.encrypted_content : undefined).toBe(
      done.encrypted_content,
    );
    await streamTurn(client, [
      { role: 'user', parts: [{ text: 'Compute 12+7' }] },
      { role: 'model', parts: [call ?? {}] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: call?.functionCall?.id ?? '',
              name: call?.functionCall?.name ?? '',
              response: { result: 19 },
            },
          },
        ],
      },
    ]);
    const second = upstream?.requests[1]?.body as { input: Record<string, unknown>[] };
    const kinds = second.input.map((i) => i.type ?? i.role);
    expect(kinds.indexOf('reasoning')).toBeGreaterThanOrEqual(0);
    expect(kinds.indexOf('reasoning')).toBeLessThan(kinds.indexOf('function_call'));
    expect(second.input.find((i) => i.type === 'reasoning')?.encrypted_content).toBe(done.encrypted_content);
  });

  it('every recorded Responses stream: summary deltas are thoughts, and usage adds up to the upstream total', async () => {
    for (const file of [
      'azure/azure-reasoning-encrypted-content.1.chunks.txt',
      'openai/openai-reasoning-encrypted-content.1.chunks.txt',
      'lmstudio/lmstudio-tool-call.1.chunks.txt',
    ]) {
      const events = chunkEvents(file);
      const firstEnd = events.findIndex((e) => e.type === 'response.completed');
      const first = events.slice(0, firstEnd + 1);
      const summary = first
        .filter(
          (e) =>
            e.type === 'response.reasoning_summary_text.delta' || e.type === 'response.reasoning_text.delta',
        )
        .map((e) => e.delta)
        .join('');
      const total = (first[firstEnd]?.response as { usage?: { total_tokens?: number } } | undefined)?.usage
        ?.total_tokens;
      const client = await through('openai-responses', responsesSse(file), 'm');
      const turn = await streamTurn(client, ASK);
      expect(turn.error, file).toBeUndefined();
      expect(turn.thoughts, file).toBe(summary);
      expect(turn.usage?.totalTokenCount, file).toBe(total);
      addsUp(turn);
      await gateway?.close();
      await upstream?.close();
      gateway = undefined;
      upstream = undefined;
    }
  });

  it('include is not sent for a model known to lack reasoning, nor when the upstream turns it off', async () => {
    const bodies = responsesSse('azure/azure-reasoning-encrypted-content.1.chunks.txt');
    let client = await through('openai-responses', bodies, 'gpt-4o-mini');
    await streamTurn(client, ASK, {});
    expect(upstream?.requests[0]?.body).toMatchObject({ model: 'gpt-4o-mini', store: false });
    expect(upstream?.requests[0]?.body).not.toHaveProperty('include');
    await gateway?.close();
    await upstream?.close();
    client = await through('openai-responses', bodies, 'my-reasoning-deployment', {
      encryptedReasoning: false,
    });
    await streamTurn(client, ASK, {});
    expect(upstream?.requests[0]?.body).toMatchObject({ model: 'my-reasoning-deployment', store: false });
    expect(upstream?.requests[0]?.body).not.toHaveProperty('include');
  });

  it('LM Studio reasoning_text deltas are thoughts (lmstudio/lmstudio-tool-call.1.chunks.txt)', async () => {
    const file = 'lmstudio/lmstudio-tool-call.1.chunks.txt';
    const client = await through('openai-responses', responsesSse(file), 'qwen3');
    const turn = await streamTurn(client, ASK);
    const expected = chunkEvents(file)
      .filter((e) => e.type === 'response.reasoning_text.delta')
      .map((e) => e.delta)
      .join('');
    expect(expected.length).toBeGreaterThan(0);
    expect(turn.thoughts).toBe(expected);
    expect(turn.parts.some((p) => p.functionCall)).toBe(true);
  });
});

describe('Anthropic thinking on text-only turns', () => {
  it('signed thinking rides the first text part and leads the replayed assistant message (anthropic/test_anthropic_model_thinking_part_stream.yaml)', async () => {
    const body = cassetteBodies('anthropic/test_anthropic_model_thinking_part_stream.yaml')[0] ?? '';
    const events = ssePayloads(body);
    const signature = events
      .map((e) => (e.delta as { signature?: string } | undefined)?.signature ?? '')
      .join('');
    expect(signature.length).toBeGreaterThan(0);
    upstream = await replayUpstream([body, body]);
    gateway = await createGateway({
      upstream: { kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant-test' },
      modelMap: { '*': 'claude-sonnet-4-5' },
      logger: silentLogger,
    });
    const client = new GoogleGenAI({ apiKey: gateway.token, httpOptions: { baseUrl: gateway.url } });
    const turn = await streamTurn(client, ASK, {
      thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
    });
    expect(turn.error).toBeUndefined();
    expect(turn.thoughts.length).toBeGreaterThan(0);
    const firstText = turn.parts.find((p) => !p.thought && typeof p.text === 'string');
    const packed = unpackSignature(firstText?.thoughtSignature, 'anthropic');
    expect(packed?.p === 'anthropic' ? packed.b : []).toEqual([
      { type: 'thinking', thinking: turn.thoughts, signature },
    ]);
    expect(turn.usage).toMatchObject({ promptTokenCount: 43, totalTokenCount: 43 + 282 });
    await streamTurn(client, [
      ...ASK,
      { role: 'model', parts: [{ text: turn.text, thoughtSignature: firstText?.thoughtSignature ?? '' }] },
      { role: 'user', parts: [{ text: 'thanks' }] },
    ]);
    const sent = upstream.requests[1]?.body as { messages: { role: string; content: { type: string }[] }[] };
    const assistant = sent.messages.find((m) => m.role === 'assistant');
    expect(assistant?.content[0]).toEqual({ type: 'thinking', thinking: turn.thoughts, signature });
  });

  it('redacted_thinking travels the same way (anthropic/test_anthropic_model_thinking_part_redacted_stream.yaml)', async () => {
    const body = cassetteBodies('anthropic/test_anthropic_model_thinking_part_redacted_stream.yaml')[0] ?? '';
    const redacted = ssePayloads(body)
      .map((e) => e.content_block as { type?: string; data?: string } | undefined)
      .filter((b) => b?.type === 'redacted_thinking')
      .map((b) => ({ type: 'redacted_thinking', data: b?.data }));
    expect(redacted.length).toBeGreaterThan(0);
    upstream = await replayUpstream([body]);
    gateway = await createGateway({
      upstream: { kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant-test' },
      modelMap: { '*': 'claude-3-7-sonnet-latest' },
      logger: silentLogger,
    });
    const client = new GoogleGenAI({ apiKey: gateway.token, httpOptions: { baseUrl: gateway.url } });
    const turn = await streamTurn(client, ASK);
    const firstText = turn.parts.find((p) => !p.thought && typeof p.text === 'string');
    const packed = unpackSignature(firstText?.thoughtSignature, 'anthropic');
    expect(packed?.p === 'anthropic' ? packed.b : []).toEqual(redacted);
    addsUp(turn);
  });
});
