// An upstream error inside a 200 stream is the last thing the client sees: the in-stream error event, then the
// end of the body; no finish reason anywhere and no event after it, on every upstream kind
// (docs/reference/gateway-translation.md#errors-upstream-to-gemini). Each case streams text through the gateway
// from an upstream on 127.0.0.1 and then fails; a real @google/genai client must get the text and then an
// ApiError with the status the provider meant, and the raw SSE (as read strictly, and by the splitter of
// @google/genai 1.30 inside Gemini CLI) must end on the error frame. The gateway used to follow a
// non-retryable error after streamed text with a closing `finishReason: OTHER` chunk: a clean finish.
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import type { UpstreamKind } from '../../src/gateway/upstream/upstream.js';
import { silentLogger } from '../../src/logger.js';
import {
  type GeminiChunkLike,
  genai130Frames,
  post,
  serveSse,
  startUpstream,
  strictFrames,
  type TestUpstream,
} from '../helpers/gateway/helpers.js';
import { cassetteBodies } from '../helpers/gateway/provider-recordings.js';

/** `event: <type>` + `data:` frames, as Anthropic and OpenAI Responses write them. */
const typed = (events: Record<string, unknown>[]): string =>
  events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

/** Anthropic Messages: text, then an `error` event (docs.anthropic.com/en/api/messages-streaming#error-events). */
function anthropicError(type: string, message: string): string {
  return typed([
    {
      type: 'message_start',
      message: { id: 'msg_e', model: 'claude-up', usage: { input_tokens: 3, output_tokens: 1 } },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half an ' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'answer' } },
    { type: 'error', error: { type, message } },
  ]);
}

/** OpenAI Responses: text deltas, then `event` (an `error` event or `response.failed`). */
function responsesError(last: Record<string, unknown>): string {
  const response = { id: 'resp_e', object: 'response', model: 'gpt-up', status: 'in_progress', output: [] };
  return typed([
    { type: 'response.created', sequence_number: 0, response },
    {
      type: 'response.output_item.added',
      sequence_number: 1,
      output_index: 0,
      item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
    },
    {
      type: 'response.output_text.delta',
      sequence_number: 2,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'Half an ',
    },
    {
      type: 'response.output_text.delta',
      sequence_number: 3,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'answer',
    },
    { sequence_number: 4, ...last },
  ]);
}

/** Groq, recorded: reasoning, the text "maybe", then `event: error` tool_use_failed with `status_code: 400`. */
const GROQ = 'groq/test_tool_use_failed_error_streaming_with_text.yaml';

interface Case {
  name: string;
  kind: UpstreamKind;
  body: () => string;
  text: string;
  status: number;
  message: RegExp;
}

const CASES: Case[] = [
  {
    name: `OpenAI-compatible (Groq, recorded: ${GROQ}): tool_use_failed, status_code 400`,
    kind: 'openai-chat',
    body: () => cassetteBodies(GROQ)[0] ?? '',
    text: 'maybe',
    status: 400,
    message: /tool_use_failed|Tool choice is required/,
  },
  {
    name: 'OpenAI-compatible: an error on a chunk after text (OpenRouter error.code 400)',
    kind: 'openai-chat',
    body: () =>
      [
        { id: 'c1', model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'Half an ' } }] },
        { id: 'c1', model: 'm', choices: [{ index: 0, delta: { content: 'answer' } }] },
        { id: 'c1', model: 'm', error: { code: 400, message: 'Token limit reached' }, choices: [] },
      ]
        .map((c) => `data: ${JSON.stringify(c)}\n\n`)
        .join(''),
    text: 'Half an answer',
    status: 400,
    message: /Token limit reached/,
  },
  {
    name: 'Anthropic: invalid_request_error after text',
    kind: 'anthropic',
    body: () => anthropicError('invalid_request_error', 'prompt is too long'),
    text: 'Half an answer',
    status: 400,
    message: /prompt is too long/,
  },
  {
    name: 'Anthropic: overloaded_error after text (retryable)',
    kind: 'anthropic',
    body: () => anthropicError('overloaded_error', 'Overloaded'),
    text: 'Half an answer',
    status: 503,
    message: /Overloaded/,
  },
  {
    name: 'OpenAI Responses: an error event after text',
    kind: 'openai-responses',
    body: () =>
      responsesError({ type: 'error', code: 'context_length_exceeded', message: 'too long', param: null }),
    text: 'Half an answer',
    status: 400,
    message: /too long/,
  },
  {
    name: 'OpenAI Responses: response.failed after text',
    kind: 'openai-responses',
    body: () =>
      responsesError({
        type: 'response.failed',
        response: {
          id: 'resp_e',
          status: 'failed',
          error: { code: 'invalid_prompt', message: 'refused prompt' },
        },
      }),
    text: 'Half an answer',
    status: 400,
    message: /refused prompt/,
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

async function through(c: Case): Promise<Gateway> {
  const body = c.body();
  upstream = await startUpstream((_req, res) => serveSse(res, body));
  const baseUrl = c.kind === 'anthropic' ? upstream.url : `${upstream.url}/v1`;
  gateway = await createGateway({
    upstream: { kind: c.kind, baseUrl, apiKey: 'sk-upstream-test' },
    modelMap: { '*': 'up-model' },
    logger: silentLogger,
  });
  return gateway;
}

const ASK = { contents: [{ role: 'user', parts: [{ text: 'answer in one word' }] }] };

describe('an upstream error inside a stream is the last thing the client sees', () => {
  it.each(CASES)('$name', async (c) => {
    const gw = await through(c);
    // A real client: the streamed text, then the error with the provider's status, and no finish before it.
    const client = new GoogleGenAI({ apiKey: gw.token, httpOptions: { baseUrl: gw.url } });
    const stream = await client.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: ASK.contents,
    });
    let text = '';
    const finishes: string[] = [];
    const thrown = await (async () => {
      try {
        for await (const chunk of stream) {
          for (const part of chunk.candidates?.[0]?.content?.parts ?? [])
            if (!part.thought) text += part.text ?? '';
          const finish = chunk.candidates?.[0]?.finishReason;
          if (finish) finishes.push(finish);
        }
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toBe(c.status);
    expect((thrown as ApiError).message).toMatch(c.message);
    expect(text).toBe(c.text);
    expect(finishes).toEqual([]);

    // On the wire: frames, then the error frame last; no finish reason in any frame.
    const url = `${gw.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;
    const res = await post(url, ASK, { 'x-goog-api-key': gw.token });
    expect(res.status).toBe(200);
    for (const frames of [strictFrames(res.text), genai130Frames(res.text)] as GeminiChunkLike[][]) {
      expect(frames.at(-1)?.error).toMatchObject({ code: c.status });
      expect(frames.filter((f) => f.error)).toHaveLength(1);
      expect(
        frames.flatMap((f) => f.candidates?.map((cand) => cand.finishReason) ?? []).filter(Boolean),
      ).toEqual([]);
    }
  });
});
