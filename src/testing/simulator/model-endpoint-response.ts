/**
 * What one model call of endpoint mode answered (`model-endpoint.ts` makes the call): the SSE frames of a
 * `streamGenerateContent` response read into the parts to replay, the function calls, the text and the usage,
 * the text streamed into the `agent_response` step as it arrives; an HTTP error or a stream error event as an
 * {@link ApiFailure} in agy's terms.
 */
import { performance } from 'node:perf_hooks';
import { googleStatusName } from '../../gateway/errors.js';
import { throwIfAborted } from './abort.js';
import { countUsage, nextIndex, step, type TurnContext } from './actions.js';
import { roundSeconds } from './envelopes.js';
import type { Usage } from './usage.js';

/** A Gemini content part (camelCase, as the API writes it). */
export type Part = Record<string, unknown>;

/** A failed API call, with what agy reports about it. */
export class ApiFailure extends Error {
  constructor(
    /** google.rpc status name, e.g. `INVALID_ARGUMENT`. */
    readonly status: string,
    /** HTTP status, or 0 for a network failure. */
    readonly code: number,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }

  /** agy's `short_error` form. */
  get short(): string {
    return `${this.status} (code ${this.code}): ${this.message}`;
  }
}

/** What one streamed model response held. */
export interface ModelResponse {
  /** Parts to replay as the model's turn (thoughts dropped, text merged). */
  parts: Part[];
  calls: { id: string | undefined; name: string; args: Record<string, unknown> }[];
  text: string;
  usage: Usage;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Usage in agy's form from `usageMetadata` (thinking counted inside output, as agy does). */
function usageFrom(meta: Record<string, unknown> | undefined): Usage {
  const n = (key: string) => {
    const value = meta?.[key];
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  };
  const input = n('promptTokenCount');
  const thinking = n('thoughtsTokenCount');
  const output = n('candidatesTokenCount') + thinking;
  return {
    input_tokens: input,
    output_tokens: output,
    thinking_tokens: thinking,
    cache_read_tokens: n('cachedContentTokenCount'),
    total_tokens: input + output,
  };
}

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

/** The `google.rpc` status name of an HTTP status, for bodies that do not say (the gateway's table). */
function statusName(code: number): string {
  return googleStatusName(code) ?? 'UNKNOWN';
}

/** An `{"error":{code,message,status}}` body (or anything else) as a failure. */
export function failureFrom(code: number, body: string): ApiFailure {
  let message = body.trim().slice(0, 500) || `HTTP ${code}`;
  let status = statusName(code);
  try {
    const parsed: unknown = JSON.parse(body);
    const error = isRecord(parsed) ? parsed.error : undefined;
    if (isRecord(error)) {
      if (typeof error.message === 'string') message = error.message;
      if (typeof error.status === 'string') status = error.status;
    }
  } catch {
    // Not JSON: the text itself is the message.
  }
  return new ApiFailure(status, code, message, RETRYABLE.has(code));
}

/**
 * One response as it streams: each chunk's parts are kept for the replay and its text is written as ACTIVE
 * `agent_response` updates, one delta held back so the DONE update ({@link StreamedResponse.finish}) can carry
 * the last one, as every captured DONE does.
 */
export class StreamedResponse {
  /** What the response held so far. */
  readonly out: ModelResponse = { parts: [], calls: [], text: '', usage: usageFrom(undefined) };
  /** Whether a chunk gave a `finishReason` (a stream without one is a failed call). */
  finished = false;
  #index: number | undefined;
  #pending: string | undefined;

  readonly #ctx: TurnContext;
  /** When the call started (`performance.now()`), for the step's `duration_seconds`. */
  readonly #started: number;

  constructor(ctx: TurnContext, started: number) {
    this.#ctx = ctx;
    this.#started = started;
  }

  /** Takes one SSE chunk. @throws ApiFailure for a stream error event */
  async onChunk(chunk: Record<string, unknown>): Promise<void> {
    if (isRecord(chunk.error)) {
      const e = chunk.error;
      const code = typeof e.code === 'number' ? e.code : 500;
      throw new ApiFailure(
        typeof e.status === 'string' ? e.status : statusName(code),
        code,
        String(e.message ?? 'stream error'),
        RETRYABLE.has(code),
      );
    }
    if (isRecord(chunk.usageMetadata)) this.out.usage = usageFrom(chunk.usageMetadata);
    const candidate =
      Array.isArray(chunk.candidates) && isRecord(chunk.candidates[0]) ? chunk.candidates[0] : undefined;
    if (typeof candidate?.finishReason === 'string') this.finished = true;
    const parts =
      isRecord(candidate?.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts) {
      if (!isRecord(part) || part.thought === true) continue;
      if (isRecord(part.functionCall)) {
        const call = part.functionCall;
        this.out.calls.push({
          id: typeof call.id === 'string' && call.id !== '' ? call.id : undefined,
          name: String(call.name ?? ''),
          args: isRecord(call.args) ? call.args : {},
        });
        this.out.parts.push(part);
      } else if (typeof part.text === 'string' && part.text !== '') {
        await this.#onText(part, part.text);
      } else if (typeof part.thoughtSignature === 'string' && this.out.parts.length === 0) {
        this.out.parts.push({ text: '', thoughtSignature: part.thoughtSignature });
      }
    }
  }

  async #onText(part: Part, text: string): Promise<void> {
    const { out } = this;
    const ctx = this.#ctx;
    // Consecutive text merges into the first text part, which keeps its signature
    // (docs/reference/gemini-clients.md#gemini-cli-history-handling).
    const last = out.parts.at(-1);
    if (last !== undefined && typeof last.text === 'string') last.text += text;
    else out.parts.push({ ...part });
    out.text += text;
    if (this.#pending !== undefined) {
      this.#index ??= nextIndex(ctx);
      await step(ctx, this.#index, {
        state: 'ACTIVE',
        step_type: 'agent_response',
        text_delta: this.#pending,
      });
      throwIfAborted(ctx.signal);
    }
    this.#pending = text;
    ctx.lastText = out.text.slice(0, out.text.length - this.#pending.length);
  }

  /** Counts the usage and writes the DONE `agent_response` step of a finished response; returns what it held. */
  async finish(): Promise<ModelResponse> {
    const { out } = this;
    const ctx = this.#ctx;
    // A text part that stayed empty carries only a signature: keep it only when nothing else could.
    out.parts = out.parts.filter((part) => part.text !== '' || out.parts.length === 1);
    this.#index ??= nextIndex(ctx);
    countUsage(ctx, out.usage);
    ctx.modelSteps++;
    const fields: Record<string, unknown> = { state: 'DONE', step_type: 'agent_response' };
    if (this.#pending !== undefined) fields.text_delta = this.#pending;
    fields.duration_seconds = roundSeconds((performance.now() - this.#started) / 1000);
    fields.usage = out.usage;
    await step(ctx, this.#index, fields);
    if (out.text !== '') {
      ctx.lastText = out.text;
      ctx.turnText += out.text;
    }
    return out;
  }
}

/**
 * Reads an SSE body: frames end with a blank line (CRLF or LF); each frame's `data:` lines form one JSON chunk.
 * Like Go genai's splitter, anything but `data:` lines is an error.
 */
export async function readSse(
  res: Response,
  onChunk: (chunk: Record<string, unknown>) => Promise<void>,
): Promise<void> {
  if (res.body === null) return;
  const decoder = new TextDecoder();
  let buffer = '';
  const frame = async (text: string) => {
    const data: string[] = [];
    for (const line of text.split(/\r\n|\n/)) {
      if (line === '') continue;
      if (!line.startsWith('data:')) throw new Error(`unexpected SSE line: ${line.slice(0, 80)}`);
      data.push(line.slice(5).trimStart());
    }
    if (data.length === 0) return;
    const parsed: unknown = JSON.parse(data.join('\n'));
    if (!isRecord(parsed)) throw new Error('SSE data is not a JSON object');
    await onChunk(parsed);
  };
  for await (const bytes of res.body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    for (let end = buffer.search(/\r\n\r\n|\n\n/); end !== -1; end = buffer.search(/\r\n\r\n|\n\n/)) {
      const sep = buffer.startsWith('\r\n\r\n', end) ? 4 : 2;
      const text = buffer.slice(0, end);
      buffer = buffer.slice(end + sep);
      await frame(text);
    }
  }
  buffer += decoder.decode();
  if (buffer.trim() !== '') await frame(buffer);
}
