/**
 * A mock OpenAI Chat Completions API (`POST {baseUrl}/chat/completions`, baseUrl ending in `/v1` as the OpenAI
 * SDK expects). It replays the recordings in `fixtures/upstream/openai-chat/`, renders scripted turns with the
 * quirks compatible servers show (split argument deltas, a missing `index`, `id: ""` on continuation chunks,
 * usage in a `choices: []` chunk or on the finish chunk), answers errors in OpenAI's body shape, and refuses
 * what the real API refuses (a `tool` message answering no prior call, an array schema without `items`).
 */
import { randomBytes } from 'node:crypto';
import {
  cassette,
  chunkLines,
  jsonReply,
  type MockHandler,
  type MockReply,
  MockServer,
  pieces,
  type RecordedRequest,
  readFixture,
  retryAfter,
  type ScriptedTurn,
} from './mock-server.js';

/** The key the mock accepts (`Authorization: Bearer …`). */
export const OPENAI_TEST_KEY = 'sk-test-openai-mock-key';

/** Chat-specific quirks of a scripted turn. */
export interface ChatQuirks {
  /** Leave `index` out of tool-call continuation deltas (some compatible servers do). */
  missingIndex?: boolean;
  /** Send `id: ""` on tool-call continuation deltas. */
  emptyId?: boolean;
  /** Put usage on the finish chunk instead of a separate `choices: []` chunk (DeepSeek does). */
  usageOnFinish?: boolean;
  /** Send an `{"error":…}` data event after this many frames, then end the stream. */
  errorAfter?: number;
}

/** An OpenAI error body. */
export function openAiError(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

/** The error replies of the API per status (bodies as OpenAI sends them). */
export function openAiErrorReply(
  status: number,
  opts: { retryAfter?: number; model?: string } = {},
): MockReply {
  switch (status) {
    case 400:
      return jsonReply(
        400,
        openAiError("Invalid value for 'temperature'.", 'invalid_request_error', null, 'temperature'),
      );
    case 401:
      return jsonReply(
        401,
        openAiError(
          'Incorrect API key provided: sk-***. You can find your API key at https://platform.openai.com/account/api-keys.',
          'invalid_request_error',
          'invalid_api_key',
        ),
      );
    case 404:
      return jsonReply(
        404,
        openAiError(
          `The model \`${opts.model ?? 'gpt-missing'}\` does not exist or you do not have access to it.`,
          'invalid_request_error',
          'model_not_found',
        ),
      );
    case 429:
      return jsonReply(
        429,
        openAiError(
          'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 30000, Requested 100. Please try again in 2s.',
          'tokens',
          'rate_limit_exceeded',
        ),
        retryAfter(opts.retryAfter),
      );
    default:
      return jsonReply(
        status,
        openAiError(
          'The server had an error while processing your request. Sorry about that!',
          'server_error',
          null,
        ),
      );
  }
}

function sse(payload: unknown): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
}

/** Renders a scripted turn as a Chat Completions stream. */
export function renderChat(turn: ScriptedTurn, quirks: ChatQuirks = {}, model = 'gpt-4o-mock'): MockReply {
  const id = `chatcmpl-${randomBytes(6).toString('hex')}`;
  const base = { id, object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });
  const frames: string[] = [sse(chunk({ role: 'assistant', content: '' }))];
  let callIndex = 0;
  for (const part of turn.parts) {
    if ('text' in part) {
      for (const piece of pieces(part.text, part.chunks ?? 2)) frames.push(sse(chunk({ content: piece })));
    } else if ('thinking' in part) {
      // The de-facto field of OpenAI-compatible reasoning servers (DeepSeek, vLLM, …).
      frames.push(sse(chunk({ reasoning_content: part.thinking })));
    } else {
      const call = part.toolCall;
      const index = callIndex++;
      const callId = call.id ?? `call_${randomBytes(6).toString('hex')}`;
      frames.push(
        sse(
          chunk({
            tool_calls: [
              { index, id: callId, type: 'function', function: { name: call.name, arguments: '' } },
            ],
          }),
        ),
      );
      for (const fragment of pieces(JSON.stringify(call.args), call.split ?? 3)) {
        const delta: Record<string, unknown> = { function: { arguments: fragment } };
        if (!quirks.missingIndex) delta.index = index;
        if (quirks.emptyId) {
          delta.id = '';
          delta.type = 'function';
        }
        frames.push(sse(chunk({ tool_calls: [delta] })));
      }
    }
  }
  const usage = {
    prompt_tokens: turn.usage?.input ?? 10,
    completion_tokens: turn.usage?.output ?? 5,
    total_tokens: (turn.usage?.input ?? 10) + (turn.usage?.output ?? 5),
    prompt_tokens_details: { cached_tokens: turn.usage?.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: turn.usage?.reasoning ?? 0 },
  };
  const finish = callIndex > 0 ? 'tool_calls' : 'stop';
  if (quirks.usageOnFinish) {
    frames.push(sse(chunk({}, finish, { usage })));
  } else {
    frames.push(sse(chunk({}, finish)));
    frames.push(sse({ ...base, choices: [], usage }));
  }
  frames.push(sse('[DONE]'));
  if (quirks.errorAfter !== undefined) {
    frames.splice(
      quirks.errorAfter,
      frames.length,
      sse(openAiError('The server had an error while processing your request.', 'server_error', null)),
    );
  }
  const reply: MockReply = { kind: 'sse', frames };
  if (turn.splitBytes !== undefined) reply.splitBytes = turn.splitBytes;
  if (turn.delayMs !== undefined) reply.delayMs = turn.delayMs;
  if (turn.dropAfter !== undefined) reply.dropAfter = turn.dropAfter;
  return reply;
}

/** The recordings of `openai-chat/`: raw bodies (`.bin`) served verbatim, chunk files rebuilt (format C1). */
export function chatFixtureReply(name: string): MockReply {
  const text = readFixture(`openai-chat/${name}`);
  if (name.endsWith('.bin')) {
    return { kind: 'sse', frames: text.split(/(?<=\n\n)/).filter((frame) => frame !== '') };
  }
  if (name.endsWith('.yaml')) {
    const first = cassette(text)[0];
    if (first === undefined) throw new Error(`${name}: no interaction`);
    return { kind: 'sse', frames: [first.response.body?.string ?? ''] };
  }
  return { kind: 'sse', frames: [...chunkLines(text).map((line) => sse(line)), sse('[DONE]')] };
}

/** JSON Schema paths (`properties.x.items…`) of arrays without `items`. */
function arraysWithoutItems(schema: unknown, path: string[] = []): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  const type = node.type;
  const isArray = type === 'array' || (Array.isArray(type) && type.includes('array'));
  if (isArray && node.items === undefined) found.push(path.join('.') || '<root>');
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' || key === '$defs' || key === 'definitions') {
      for (const [name, sub] of Object.entries((value as Record<string, unknown>) ?? {})) {
        found.push(...arraysWithoutItems(sub, [...path, key, name]));
      }
    } else if (key === 'items' || key === 'additionalProperties') {
      found.push(...arraysWithoutItems(value, [...path, key]));
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') {
      for (const [i, sub] of ((value as unknown[]) ?? []).entries())
        found.push(...arraysWithoutItems(sub, [...path, key, String(i)]));
    }
  }
  return found;
}

interface ChatMessage {
  role?: string;
  tool_call_id?: string;
  tool_calls?: { id?: string }[];
}

/** The Chat Completions refusal rules. */
export function refuseChat(req: RecordedRequest, key: string): MockReply | undefined {
  if (req.method !== 'POST' || !req.path.endsWith('/chat/completions')) {
    return jsonReply(
      404,
      openAiError(`Invalid URL (${req.method} ${req.path})`, 'invalid_request_error', null),
    );
  }
  if (req.headers.authorization !== `Bearer ${key}`) return openAiErrorReply(401);
  const body = req.body as { model?: unknown; messages?: ChatMessage[]; tools?: unknown[] } | undefined;
  if (body === undefined || typeof body !== 'object') {
    return jsonReply(
      400,
      openAiError('We could not parse the JSON body of your request.', 'invalid_request_error', null),
    );
  }
  if (typeof body.model !== 'string') {
    return jsonReply(400, openAiError('you must provide a model parameter', 'invalid_request_error', null));
  }
  if (!Array.isArray(body.messages)) {
    return jsonReply(
      400,
      openAiError(
        "Missing required parameter: 'messages'.",
        'invalid_request_error',
        'missing_required_parameter',
        'messages',
      ),
    );
  }
  // Every `tool` message answers a call of the closest assistant message before it; every call gets an answer.
  let open = new Set<string>();
  for (const [i, message] of body.messages.entries()) {
    if (message.role === 'tool') {
      if (message.tool_call_id === undefined || !open.has(message.tool_call_id)) {
        return jsonReply(
          400,
          openAiError(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            'invalid_request_error',
            null,
            `messages.[${i}].role`,
          ),
        );
      }
      open.delete(message.tool_call_id);
      continue;
    }
    if (open.size > 0) {
      return jsonReply(
        400,
        openAiError(
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
          'invalid_request_error',
          null,
          'messages',
        ),
      );
    }
    open = new Set(
      (message.role === 'assistant' ? (message.tool_calls ?? []) : []).map((call) => String(call.id)),
    );
  }
  for (const [i, tool] of (body.tools ?? []).entries()) {
    const fn = (tool as { function?: { name?: string; parameters?: unknown } }).function;
    const missing = arraysWithoutItems(fn?.parameters);
    if (missing.length > 0) {
      return jsonReply(
        400,
        openAiError(
          `Invalid schema for function '${fn?.name}': In context=(${missing[0]}), array schema missing items.`,
          'invalid_request_error',
          'invalid_function_parameters',
          `tools[${i}].function.parameters`,
        ),
      );
    }
  }
  return undefined;
}

/** A running mock Chat Completions server. */
export class OpenAiChatMock {
  private constructor(
    readonly server: MockServer,
    readonly apiKey: string,
  ) {}

  static async start(apiKey = OPENAI_TEST_KEY): Promise<OpenAiChatMock> {
    const handler: MockHandler = {
      refuse: (req) => refuseChat(req, apiKey),
      fallback: () => renderChat({ parts: [{ text: 'OK' }] }),
    };
    return new OpenAiChatMock(await MockServer.start(handler), apiKey);
  }

  /** The base URL as the OpenAI SDK takes it (with `/v1`). */
  get baseUrl(): string {
    return `${this.server.origin}/v1`;
  }

  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  /** Queues a recording of `openai-chat/` for the next request. */
  replay(name: string): this {
    this.server.enqueue(chatFixtureReply(name));
    return this;
  }

  /** Queues a scripted turn. */
  script(turn: ScriptedTurn, quirks: ChatQuirks = {}): this {
    this.server.enqueue(renderChat(turn, quirks));
    return this;
  }

  /** Queues an HTTP error in OpenAI's shape. */
  fail(status: number, opts: { retryAfter?: number } = {}): this {
    this.server.enqueue(openAiErrorReply(status, opts));
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
