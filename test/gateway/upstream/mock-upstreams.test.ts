/**
 * The mock upstreams themselves: every recording in `../shared/fixtures/upstream/<protocol>/` replays byte for
 * byte (see its README.md for the formats), scripted turns carry the quirks of
 * docs/reference/gateway-checklist.md#end-to-end-tests, errors come in each vendor's body shape, and each
 * refusal rule refuses (and its valid twin passes).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANTHROPIC_TEST_KEY,
  AnthropicMock,
  anthropicFixtureReply,
} from '../../helpers/gateway/mocks/anthropic.js';
import {
  cassette,
  HAVE_UPSTREAM_FIXTURES,
  NO_UPSTREAM_FIXTURES_REASON,
  readFixture,
  UPSTREAM_FIXTURES,
} from '../../helpers/gateway/mocks/mock-server.js';
import {
  chatFixtureReply,
  OPENAI_TEST_KEY,
  OpenAiChatMock,
} from '../../helpers/gateway/mocks/openai-chat.js';
import {
  OpenAiResponsesMock,
  responsesFixtureReplies,
} from '../../helpers/gateway/mocks/openai-responses.js';
import { readSse, type SseEvent } from '../../helpers/gateway/sse.js';

// biome-ignore lint/suspicious/noExplicitAny: wire JSON is read loosely here; every field used is asserted.
type Loose = any;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body as the client's reads returned it. */
  reads: string[];
  events: SseEvent[];
}

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const reads: string[] = [];
  const decoder = new TextDecoder();
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read())
    reads.push(decoder.decode(r.value, { stream: true }));
  const text = reads.join('');
  return { status: res.status, headers: res.headers, text, reads, events: readSse(text) };
}

const OPENAI_AUTH = { authorization: `Bearer ${OPENAI_TEST_KEY}` };
const ANTHROPIC_AUTH = { 'x-api-key': ANTHROPIC_TEST_KEY, 'anthropic-version': '2023-06-01' };
const CHAT_BODY = { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] };
const RESPONSES_BODY = { model: 'gpt-5', stream: true, input: [{ role: 'user', content: 'hi' }] };
const ANTHROPIC_BODY = {
  model: 'claude-x',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
};

function json(reply: Reply): Record<string, unknown> {
  return JSON.parse(reply.text) as Record<string, unknown>;
}

function dataJson(events: SseEvent[]): Record<string, unknown>[] {
  return events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as Record<string, unknown>);
}

function files(protocol: string): string[] {
  return HAVE_UPSTREAM_FIXTURES ? readdirSync(join(UPSTREAM_FIXTURES, protocol)).sort() : [];
}

let chat: OpenAiChatMock;
let responses: OpenAiResponsesMock;
let anthropic: AnthropicMock;

beforeAll(async () => {
  [chat, responses, anthropic] = await Promise.all([
    OpenAiChatMock.start(),
    OpenAiResponsesMock.start(),
    AnthropicMock.start(),
  ]);
});
afterAll(async () => {
  await Promise.all([chat?.close(), responses?.close(), anthropic?.close()]);
});

const describeFixtures = HAVE_UPSTREAM_FIXTURES ? describe : describe.skip;

describeFixtures(
  HAVE_UPSTREAM_FIXTURES ? 'fixture replay' : `fixture replay (skipped: ${NO_UPSTREAM_FIXTURES_REASON})`,
  () => {
    // fixtures/upstream/openai-chat/*: .bin served verbatim (format R), chunk files rebuilt (format C1).
    it.each(files('openai-chat'))(
      'openai-chat/%s replays whole, every data payload JSON, ending in [DONE]',
      async (name) => {
        const expected = chatFixtureReply(name);
        chat.replay(name);
        const reply = await post(`${chat.baseUrl}/chat/completions`, CHAT_BODY, OPENAI_AUTH);
        expect(reply.status).toBe(200);
        expect(reply.headers.get('content-type')).toBe('text/event-stream');
        expect(expected.kind === 'sse' && reply.text).toBe(
          expected.kind === 'sse' && expected.frames.join(''),
        );
        expect(reply.events.at(-1)?.data).toBe('[DONE]');
        const chunks = dataJson(reply.events);
        expect(chunks.length).toBeGreaterThan(0);
        // Azure's first chunk has `object: ""` (openai-chat/azure-model-router.1.chunks.txt); every chunk has choices.
        for (const chunk of chunks) expect(Array.isArray(chunk.choices)).toBe(true);
      },
    );

    // fixtures/upstream/openai-responses/*: every response of every file (multi-response files split).
    const responseCases = files('openai-responses').flatMap((name) =>
      responsesFixtureReplies(name).map((_, n) => [name, n] as const),
    );
    it.each(responseCases)(
      'openai-responses/%s response %i replays with event: lines matching each type',
      async (name, n) => {
        responses.replay(name, n);
        const reply = await post(`${responses.baseUrl}/responses`, RESPONSES_BODY, OPENAI_AUTH);
        expect(reply.status).toBe(200);
        const events = reply.events;
        expect(events.length).toBeGreaterThan(0);
        const types = events.map((e) => (JSON.parse(e.data) as { type: string }).type);
        expect(events.map((e) => e.event)).toEqual(types);
        expect(types[0]).toBe('response.created');
        expect(types.filter((t) => t === 'response.created')).toHaveLength(1);
        expect(['response.completed', 'response.failed', 'response.incomplete']).toContain(types.at(-1));
      },
    );

    // fixtures/upstream/anthropic/*: chunk files rebuilt (C1/C2, padding kept), every cassette interaction (Y).
    const anthropicCases = files('anthropic').flatMap((name) =>
      name.endsWith('.yaml')
        ? cassette(readFixture(`anthropic/${name}`)).map((_, n) => [name, n] as const)
        : [[name, 0] as const],
    );
    it.each(anthropicCases)('anthropic/%s (%i) replays byte for byte', async (name, n) => {
      const expected = anthropicFixtureReply(name, n);
      anthropic.replay(name, n);
      const reply = await post(`${anthropic.baseUrl}/v1/messages`, ANTHROPIC_BODY, ANTHROPIC_AUTH);
      if (expected.kind !== 'sse') {
        // A non-streamed interaction of a cassette is served as its JSON body.
        expect(reply.text).toBe(expected.body);
        return;
      }
      expect(reply.status).toBe(200);
      expect(reply.text).toBe(expected.frames.join(''));
      const types = dataJson(reply.events).map((e) => e.type);
      expect(types[0]).toBe('message_start');
      expect(types.at(-1)).toBe('message_stop');
      expect(reply.events.map((e) => e.event)).toEqual(types);
    });
  },
);

describe('scripted turns and quirks', () => {
  const parallel = {
    parts: [
      { text: 'Looking.' },
      { toolCall: { id: 'call_A', name: 'list_directory', args: { dir_path: '/w' }, split: 4 } },
      { toolCall: { id: 'call_B', name: 'read_file', args: { file_path: '/w/a.txt' }, split: 3 } },
    ],
    usage: { input: 21, output: 7 },
  };

  it('chat: parallel calls, split argument deltas, a usage-only final chunk, then [DONE]', async () => {
    chat.script(parallel);
    const reply = await post(`${chat.baseUrl}/chat/completions`, CHAT_BODY, OPENAI_AUTH);
    const chunks = dataJson(reply.events) as {
      choices: { delta: Loose; finish_reason: string | null }[];
      usage?: Loose;
    }[];
    const args = new Map<number, string>();
    const ids = new Map<number, string>();
    for (const chunk of chunks) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (call.id) ids.set(call.index, call.id);
        args.set(call.index, (args.get(call.index) ?? '') + call.function.arguments);
      }
    }
    expect(Object.fromEntries(ids)).toEqual({ 0: 'call_A', 1: 'call_B' });
    expect(JSON.parse(args.get(0) as string)).toEqual({ dir_path: '/w' });
    expect(JSON.parse(args.get(1) as string)).toEqual({ file_path: '/w/a.txt' });
    const deltasOfA = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.index === 0);
    expect(deltasOfA.length).toBeGreaterThan(2);
    const last = chunks.at(-1) as { choices: unknown[]; usage: { prompt_tokens: number } };
    expect(last.choices).toEqual([]);
    expect(last.usage.prompt_tokens).toBe(21);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(reply.events.at(-1)?.data).toBe('[DONE]');
  });

  it('chat: a missing index, id "" on continuations, usage on the finish chunk', async () => {
    chat.script(parallel, { missingIndex: true, emptyId: true, usageOnFinish: true });
    const reply = await post(`${chat.baseUrl}/chat/completions`, CHAT_BODY, OPENAI_AUTH);
    const chunks = dataJson(reply.events) as {
      choices: { delta: Loose; finish_reason: string | null }[];
      usage?: Loose;
    }[];
    const continuations = chunks
      .flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
      .filter((t: Loose) => t.function.name === undefined);
    expect(continuations.length).toBeGreaterThan(0);
    for (const delta of continuations) {
      expect(delta).not.toHaveProperty('index');
      expect(delta.id).toBe('');
    }
    const last = chunks.at(-1) as (typeof chunks)[number];
    expect(last.choices[0]?.finish_reason).toBe('tool_calls');
    expect(last.usage.completion_tokens).toBe(7);
  });

  it('chat: an error data event mid-stream ends the stream without [DONE]', async () => {
    chat.script({ parts: [{ text: 'Hello there', chunks: 4 }] }, { errorAfter: 3 });
    const reply = await post(`${chat.baseUrl}/chat/completions`, CHAT_BODY, OPENAI_AUTH);
    const last = dataJson(reply.events).at(-1) as { error?: { type: string } };
    expect(last.error?.type).toBe('server_error');
    expect(reply.events.some((e) => e.data === '[DONE]')).toBe(false);
  });

  it('responses: reasoning with a final encrypted_content differing from the added one, calls by item_id, usage', async () => {
    responses.script({
      parts: [{ thinking: 'hmm', signature: 'enc-final-1' }, ...parallel.parts],
      usage: { input: 30, output: 9, reasoning: 4 },
    });
    const reply = await post(`${responses.baseUrl}/responses`, RESPONSES_BODY, OPENAI_AUTH);
    const events = dataJson(reply.events) as Loose[];
    const added = events.find((e) => e.type === 'response.output_item.added' && e.item.type === 'reasoning');
    const done = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'reasoning');
    expect(added.item.encrypted_content).not.toBe('enc-final-1');
    expect(done.item.encrypted_content).toBe('enc-final-1');
    const argsByItem = new Map<string, string>();
    for (const e of events.filter((e) => e.type === 'response.function_call_arguments.delta')) {
      argsByItem.set(e.item_id, (argsByItem.get(e.item_id) ?? '') + e.delta);
    }
    const calls = events.filter(
      (e) => e.type === 'response.output_item.done' && e.item.type === 'function_call',
    );
    expect(calls.map((c) => c.item.call_id)).toEqual(['call_A', 'call_B']);
    for (const call of calls) expect(argsByItem.get(call.item.id)).toBe(call.item.arguments);
    const completed = events.at(-1);
    expect(completed.type).toBe('response.completed');
    expect(completed.response.usage.output_tokens_details.reasoning_tokens).toBe(4);
  });

  it('responses: a mid-stream failure is an error event then response.failed', async () => {
    responses.script({ parts: [{ text: 'partial answer' }] }, { failAfter: 5 });
    const reply = await post(`${responses.baseUrl}/responses`, RESPONSES_BODY, OPENAI_AUTH);
    const types = dataJson(reply.events).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(types).not.toContain('response.completed');
  });

  it('anthropic: signed thinking, parallel tool_use with input_json_delta, pings, usage in message_delta', async () => {
    anthropic.script(
      {
        parts: [{ thinking: 'plan', signature: 'SIG-1' }, ...parallel.parts],
        usage: { input: 40, output: 11, cached: 5 },
      },
      { pings: true },
    );
    const reply = await post(`${anthropic.baseUrl}/v1/messages`, ANTHROPIC_BODY, ANTHROPIC_AUTH);
    const events = dataJson(reply.events) as Loose[];
    expect(events.filter((e) => e.type === 'ping').length).toBeGreaterThan(3);
    expect(events.find((e) => e.delta?.type === 'signature_delta').delta.signature).toBe('SIG-1');
    const starts = events.filter(
      (e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use',
    );
    expect(starts.map((s) => s.content_block.id)).toEqual(['call_A', 'call_B']);
    const json = (index: number) =>
      events
        .filter((e) => e.index === index && e.delta?.type === 'input_json_delta')
        .map((e) => e.delta.partial_json)
        .join('');
    expect(JSON.parse(json(starts[0].index))).toEqual({ dir_path: '/w' });
    const delta = events.find((e) => e.type === 'message_delta');
    expect(delta.delta.stop_reason).toBe('tool_use');
    expect(delta.usage.output_tokens).toBe(11);
    expect(anthropic.signed.has('SIG-1')).toBe(true);
  });

  it('anthropic: an error event mid-stream (overloaded_error) and no message_stop', async () => {
    anthropic.script({ parts: [{ text: 'partial' }] }, { errorAfter: 3 });
    const reply = await post(`${anthropic.baseUrl}/v1/messages`, ANTHROPIC_BODY, ANTHROPIC_AUTH);
    const last = reply.events.at(-1) as SseEvent;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data).error.type).toBe('overloaded_error');
    expect(dataJson(reply.events).map((e) => e.type)).not.toContain('message_stop');
  });

  it('events split across TCP writes arrive in pieces and still reassemble', async () => {
    anthropic.script({ parts: [{ text: 'split me please', chunks: 3 }], splitBytes: 7, delayMs: 3 });
    const reply = await post(`${anthropic.baseUrl}/v1/messages`, ANTHROPIC_BODY, ANTHROPIC_AUTH);
    // At least one read ended inside an event: the client saw a partial frame.
    expect(reply.reads.some((read) => !read.endsWith('\n\n'))).toBe(true);
    const text = (dataJson(reply.events) as Loose[])
      .filter((e) => e.delta?.type === 'text_delta')
      .map((e) => e.delta.text)
      .join('');
    expect(text).toBe('split me please');
  });

  it('a dropped connection mid-stream fails the client read', async () => {
    chat.script({ parts: [{ text: 'never finished', chunks: 4 }], dropAfter: 2 });
    await expect(post(`${chat.baseUrl}/chat/completions`, CHAT_BODY, OPENAI_AUTH)).rejects.toThrow();
  });

  it('records every request with headers and parsed body', async () => {
    const before = chat.requests.length;
    await post(
      `${chat.baseUrl}/chat/completions`,
      { ...CHAT_BODY, model: 'recorded-model' },
      { ...OPENAI_AUTH, 'x-extra': 'yes' },
    );
    const recorded = chat.requests[before];
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(recorded?.headers['x-extra']).toBe('yes');
    expect((recorded?.body as { model?: string } | undefined)?.model).toBe('recorded-model');
  });
});

describe('error replies in each vendor shape', () => {
  it.each([400, 401, 404, 429, 500, 529])('openai chat and responses: %i', async (status) => {
    for (const [mock, path, body] of [
      [chat, '/chat/completions', CHAT_BODY],
      [responses, '/responses', RESPONSES_BODY],
    ] as const) {
      mock.fail(status, { retryAfter: 2 });
      const reply = await post(`${mock.baseUrl}${path}`, body, OPENAI_AUTH);
      expect(reply.status).toBe(status);
      const error = json(reply).error as { message: string; type: string; code: string | null };
      expect(typeof error.message).toBe('string');
      expect(typeof error.type).toBe('string');
      expect(error).toHaveProperty('param');
      expect(reply.headers.get('retry-after')).toBe(status === 429 ? '2' : null);
    }
  });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [404, 'not_found_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
  ])('anthropic: %i is %s', async (status, type) => {
    anthropic.fail(status, { retryAfter: 3 });
    const reply = await post(`${anthropic.baseUrl}/v1/messages`, ANTHROPIC_BODY, ANTHROPIC_AUTH);
    expect(reply.status).toBe(status);
    const body = json(reply) as {
      type: string;
      error: { type: string; message: string };
      request_id: string;
    };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe(type);
    expect(body.request_id).toMatch(/^req_/);
    expect(reply.headers.get('retry-after')).toBe(status === 429 ? '3' : null);
  });
});

describe('refusals: what the real APIs refuse', () => {
  async function anthropicStatus(
    body: unknown,
    headers: Record<string, string> = ANTHROPIC_AUTH,
  ): Promise<Reply> {
    return post(`${anthropic.baseUrl}/v1/messages`, body, headers);
  }
  const toolTurn = (first: unknown[]) => ({
    ...ANTHROPIC_BODY,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [
      { role: 'user', content: 'list' },
      { role: 'assistant', content: [...first, { type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
    ],
  });

  it('anthropic: missing anthropic-version header', async () => {
    const reply = await anthropicStatus(ANTHROPIC_BODY, { 'x-api-key': ANTHROPIC_TEST_KEY });
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('anthropic-version');
  });

  it('anthropic: a wrong x-api-key is 401 authentication_error', async () => {
    const reply = await anthropicStatus(ANTHROPIC_BODY, { ...ANTHROPIC_AUTH, 'x-api-key': 'nope' });
    expect(reply.status).toBe(401);
    expect((json(reply).error as { type: string }).type).toBe('authentication_error');
  });

  it('anthropic: missing max_tokens', async () => {
    const { max_tokens: _, ...body } = ANTHROPIC_BODY;
    const reply = await anthropicStatus(body);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('max_tokens: Field required');
  });

  it('anthropic: a tool_result whose tool_use_id is unknown', async () => {
    const body = toolTurn([]);
    body.thinking = undefined as never;
    (body.messages[2] as { content: { tool_use_id: string }[] }).content[0]!.tool_use_id = 'toolu_other';
    const reply = await anthropicStatus(body);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('unexpected `tool_use_id`');
    // The matching id passes.
    expect((await anthropicStatus({ ...toolTurn([]), thinking: undefined })).status).toBe(200);
  });

  it('anthropic: with thinking on, a tool_use turn must lead with a thinking block this API signed', async () => {
    const noThinking = await anthropicStatus(toolTurn([{ type: 'text', text: 'ok' }]));
    expect(noThinking.status).toBe(400);
    expect(noThinking.text).toContain('Expected `thinking` or `redacted_thinking`, but found `text`');
    const forged = await anthropicStatus(
      toolTurn([{ type: 'thinking', thinking: 'x', signature: 'forged' }]),
    );
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('Invalid `signature`');
    anthropic.signed.add('SIG-REAL');
    const good = await anthropicStatus(
      toolTurn([{ type: 'thinking', thinking: 'x', signature: 'SIG-REAL' }]),
    );
    expect(good.status).toBe(200);
  });

  it('anthropic: top-level anyOf in a tool input_schema', async () => {
    const tool = (input_schema: unknown) => ({ ...ANTHROPIC_BODY, tools: [{ name: 't', input_schema }] });
    const bad = await anthropicStatus(tool({ anyOf: [{ type: 'object' }, { type: 'string' }] }));
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('does not support oneOf, allOf, or anyOf at the top level');
    expect(
      (await anthropicStatus(tool({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } })))
        .status,
    ).toBe(200);
  });

  it('openai chat: a tool message answering no prior call, and a call left unanswered', async () => {
    const messages = (toolCallId: string) => [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: toolCallId, content: 'done' },
    ];
    const stray = await post(
      `${chat.baseUrl}/chat/completions`,
      { ...CHAT_BODY, messages: messages('call_2') },
      OPENAI_AUTH,
    );
    expect(stray.status).toBe(400);
    expect((json(stray).error as { param: string }).param).toBe('messages.[2].role');
    const unanswered = await post(
      `${chat.baseUrl}/chat/completions`,
      { ...CHAT_BODY, messages: [...messages('call_1').slice(0, 2), { role: 'user', content: 'and?' }] },
      OPENAI_AUTH,
    );
    expect(unanswered.status).toBe(400);
    expect(unanswered.text).toContain('did not have response messages: call_1');
    const ok = await post(
      `${chat.baseUrl}/chat/completions`,
      { ...CHAT_BODY, messages: messages('call_1') },
      OPENAI_AUTH,
    );
    expect(ok.status).toBe(200);
  });

  it('openai chat: an array schema without items, also when nested', async () => {
    const tools = (parameters: unknown) => [{ type: 'function', function: { name: 'f', parameters } }];
    const bad = await post(
      `${chat.baseUrl}/chat/completions`,
      {
        ...CHAT_BODY,
        tools: tools({
          type: 'object',
          properties: { list: { type: 'object', properties: { xs: { type: 'array' } } } },
        }),
      },
      OPENAI_AUTH,
    );
    expect(bad.status).toBe(400);
    expect((json(bad).error as { code: string }).code).toBe('invalid_function_parameters');
    expect(bad.text).toContain('array schema missing items');
    const good = await post(
      `${chat.baseUrl}/chat/completions`,
      {
        ...CHAT_BODY,
        tools: tools({ type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } } }),
      },
      OPENAI_AUTH,
    );
    expect(good.status).toBe(200);
  });

  it('openai chat: a wrong bearer key is 401 invalid_api_key', async () => {
    const reply = await post(`${chat.baseUrl}/chat/completions`, CHAT_BODY, {
      authorization: 'Bearer wrong',
    });
    expect(reply.status).toBe(401);
    expect((json(reply).error as { code: string }).code).toBe('invalid_api_key');
  });

  it('openai responses: a function_call_output whose call_id matches no prior call', async () => {
    const input = (callId: string) => [
      { role: 'user', content: 'go' },
      { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: callId, output: 'done' },
    ];
    const bad = await post(
      `${responses.baseUrl}/responses`,
      { ...RESPONSES_BODY, input: input('call_9') },
      OPENAI_AUTH,
    );
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('No tool call found for function call output with call_id call_9');
    expect(
      (
        await post(
          `${responses.baseUrl}/responses`,
          { ...RESPONSES_BODY, input: input('call_1') },
          OPENAI_AUTH,
        )
      ).status,
    ).toBe(200);
  });

  it('openai responses: a reasoning item with a non-final encrypted_content', async () => {
    responses.script({ parts: [{ thinking: 't', signature: 'enc-ok' }, { text: 'x' }] });
    await post(`${responses.baseUrl}/responses`, RESPONSES_BODY, OPENAI_AUTH);
    const withReasoning = (enc: string) => ({
      ...RESPONSES_BODY,
      input: [
        { role: 'user', content: 'go' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: enc },
      ],
    });
    const partial = await post(
      `${responses.baseUrl}/responses`,
      withReasoning('enc-ok-partial'),
      OPENAI_AUTH,
    );
    expect(partial.status).toBe(400);
    expect(partial.text).toContain('could not be verified');
    expect((await post(`${responses.baseUrl}/responses`, withReasoning('enc-ok'), OPENAI_AUTH)).status).toBe(
      200,
    );
  });
});
