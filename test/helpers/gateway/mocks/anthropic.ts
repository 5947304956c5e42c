/**
 * A mock Anthropic Messages API (`POST {baseUrl}/v1/messages`, baseUrl without a version, as the Anthropic SDK
 * takes it). It replays the recordings in `fixtures/upstream/anthropic/`, renders scripted turns (signed
 * thinking blocks, text, parallel `tool_use` blocks with `input_json_delta`s, `ping`s, usage in `message_start`
 * and a cumulative `message_delta`), fails mid-stream with `event: error`, answers errors in Anthropic's shape
 * (`{"type":"error","error":{type,message},"request_id"}`, 529 `overloaded_error`) and refuses what the real API
 * refuses: no `anthropic-version` header, no `max_tokens`, a `tool_result` whose `tool_use_id` is not in the
 * previous assistant message, a last assistant turn with `tool_use` that does not start with a thinking block
 * this mock signed (when thinking is on), a tool `input_schema` with top-level `anyOf`/`oneOf`/`allOf`.
 */
import { randomBytes } from 'node:crypto';
import {
  cassette,
  cassetteReply,
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

/** The key the mock accepts (`x-api-key`). */
export const ANTHROPIC_TEST_KEY = 'sk-ant-test-mock-key';

/** Anthropic-specific quirks. */
export interface AnthropicQuirks {
  /** Send a `ping` event between every two events (the API sends them at random points). */
  pings?: boolean;
  /** After this many frames: `event: error` (`overloaded_error`), then the stream ends. */
  errorAfter?: number;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** An Anthropic error body. */
export function anthropicError(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: `req_${randomBytes(12).toString('hex')}` };
}

function invalid(message: string): MockReply {
  return jsonReply(400, anthropicError('invalid_request_error', message));
}

/** The error replies of the API per status. */
export function anthropicErrorReply(status: number, opts: { retryAfter?: number } = {}): MockReply {
  const type = ERROR_TYPES[status] ?? 'api_error';
  const messages: Record<string, string> = {
    invalid_request_error: 'messages: at least one message is required',
    authentication_error: 'invalid x-api-key',
    not_found_error: 'model: claude-missing',
    rate_limit_error:
      'This request would exceed the rate limit for your organization of 50 requests per minute.',
    overloaded_error: 'Overloaded',
    api_error: 'Internal server error',
  };
  const headers = status === 429 ? retryAfter(opts.retryAfter) : {};
  return jsonReply(status, anthropicError(type, messages[type] ?? 'Internal server error'), headers);
}

function event(payload: { type: string } & Record<string, unknown>): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Renders a scripted turn as a Messages stream; records the thinking signatures it issues in `signed`. */
export function renderAnthropic(
  turn: ScriptedTurn,
  signed: Set<string>,
  quirks: AnthropicQuirks = {},
  model = 'claude-mock-4',
): MockReply {
  const frames: string[] = [];
  const push = (payload: { type: string } & Record<string, unknown>) => {
    frames.push(event(payload));
    if (quirks.pings) frames.push('event: ping\ndata: {"type": "ping"}\n\n');
  };
  const input = turn.usage?.input ?? 10;
  const cached = turn.usage?.cached ?? 0;
  push({
    type: 'message_start',
    message: {
      id: `msg_${randomBytes(12).toString('hex')}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
        output_tokens: 1,
      },
    },
  });
  let hasTool = false;
  for (const [index, part] of turn.parts.entries()) {
    if ('thinking' in part) {
      const signature = part.signature ?? `Eq${randomBytes(32).toString('base64')}`;
      signed.add(signature);
      push({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      push({
        type: 'content_block_delta',
        index,
        delta: { type: 'thinking_delta', thinking: part.thinking },
      });
      push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } });
    } else if ('text' in part) {
      push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of pieces(part.text, part.chunks ?? 2)) {
        push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      }
    } else {
      hasTool = true;
      const call = part.toolCall;
      const id = call.id ?? `toolu_${randomBytes(12).toString('hex')}`;
      push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id, name: call.name, input: {} },
      });
      for (const partial_json of ['', ...pieces(JSON.stringify(call.args), call.split ?? 3)]) {
        push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    push({ type: 'content_block_stop', index });
  }
  push({
    type: 'message_delta',
    delta: { stop_reason: hasTool ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { input_tokens: input, cache_read_input_tokens: cached, output_tokens: turn.usage?.output ?? 5 },
  });
  frames.push(event({ type: 'message_stop' }));
  if (quirks.errorAfter !== undefined) {
    frames.splice(quirks.errorAfter);
    frames.push(event(anthropicError('overloaded_error', 'Overloaded')));
  }
  const reply: MockReply = { kind: 'sse', frames };
  if (turn.splitBytes !== undefined) reply.splitBytes = turn.splitBytes;
  if (turn.delayMs !== undefined) reply.delayMs = turn.delayMs;
  if (turn.dropAfter !== undefined) reply.dropAfter = turn.dropAfter;
  return reply;
}

/** A recording of `anthropic/`: a chunk file rebuilt with `event:` lines (C1/C2), or a cassette interaction. */
export function anthropicFixtureReply(name: string, n = 0): MockReply {
  const text = readFixture(`anthropic/${name}`);
  if (name.endsWith('.yaml')) {
    const interaction = cassette(text)[n];
    if (interaction === undefined) throw new Error(`${name} has no interaction ${n}`);
    return cassetteReply(interaction);
  }
  const frames = chunkLines(text).map((line) => {
    const type = (JSON.parse(line) as { type: string }).type;
    return `event: ${type}\ndata: ${line}\n\n`;
  });
  return { kind: 'sse', frames };
}

interface Block {
  type?: string;
  id?: string;
  tool_use_id?: string;
  signature?: string;
}
interface Message {
  role?: string;
  content?: string | Block[];
}

function blocks(message: Message | undefined): Block[] {
  return Array.isArray(message?.content) ? message.content : [];
}

/** The Messages refusal rules, in the order the API checks them. */
export function refuseAnthropic(
  req: RecordedRequest,
  key: string,
  signed: Set<string>,
): MockReply | undefined {
  if (req.method !== 'POST' || req.path !== '/v1/messages') {
    return jsonReply(404, anthropicError('not_found_error', `${req.method} ${req.path} not found`));
  }
  if (req.headers['x-api-key'] !== key) return anthropicErrorReply(401);
  if (req.headers['anthropic-version'] === undefined) return invalid('anthropic-version: header is required');
  const body = req.body as
    | {
        model?: unknown;
        max_tokens?: unknown;
        messages?: Message[];
        tools?: unknown[];
        thinking?: { type?: string };
      }
    | undefined;
  if (body === undefined || typeof body !== 'object')
    return invalid('There was an error parsing the body of your request.');
  if (typeof body.model !== 'string') return invalid('model: Field required');
  if (typeof body.max_tokens !== 'number') return invalid('max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return invalid('messages: Field required');
  for (const [i, tool] of (body.tools ?? []).entries()) {
    const schema = (tool as { input_schema?: Record<string, unknown> }).input_schema;
    if (schema === undefined) continue;
    if (schema.anyOf !== undefined || schema.oneOf !== undefined || schema.allOf !== undefined) {
      return invalid(
        `tools.${i}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`,
      );
    }
    if (schema.type !== 'object')
      return invalid(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  }
  const messages = body.messages;
  for (const [i, message] of messages.entries()) {
    const results = blocks(message).filter((block) => block.type === 'tool_result');
    if (results.length === 0) continue;
    const previous = i > 0 ? messages[i - 1] : undefined;
    const uses = new Set(
      previous?.role === 'assistant'
        ? blocks(previous)
            .filter((b) => b.type === 'tool_use')
            .map((b) => b.id)
        : [],
    );
    for (const result of results) {
      if (!uses.has(result.tool_use_id)) {
        return invalid(
          `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${result.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
  }
  const thinkingOn = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
  if (thinkingOn) {
    // The API checks the last assistant message of the active tool loop: it must lead with its signed thinking.
    const lastAssistant = messages
      .map((m, i) => ({ m, i }))
      .filter(({ m }) => m.role === 'assistant')
      .at(-1);
    if (lastAssistant !== undefined && blocks(lastAssistant.m).some((b) => b.type === 'tool_use')) {
      const first = blocks(lastAssistant.m)[0];
      if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
        return invalid(
          `messages.${lastAssistant.i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns.`,
        );
      }
      if (first.type === 'thinking' && (first.signature === undefined || !signed.has(first.signature))) {
        return invalid(`messages.${lastAssistant.i}.content.0: Invalid \`signature\` in \`thinking\` block`);
      }
    }
  }
  return undefined;
}

/** A running mock Messages server. */
export class AnthropicMock {
  /** Thinking signatures this mock issued (the only ones it accepts back). */
  readonly signed = new Set<string>();

  private constructor(
    readonly server: MockServer,
    readonly apiKey: string,
  ) {}

  static async start(apiKey = ANTHROPIC_TEST_KEY): Promise<AnthropicMock> {
    let self: AnthropicMock | undefined;
    const signed = () => (self as AnthropicMock).signed;
    const handler: MockHandler = {
      refuse: (req) => refuseAnthropic(req, apiKey, signed()),
      fallback: () => renderAnthropic({ parts: [{ text: 'OK' }] }, signed()),
    };
    self = new AnthropicMock(await MockServer.start(handler), apiKey);
    return self;
  }

  /** The base URL as the Anthropic SDK takes it (no version). */
  get baseUrl(): string {
    return this.server.origin;
  }

  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  /** Queues a recording of `anthropic/` (interaction `n` of a cassette). */
  replay(name: string, n = 0): this {
    this.server.enqueue(anthropicFixtureReply(name, n));
    return this;
  }

  script(turn: ScriptedTurn, quirks: AnthropicQuirks = {}): this {
    this.server.enqueue(renderAnthropic(turn, this.signed, quirks));
    return this;
  }

  fail(status: number, opts: { retryAfter?: number } = {}): this {
    this.server.enqueue(anthropicErrorReply(status, opts));
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
