/**
 * Endpoint mode: the simulator's model turns come from a Gemini-compatible endpoint, as real agy's do with
 * `modelProvider: "gemini"` and `GOOGLE_GEMINI_BASE_URL` (see `model-endpoint-config.ts`). Each model call is
 * `POST {base}/{version}/models/{model}:streamGenerateContent?alt=sse` with `x-goog-api-key`, the conversation
 * so far, the always-on rules as `systemInstruction` and the tool declarations (`model-endpoint-tools.ts`).
 * Text is streamed into the `agent_response` step as chunks arrive (the DONE update carries the last delta, as
 * in every capture); function calls run as tool steps and their results go back as `functionResponse` parts
 * with the call's id; the loop ends at a response without calls. Thought parts are not replayed (as Gemini CLI
 * does); `thoughtSignature`s on the other parts are.
 *
 * An HTTP error, a stream error event, a dropped stream or a stream without `finishReason` is a failed API call:
 * a DONE `error_message` step per attempt (429/5xx/network failures are retried twice), an `AGY_ERROR` stderr
 * line, then the turn's `result` ERROR with `STATUS (code N): message` — the shapes a failed agy turn has
 * (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stderr for the stderr line).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { googleStatusName } from '../../gateway/errors.js';
import { delay, throwIfAborted } from './abort.js';
import {
  countUsage,
  errorMessages,
  ModelCallFailed,
  modelCall,
  nextIndex,
  step,
  type TurnContext,
} from './actions.js';
import { roundSeconds } from './envelopes.js';
import type { ModelEndpointConfig } from './model-endpoint-config.js';
import { runFunctionCall, toolDeclarations } from './model-endpoint-tools.js';
import type { Usage } from './usage.js';

/** A Gemini content part (camelCase, as the API writes it). */
type Part = Record<string, unknown>;

/** One entry of `contents`. */
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** Model calls per turn before the loop is cut (a model that never stops calling tools). */
const MAX_MODEL_CALLS = 32;
/** Retries of a retryable failure (429, 5xx, network), so at most three attempts per model call. */
const RETRIES = 2;
/** First retry delay; doubles each time. */
const RETRY_BASE_MS = 200;

/** A failed API call, with what agy reports about it. */
class ApiFailure extends Error {
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
interface ModelResponse {
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
function failureFrom(code: number, body: string): ApiFailure {
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

/** One conversation's history with the endpoint, kept for the life of the simulator process. */
export class ModelEndpointSession {
  readonly #contents: Content[] = [];

  constructor(readonly config: ModelEndpointConfig) {}

  /** Runs the model/tool loop for the turn's prompt. @throws ModelCallFailed when an API call fails for good. */
  async runTurn(ctx: TurnContext): Promise<void> {
    this.#contents.push({ role: 'user', parts: [{ text: ctx.prompt }] });
    for (let calls = 0; calls < MAX_MODEL_CALLS; calls++) {
      let response: ModelResponse | undefined;
      await modelCall(ctx, async () => {
        response = await this.#modelStep(ctx);
      });
      const done = response as ModelResponse;
      this.#contents.push({ role: 'model', parts: done.parts });
      if (done.calls.length === 0) return;
      const results: Part[] = [];
      for (const call of done.calls) {
        const outcome = await runFunctionCall(ctx, call.name, call.args);
        throwIfAborted(ctx.signal);
        const response =
          'error' in outcome ? { error: outcome.error.message } : { output: outputText(outcome.output) };
        const functionResponse: Record<string, unknown> = { name: call.name, response };
        if (call.id !== undefined) functionResponse.id = call.id;
        results.push({ functionResponse });
        // Headless agy stops the turn at a soft denial.
        if (ctx.denied.length > 0) return;
      }
      this.#contents.push({ role: 'user', parts: results });
    }
  }

  /** One model call with retries; writes the model's steps and returns what it produced. */
  async #modelStep(ctx: TurnContext): Promise<ModelResponse> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#stream(ctx);
      } catch (err) {
        if (!(err instanceof ApiFailure)) throw err;
        throwIfAborted(ctx.signal);
        await errorMessages(ctx, 1);
        if (!err.retryable || attempt >= RETRIES) {
          await ctx.emitter.stderr(`error: ${err.short}`);
          await ctx.emitter.stderr(
            `AGY_ERROR: ${JSON.stringify({
              short_error: err.short,
              status: err.status,
              error_code: err.code,
              code_kind: err.code === 0 ? 'network' : 'http',
              retryable: err.retryable,
              error_id: randomUUID(),
            })}`,
          );
          throw new ModelCallFailed(err.short);
        }
        await delay(RETRY_BASE_MS * 2 ** attempt, ctx.signal);
      }
    }
  }

  #requestBody(ctx: TurnContext): Record<string, unknown> {
    const body: Record<string, unknown> = {
      contents: this.#contents,
      tools: [{ functionDeclarations: toolDeclarations(ctx) }],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    };
    const rules = ctx.runtime.config.rules
      .filter((rule) => rule.trigger === 'always_on')
      .map((rule) => rule.body);
    if (rules.length > 0) body.systemInstruction = { role: 'user', parts: [{ text: rules.join('\n\n') }] };
    return body;
  }

  /** Streams one response, writing text deltas as they arrive. @throws ApiFailure */
  async #stream(ctx: TurnContext): Promise<ModelResponse> {
    const { baseUrl, apiVersion, model, apiKey } = this.config;
    const url = `${baseUrl}/${apiVersion}/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`;
    const started = performance.now();
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': apiKey },
        body: JSON.stringify(this.#requestBody(ctx)),
        signal: ctx.signal,
      });
    } catch (err) {
      throwIfAborted(ctx.signal);
      throw new ApiFailure('UNAVAILABLE', 0, `endpoint unreachable: ${(err as Error).message}`, true);
    }
    if (!res.ok) throw failureFrom(res.status, await res.text().catch(() => ''));
    const out: ModelResponse = { parts: [], calls: [], text: '', usage: usageFrom(undefined) };
    let index: number | undefined;
    let pending: string | undefined;
    let finished = false;
    const onChunk = async (chunk: Record<string, unknown>) => {
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
      if (isRecord(chunk.usageMetadata)) out.usage = usageFrom(chunk.usageMetadata);
      const candidate =
        Array.isArray(chunk.candidates) && isRecord(chunk.candidates[0]) ? chunk.candidates[0] : undefined;
      if (typeof candidate?.finishReason === 'string') finished = true;
      const parts =
        isRecord(candidate?.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
      for (const part of parts) {
        if (!isRecord(part) || part.thought === true) continue;
        if (isRecord(part.functionCall)) {
          const call = part.functionCall;
          out.calls.push({
            id: typeof call.id === 'string' && call.id !== '' ? call.id : undefined,
            name: String(call.name ?? ''),
            args: isRecord(call.args) ? call.args : {},
          });
          out.parts.push(part);
        } else if (typeof part.text === 'string' && part.text !== '') {
          // Consecutive text merges into the first text part, which keeps its signature
          // (docs/reference/gemini-clients.md#gemini-cli-history-handling).
          const last = out.parts.at(-1);
          if (last !== undefined && typeof last.text === 'string') last.text += part.text;
          else out.parts.push({ ...part });
          out.text += part.text;
          // Hold one delta back so the DONE update can carry the last one, as every captured DONE does.
          if (pending !== undefined) {
            index ??= nextIndex(ctx);
            await step(ctx, index, { state: 'ACTIVE', step_type: 'agent_response', text_delta: pending });
            throwIfAborted(ctx.signal);
          }
          pending = part.text;
          ctx.lastText = out.text.slice(0, out.text.length - pending.length);
        } else if (typeof part.thoughtSignature === 'string' && out.parts.length === 0) {
          out.parts.push({ text: '', thoughtSignature: part.thoughtSignature });
        }
      }
    };
    try {
      await readSse(res, onChunk);
    } catch (err) {
      if (err instanceof ApiFailure) throw err;
      throwIfAborted(ctx.signal);
      throw new ApiFailure('UNAVAILABLE', 0, `stream failed: ${(err as Error).message}`, true);
    }
    if (!finished) throw new ApiFailure('INTERNAL', 500, 'model stream ended without a finish reason', true);
    // A text part that stayed empty carries only a signature: keep it only when nothing else could.
    out.parts = out.parts.filter((part) => part.text !== '' || out.parts.length === 1);
    index ??= nextIndex(ctx);
    countUsage(ctx, out.usage);
    ctx.modelSteps++;
    const fields: Record<string, unknown> = { state: 'DONE', step_type: 'agent_response' };
    if (pending !== undefined) fields.text_delta = pending;
    fields.duration_seconds = roundSeconds((performance.now() - started) / 1000);
    fields.usage = out.usage;
    await step(ctx, index, fields);
    if (out.text !== '') {
      ctx.lastText = out.text;
      ctx.turnText += out.text;
    }
    return out;
  }
}

/** A tool's output as the `output` string of a `functionResponse`. */
function outputText(output: unknown): string {
  if (output === undefined) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/**
 * Reads an SSE body: frames end with a blank line (CRLF or LF); each frame's `data:` lines form one JSON chunk.
 * Like Go genai's splitter, anything but `data:` lines is an error.
 */
async function readSse(
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
