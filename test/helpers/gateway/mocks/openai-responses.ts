/**
 * A mock OpenAI Responses API (`POST {baseUrl}/responses`, baseUrl with `/v1`). It replays the recordings in
 * `fixtures/upstream/openai-responses/` (multi-response files split at `response.created`), renders scripted
 * turns (reasoning with `encrypted_content`, text, parallel function calls with argument deltas keyed by
 * `item_id`, usage on `response.completed`), fails mid-stream the way the API does (`error` then
 * `response.failed`), and refuses a `function_call_output` whose `call_id` matches no prior call, or a reasoning
 * item whose `encrypted_content` is not a final value it issued.
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
  type ScriptedTurn,
} from './mock-server.js';
import { OPENAI_TEST_KEY, openAiError, openAiErrorReply } from './openai-chat.js';

/** Responses-specific quirks. */
export interface ResponsesQuirks {
  /** After this many frames: an `error` event and `response.failed`, then the stream ends. */
  failAfter?: number;
}

function event(payload: { type: string } & Record<string, unknown>): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Renders a scripted turn as a Responses stream; records the final `encrypted_content` values in `issued`. */
export function renderResponses(
  turn: ScriptedTurn,
  issued: Set<string>,
  quirks: ResponsesQuirks = {},
  model = 'gpt-5-mock',
): MockReply {
  const id = `resp_${randomBytes(8).toString('hex')}`;
  let seq = 0;
  const frames: string[] = [];
  const push = (payload: { type: string } & Record<string, unknown>) =>
    frames.push(event({ ...payload, sequence_number: seq++ }));
  const response = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'response',
    created_at: 1_700_000_000,
    status,
    model,
    output,
    ...extra,
  });
  push({ type: 'response.created', response: response('in_progress', []) });
  push({ type: 'response.in_progress', response: response('in_progress', []) });
  const output: Record<string, unknown>[] = [];
  for (const part of turn.parts) {
    const output_index = output.length;
    if ('thinking' in part) {
      const itemId = `rs_${randomBytes(6).toString('hex')}`;
      // The value on `output_item.added` is not the one to replay: only the final one verifies.
      const final = part.signature ?? `gAAAA${randomBytes(24).toString('base64url')}`;
      issued.add(final);
      push({
        type: 'response.output_item.added',
        output_index,
        item: { id: itemId, type: 'reasoning', summary: [], encrypted_content: `${final}-partial` },
      });
      push({
        type: 'response.reasoning_summary_part.added',
        item_id: itemId,
        output_index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
      push({
        type: 'response.reasoning_summary_text.delta',
        item_id: itemId,
        output_index,
        summary_index: 0,
        delta: part.thinking,
      });
      push({
        type: 'response.reasoning_summary_text.done',
        item_id: itemId,
        output_index,
        summary_index: 0,
        text: part.thinking,
      });
      const item = {
        id: itemId,
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: part.thinking }],
        encrypted_content: final,
      };
      push({ type: 'response.output_item.done', output_index, item });
      output.push(item);
    } else if ('text' in part) {
      const itemId = `msg_${randomBytes(6).toString('hex')}`;
      push({
        type: 'response.output_item.added',
        output_index,
        item: { id: itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
      push({
        type: 'response.content_part.added',
        item_id: itemId,
        output_index,
        content_index: 0,
        part: { type: 'output_text', annotations: [], text: '' },
      });
      for (const delta of pieces(part.text, part.chunks ?? 2)) {
        push({
          type: 'response.output_text.delta',
          item_id: itemId,
          output_index,
          content_index: 0,
          delta,
          logprobs: [],
        });
      }
      push({
        type: 'response.output_text.done',
        item_id: itemId,
        output_index,
        content_index: 0,
        text: part.text,
        logprobs: [],
      });
      const content = [{ type: 'output_text', annotations: [], text: part.text }];
      push({
        type: 'response.content_part.done',
        item_id: itemId,
        output_index,
        content_index: 0,
        part: content[0],
      });
      const item = { id: itemId, type: 'message', status: 'completed', content, role: 'assistant' };
      push({ type: 'response.output_item.done', output_index, item });
      output.push(item);
    } else {
      const call = part.toolCall;
      const itemId = `fc_${randomBytes(6).toString('hex')}`;
      const callId = call.id ?? `call_${randomBytes(6).toString('hex')}`;
      const args = JSON.stringify(call.args);
      push({
        type: 'response.output_item.added',
        output_index,
        item: {
          id: itemId,
          type: 'function_call',
          status: 'in_progress',
          arguments: '',
          call_id: callId,
          name: call.name,
        },
      });
      for (const delta of pieces(args, call.split ?? 3)) {
        push({ type: 'response.function_call_arguments.delta', item_id: itemId, output_index, delta });
      }
      push({ type: 'response.function_call_arguments.done', item_id: itemId, output_index, arguments: args });
      const item = {
        id: itemId,
        type: 'function_call',
        status: 'completed',
        arguments: args,
        call_id: callId,
        name: call.name,
      };
      push({ type: 'response.output_item.done', output_index, item });
      output.push(item);
    }
  }
  const input = turn.usage?.input ?? 10;
  const out = turn.usage?.output ?? 5;
  push({
    type: 'response.completed',
    response: response('completed', output, {
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: turn.usage?.cached ?? 0 },
        output_tokens: out,
        output_tokens_details: { reasoning_tokens: turn.usage?.reasoning ?? 0 },
        total_tokens: input + out,
      },
    }),
  });
  if (quirks.failAfter !== undefined) {
    frames.splice(quirks.failAfter);
    const error = { code: 'server_error', message: 'An error occurred while processing your request.' };
    frames.push(
      event({
        type: 'error',
        sequence_number: seq++,
        error: { type: 'server_error', ...error, param: null },
      }),
    );
    frames.push(
      event({ type: 'response.failed', sequence_number: seq++, response: response('failed', [], { error }) }),
    );
  }
  const reply: MockReply = { kind: 'sse', frames };
  if (turn.splitBytes !== undefined) reply.splitBytes = turn.splitBytes;
  if (turn.delayMs !== undefined) reply.delayMs = turn.delayMs;
  if (turn.dropAfter !== undefined) reply.dropAfter = turn.dropAfter;
  return reply;
}

/**
 * The responses of a `openai-responses/` recording: chunk files split at `response.created` (format C1), or a
 * cassette's streamed interactions (format Y).
 */
export function responsesFixtureReplies(name: string): MockReply[] {
  const text = readFixture(`openai-responses/${name}`);
  if (name.endsWith('.yaml')) return cassette(text).map(cassetteReply);
  const replies: string[][] = [];
  for (const line of chunkLines(text)) {
    const type = (JSON.parse(line) as { type: string }).type;
    if (type === 'response.created' || replies.length === 0) replies.push([]);
    (replies.at(-1) as string[]).push(`event: ${type}\ndata: ${line}\n\n`);
  }
  return replies.map((frames) => ({ kind: 'sse', frames }));
}

interface InputItem {
  type?: string;
  role?: string;
  call_id?: string;
  encrypted_content?: string;
  id?: string;
}

/** The Responses refusal rules. */
export function refuseResponses(
  req: RecordedRequest,
  key: string,
  issued: Set<string>,
): MockReply | undefined {
  if (req.method !== 'POST' || !req.path.endsWith('/responses')) {
    return jsonReply(
      404,
      openAiError(`Invalid URL (${req.method} ${req.path})`, 'invalid_request_error', null),
    );
  }
  if (req.headers.authorization !== `Bearer ${key}`) return openAiErrorReply(401);
  const body = req.body as { model?: unknown; input?: unknown } | undefined;
  if (body === undefined || typeof body !== 'object' || typeof body.model !== 'string') {
    return jsonReply(
      400,
      openAiError(
        "Missing required parameter: 'model'.",
        'invalid_request_error',
        'missing_required_parameter',
        'model',
      ),
    );
  }
  const input: InputItem[] = Array.isArray(body.input) ? (body.input as InputItem[]) : [];
  const calls = new Set<string>();
  for (const item of input) {
    if (item.type === 'function_call' && item.call_id !== undefined) calls.add(item.call_id);
    if (item.type === 'function_call_output' && (item.call_id === undefined || !calls.has(item.call_id))) {
      return jsonReply(
        400,
        openAiError(
          `No tool call found for function call output with call_id ${item.call_id}.`,
          'invalid_request_error',
          null,
          'input',
        ),
      );
    }
    if (
      item.type === 'reasoning' &&
      item.encrypted_content !== undefined &&
      !issued.has(item.encrypted_content)
    ) {
      return jsonReply(
        400,
        openAiError(
          `The encrypted content for item ${item.id ?? 'rs_?'} could not be verified.`,
          'invalid_request_error',
          'invalid_encrypted_content',
          'input',
        ),
      );
    }
  }
  return undefined;
}

/** A running mock Responses server. */
export class OpenAiResponsesMock {
  /** Final `encrypted_content` values this mock issued (the only ones it accepts back). */
  readonly issued = new Set<string>();

  private constructor(
    readonly server: MockServer,
    readonly apiKey: string,
  ) {}

  static async start(apiKey = OPENAI_TEST_KEY): Promise<OpenAiResponsesMock> {
    let self: OpenAiResponsesMock | undefined;
    const issued = () => (self as OpenAiResponsesMock).issued;
    const handler: MockHandler = {
      refuse: (req) => refuseResponses(req, apiKey, issued()),
      fallback: () => renderResponses({ parts: [{ text: 'OK' }] }, issued()),
    };
    self = new OpenAiResponsesMock(await MockServer.start(handler), apiKey);
    return self;
  }

  /** The base URL as the OpenAI SDK takes it (with `/v1`). */
  get baseUrl(): string {
    return `${this.server.origin}/v1`;
  }

  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  /** Queues response `n` (default 0) of a recording in `openai-responses/`. */
  replay(name: string, n = 0): this {
    const reply = responsesFixtureReplies(name)[n];
    if (reply === undefined) throw new Error(`${name} has no response ${n}`);
    this.server.enqueue(reply);
    return this;
  }

  script(turn: ScriptedTurn, quirks: ResponsesQuirks = {}): this {
    this.server.enqueue(renderResponses(turn, this.issued, quirks));
    return this;
  }

  fail(status: number, opts: { retryAfter?: number } = {}): this {
    this.server.enqueue(openAiErrorReply(status, opts));
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
