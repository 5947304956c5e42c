// Upstream stream quirks of docs/reference/gateway-translation.md#parameter-gotchas and
// docs/reference/gateway-checklist.md#end-to-end-tests through the real gateway: split argument deltas, a
// missing `index` (Gemini's OpenAI-compatible endpoint), `id: ""` continuations (DashScope), two entries for
// one index in one chunk (vLLM), a usage-only final chunk, usage on the finish chunk (DeepSeek), broken tool
// JSON → MALFORMED_FUNCTION_CALL, Anthropic `ping`, Responses parallel calls kept in order, and events split
// across TCP writes byte by byte.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../src/gateway/index.js';
import type { UpstreamKind } from '../../../src/gateway/upstream/upstream.js';
import { silentLogger } from '../../../src/logger.js';
import {
  HELLO,
  post,
  startUpstream,
  strictFrames,
  summarize,
  type TestUpstream,
} from '../../helpers/gateway/helpers.js';

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

async function run(kind: UpstreamKind, body: string, opts: { byteByByte?: boolean } = {}) {
  upstream = await startUpstream(async (_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (!opts.byteByByte) {
      res.end(body);
      return;
    }
    const bytes = Buffer.from(body, 'utf8');
    for (let i = 0; i < bytes.length; i++) {
      await new Promise<void>((r) => res.write(bytes.subarray(i, i + 1), () => r()));
    }
    res.end();
  });
  gateway = await createGateway({
    logger: silentLogger,
    upstream: { kind, baseUrl: kind === 'anthropic' ? upstream.url : `${upstream.url}/v1`, apiKey: 'k' },
  });
  const r = await post(`${gateway.url}/v1beta/models/m:streamGenerateContent?alt=sse`, HELLO, {
    'x-goog-api-key': gateway.token,
  });
  return summarize(strictFrames(r.text));
}

const chat = (chunks: unknown[]): string =>
  `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
const delta = (d: unknown, finish: string | null = null) => ({
  id: 'x',
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const USAGE = { id: 'x', choices: [], usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } };

describe('OpenAI Chat tool-call quirks', () => {
  it('parallel calls with split argument deltas come out whole, in index order, with their ids', async () => {
    const got = await run(
      'openai-chat',
      chat([
        delta({ role: 'assistant', content: null }),
        delta({
          tool_calls: [
            { index: 0, id: 'call_A', type: 'function', function: { name: 'read_file', arguments: '' } },
          ],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        delta({
          tool_calls: [
            { index: 1, id: 'call_B', type: 'function', function: { name: 'glob', arguments: '{"p":' } },
          ],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'th":"a"}' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: '"*"}' } }] }),
        delta({}, 'tool_calls'),
        USAGE,
      ]),
    );
    expect(got.calls).toEqual([
      { id: 'call_A', name: 'read_file', args: { path: 'a' } },
      { id: 'call_B', name: 'glob', args: { p: '*' } },
    ]);
    expect(got.finish).toBe('STOP');
    expect(got.usage).toEqual({ promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 });
  });

  it('tolerates a missing index and id:"" continuations', async () => {
    const got = await run(
      'openai-chat',
      chat([
        delta({
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x"' } }],
        }),
        delta({ tool_calls: [{ id: '', function: { arguments: ':1}' } }] }),
        delta({ tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'b', arguments: '{}' } }] }),
        delta({}, 'tool_calls'),
        USAGE,
      ]),
    );
    expect(got.calls).toEqual([
      { id: 'call_1', name: 'a', args: { x: 1 } },
      { id: 'call_2', name: 'b', args: {} },
    ]);
  });

  it('merges two entries for one index in a single chunk', async () => {
    const got = await run(
      'openai-chat',
      chat([
        delta({
          tool_calls: [
            { index: 0, id: 'call_Z', function: { name: 'z', arguments: '{"k":' } },
            { index: 0, function: { arguments: '"v"}' } },
          ],
        }),
        delta({}, 'tool_calls'),
        USAGE,
      ]),
    );
    expect(got.calls).toEqual([{ id: 'call_Z', name: 'z', args: { k: 'v' } }]);
  });

  it('broken tool JSON → MALFORMED_FUNCTION_CALL (retried by Gemini CLI), the call dropped', async () => {
    const got = await run(
      'openai-chat',
      chat([
        delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'z', arguments: '{"k":' } }] }),
        delta({}, 'tool_calls'),
        USAGE,
      ]),
    );
    expect(got.calls).toEqual([]);
    expect(got.finish).toBe('MALFORMED_FUNCTION_CALL');
  });

  it('usage on the finish chunk (no separate usage chunk) also completes the turn', async () => {
    const got = await run(
      'openai-chat',
      chat([delta({ content: 'hi' }), { ...delta({}, 'stop'), usage: USAGE.usage }]),
    );
    expect(got.text).toBe('hi');
    expect(got.usage?.totalTokenCount).toBe(14);
  });

  it('a stream without usage still ends with finishReason and (zero) usage', async () => {
    const got = await run('openai-chat', chat([delta({ content: 'hi' }), delta({}, 'length')]));
    expect(got.finish).toBe('MAX_TOKENS');
    expect(got.usage).toEqual({ promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 });
  });

  it('reasoning_content rides the first call as a gw1 signature; no thought parts without includeThoughts', async () => {
    const got = await run(
      'openai-chat',
      chat([
        delta({ reasoning_content: 'think' }),
        delta({ tool_calls: [{ index: 0, id: 'call_R', function: { name: 'r', arguments: '{}' } }] }),
        delta({}, 'tool_calls'),
        {
          ...USAGE,
          usage: {
            ...USAGE.usage,
            completion_tokens_details: { reasoning_tokens: 3 },
            prompt_tokens_details: { cached_tokens: 6 },
          },
        },
      ]),
    );
    // HELLO has no includeThoughts, so no thought parts are forwarded.
    expect(got.thoughts).toBe('');
    expect(got.calls[0]?.signature).toMatch(/^gw1\./);
    expect(got.usage).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 1,
      thoughtsTokenCount: 3,
      cachedContentTokenCount: 6,
      totalTokenCount: 14,
    });
  });

  it('events split across TCP writes, byte by byte', async () => {
    const got = await run(
      'openai-chat',
      chat([delta({ content: 'héllo 😀' }), delta({ content: ' world' }), delta({}, 'stop'), USAGE]),
      {
        byteByByte: true,
      },
    );
    expect(got.text).toBe('héllo 😀 world');
    expect(got.finish).toBe('STOP');
  });
});

describe('Anthropic and Responses quirks', () => {
  const ant = (events: Record<string, unknown>[]): string =>
    events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

  it('Anthropic: ping ignored, padded JSON accepted, empty tool input is {}', async () => {
    const body =
      ant([
        {
          type: 'message_start',
          message: {
            id: 'm',
            model: 'c',
            usage: {
              input_tokens: 4,
              cache_creation_input_tokens: 2,
              cache_read_input_tokens: 3,
              output_tokens: 1,
            },
          },
        },
      ]) +
      'event: ping\ndata: {"type": "ping"}\n\n' +
      ant([
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'noargs', input: {} },
        },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } },
      ]) +
      'event: message_stop\ndata: {"type":"message_stop"     }\n\n';
    const got = await run('anthropic', body, { byteByByte: true });
    expect(got.calls).toEqual([{ id: 'toolu_1', name: 'noargs', args: {} }]);
    expect(got.usage).toEqual({
      promptTokenCount: 9,
      cachedContentTokenCount: 3,
      candidatesTokenCount: 7,
      totalTokenCount: 16,
    });
  });

  it('Responses: a parallel batch keeps every call, in output order, deltas keyed by item_id', async () => {
    const events = [
      { type: 'response.created', response: { id: 'r', model: 'gpt-x' } },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'a', arguments: '' },
      },
      {
        type: 'response.output_item.added',
        output_index: 1,
        item: { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'b', arguments: '' },
      },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_2', output_index: 1, delta: '{"y":' },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"x":1}' },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_2', output_index: 1, delta: '2}' },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'a', arguments: '{"x":1}' },
      },
      {
        type: 'response.output_item.done',
        output_index: 1,
        item: { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'b', arguments: '{"y":2}' },
      },
      {
        type: 'response.completed',
        response: {
          id: 'r',
          usage: {
            input_tokens: 5,
            output_tokens: 6,
            total_tokens: 11,
            output_tokens_details: { reasoning_tokens: 2 },
          },
        },
      },
    ];
    const got = await run('openai-responses', ant(events));
    expect(got.calls).toEqual([
      { id: 'call_1', name: 'a', args: { x: 1 } },
      { id: 'call_2', name: 'b', args: { y: 2 } },
    ]);
    expect(got.usage).toEqual({
      promptTokenCount: 5,
      candidatesTokenCount: 4,
      thoughtsTokenCount: 2,
      totalTokenCount: 11,
    });
  });

  it('Responses: response.incomplete (max_output_tokens) → MAX_TOKENS', async () => {
    const got = await run(
      'openai-responses',
      ant([
        { type: 'response.output_text.delta', item_id: 'm', output_index: 0, delta: 'cut' },
        {
          type: 'response.incomplete',
          response: {
            id: 'r',
            incomplete_details: { reason: 'max_output_tokens' },
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        },
      ]),
    );
    expect(got.text).toBe('cut');
    expect(got.finish).toBe('MAX_TOKENS');
  });
});
