// Reasoning state survives the way Gemini CLI and agy replay history
// (docs/reference/gemini-clients.md#gemini-cli-history-handling,
// docs/reference/gateway-translation.md#thought-signature-carriage): thought parts dropped, consecutive text
// merged keeping the first part's keys, `skip_thought_signature_validator` stamped on a first functionCall
// that lacks a signature. The gateway's `gw1.` signature on the first call must come back and be re-injected:
// Anthropic's signed thinking leads the assistant message; Responses' reasoning item (with the final
// `output_item.done` encrypted_content) precedes the calls.
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { unpackSignature } from '../../src/gateway/signature.js';
import { silentLogger } from '../../src/logger.js';
import {
  fixtureBodies,
  type GeminiChunkLike,
  haveUpstreamFixtures,
  post,
  SKIP_REASON,
  serveSse,
  startUpstream,
  strictFrames,
  type TestUpstream,
  upstreamEvents,
} from '../helpers/gateway/helpers.js';

type Part = NonNullable<
  NonNullable<NonNullable<GeminiChunkLike['candidates']>[number]['content']>['parts']
>[number];

/**
 * What Gemini CLI 0.61 sends back as the model turn (cli-sig-requests.json;
 * docs/reference/gemini-clients.md#gemini-cli-history-handling rules 1–3).
 */
function cliReplay(frames: unknown[]): { role: 'model'; parts: Part[] } {
  const parts: Part[] = [];
  for (const f of frames as GeminiChunkLike[]) {
    for (const p of f.candidates?.[0]?.content?.parts ?? []) {
      if (p.thought) continue;
      const last = parts.at(-1);
      if (typeof p.text === 'string' && last && typeof last.text === 'string') last.text += p.text;
      else parts.push({ ...p });
    }
  }
  const first = parts.find((p) => p.functionCall);
  if (first && !first.thoughtSignature) first.thoughtSignature = 'skip_thought_signature_validator';
  return { role: 'model', parts };
}

const sse = (events: Record<string, unknown>[]): string =>
  events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

// The Anthropic example stream of docs/reference/gateway-translation.md#anthropic-messages (thinking +
// signature_delta + tool_use).
const ANTHROPIC_TOOL_TURN = sse([
  {
    type: 'message_start',
    message: {
      id: 'msg_01',
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      content: [],
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 11000,
        output_tokens: 1,
      },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'I should read b.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCkgI-signed' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Let me ' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'check.' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_01C', name: 'read_file', input: {} },
  },
  {
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '{"file_path": "/w' },
  },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '/b"}' } },
  { type: 'content_block_stop', index: 2 },
  {
    type: 'content_block_start',
    index: 3,
    content_block: { type: 'tool_use', id: 'toolu_01D', name: 'list_directory', input: {} },
  },
  { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '' } },
  { type: 'content_block_stop', index: 3 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 57 },
  },
  { type: 'message_stop' },
]);

const TOOLS = [
  {
    functionDeclarations: [
      {
        name: 'read_file',
        parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } },
      },
      { name: 'list_directory', parametersJsonSchema: { type: 'object', properties: {} } },
    ],
  },
];

let upstream: TestUpstream | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

describe('thoughtSignature carriage across a Gemini CLI-style replay', () => {
  it('Anthropic: the signed thinking block leads the replayed assistant message, tool_result ids match', async () => {
    const bodies = [ANTHROPIC_TOOL_TURN, sse([])];
    let n = 0;
    upstream = await startUpstream((_req, res) => serveSse(res, bodies[n++] ?? ''));
    gateway = await createGateway({
      logger: silentLogger,
      upstream: { kind: 'anthropic', baseUrl: upstream.url, apiKey: 'k' },
    });
    const user = { role: 'user', parts: [{ text: 'read b' }] };
    const first = await post(
      `${gateway.url}/v1beta/models/claude-sonnet-4-5:streamGenerateContent?alt=sse`,
      {
        contents: [user],
        tools: TOOLS,
        generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } },
      },
      { 'x-goog-api-key': gateway.token },
    );
    const frames = strictFrames(first.text);
    const model = cliReplay(frames);
    const calls = model.parts.filter((p) => p.functionCall);
    expect(calls.map((p) => p.functionCall?.id)).toEqual(['toolu_01C', 'toolu_01D']);
    expect(calls[0]?.thoughtSignature).toMatch(/^gw1\./);
    const packed = unpackSignature(calls[0]?.thoughtSignature, 'anthropic');
    expect(packed?.b).toEqual([
      { type: 'thinking', thinking: 'I should read b.', signature: 'EqQBCkgI-signed' },
    ]);

    // Second step: function responses as the CLI sends them (same ids, same order).
    await post(
      `${gateway.url}/v1beta/models/claude-sonnet-4-5:streamGenerateContent?alt=sse`,
      {
        contents: [
          user,
          model,
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'toolu_01C', name: 'read_file', response: { output: 'beta' } } },
              { functionResponse: { id: 'toolu_01D', name: 'list_directory', response: { output: 'a b' } } },
            ],
          },
        ],
        tools: TOOLS,
        generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } },
      },
      { 'x-goog-api-key': gateway.token },
    );
    const sent = upstream.requests[1]?.body as {
      messages: { role: string; content: Record<string, unknown>[] }[];
      thinking?: unknown;
    };
    const assistant = sent.messages[1];
    expect(assistant?.role).toBe('assistant');
    expect(assistant?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'I should read b.',
      signature: 'EqQBCkgI-signed',
    });
    expect(assistant?.content.slice(1).map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
    const toolUseIds = assistant?.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
    const results = sent.messages[2]?.content
      .filter((b) => b.type === 'tool_result')
      .map((b) => b.tool_use_id);
    expect(results).toEqual(toolUseIds);
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('Anthropic: without a replayable signature, thinking is switched off rather than fabricated', async () => {
    upstream = await startUpstream((_req, res) => serveSse(res, ''));
    gateway = await createGateway({
      logger: silentLogger,
      upstream: { kind: 'anthropic', baseUrl: upstream.url, apiKey: 'k' },
    });
    await post(
      `${gateway.url}/v1beta/models/claude-sonnet-4-5:streamGenerateContent?alt=sse`,
      {
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          {
            role: 'model',
            parts: [
              {
                functionCall: { id: 'toolu_X', name: 'read_file', args: {} },
                thoughtSignature: 'skip_thought_signature_validator',
              },
            ],
          },
          {
            role: 'user',
            parts: [{ functionResponse: { id: 'toolu_X', name: 'read_file', response: { output: 'x' } } }],
          },
        ],
        tools: TOOLS,
        generationConfig: { thinkingConfig: { thinkingBudget: 4096 } },
      },
      { 'x-goog-api-key': gateway.token },
    );
    const sent = upstream.requests[0]?.body as {
      thinking?: unknown;
      messages: { content: { type: string }[] }[];
    };
    expect(sent.thinking).toBeUndefined();
    expect(sent.messages[1]?.content[0]?.type).toBe('tool_use');
  });

  it.skipIf(!haveUpstreamFixtures)(
    `Responses: the final encrypted_content rides the first call and is replayed before it (${SKIP_REASON})`,
    async () => {
      // fixtures/upstream/openai-responses/openai-reasoning-encrypted-content.1.chunks.txt, response #1.
      const body =
        fixtureBodies('openai-responses', 'openai-reasoning-encrypted-content.1.chunks.txt')[0] ?? '';
      const events = upstreamEvents(body) as {
        type: string;
        item?: { type: string; encrypted_content?: string };
      }[];
      const added = events.find(
        (e) => e.type === 'response.output_item.added' && e.item?.type === 'reasoning',
      );
      const done = events.find((e) => e.type === 'response.output_item.done' && e.item?.type === 'reasoning');
      expect(added?.item?.encrypted_content).not.toBe(done?.item?.encrypted_content);
      const bodies = [body, ''];
      let n = 0;
      upstream = await startUpstream((_req, res) => serveSse(res, bodies[n++] ?? ''));
      gateway = await createGateway({
        logger: silentLogger,
        upstream: { kind: 'openai-responses', baseUrl: `${upstream.url}/v1`, apiKey: 'k' },
      });
      const user = { role: 'user', parts: [{ text: 'compute' }] };
      const first = await post(
        `${gateway.url}/v1beta/models/gpt-5:streamGenerateContent?alt=sse`,
        { contents: [user] },
        { 'x-goog-api-key': gateway.token },
      );
      const model = cliReplay(strictFrames(first.text));
      const call = model.parts.find((p) => p.functionCall);
      const packed = unpackSignature(call?.thoughtSignature, 'responses');
      expect(packed?.b[0]).toMatchObject({
        type: 'reasoning',
        encrypted_content: done?.item?.encrypted_content,
      });
      await post(
        `${gateway.url}/v1beta/models/gpt-5:streamGenerateContent?alt=sse`,
        {
          contents: [
            user,
            model,
            {
              role: 'user',
              parts: [
                {
                  functionResponse: {
                    id: call?.functionCall?.id,
                    name: call?.functionCall?.name,
                    response: { output: '19' },
                  },
                },
              ],
            },
          ],
        },
        { 'x-goog-api-key': gateway.token },
      );
      const sent = upstream.requests[1]?.body as
        | { input: { type: string; encrypted_content?: string; call_id?: string }[] }
        | undefined;
      const input = sent?.input ?? [];
      expect(input.map((i) => i.type)).toEqual([
        'message',
        'reasoning',
        'function_call',
        'function_call_output',
      ]);
      expect(input[1]?.encrypted_content).toBe(done?.item?.encrypted_content);
      expect(input[3]?.call_id).toBe(input[2]?.call_id);
      expect(input[2]?.call_id).toBe(call?.functionCall?.id);
    },
  );

  it('foreign signatures (real Gemini ones, the CLI placeholder) are ignored', () => {
    expect(unpackSignature('skip_thought_signature_validator', 'anthropic')).toBeUndefined();
    expect(unpackSignature('EqsFCqgFAb4+9vvt', 'responses')).toBeUndefined();
    expect(unpackSignature('gw1.!!!', 'chat')).toBeUndefined();
  });
});
