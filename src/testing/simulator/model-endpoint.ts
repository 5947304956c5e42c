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
import { delay, throwIfAborted } from './abort.js';
import { errorMessages, ModelCallFailed, modelCall, type TurnContext } from './actions.js';
import type { ModelEndpointConfig } from './model-endpoint-config.js';
import {
  ApiFailure,
  failureFrom,
  type ModelResponse,
  type Part,
  readSse,
  StreamedResponse,
} from './model-endpoint-response.js';
import { runFunctionCall, toolDeclarations } from './model-endpoint-tools.js';

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
    const started = performance.now();
    const res = await this.#post(ctx);
    const response = new StreamedResponse(ctx, started);
    try {
      await readSse(res, (chunk) => response.onChunk(chunk));
    } catch (err) {
      if (err instanceof ApiFailure) throw err;
      throwIfAborted(ctx.signal);
      throw new ApiFailure('UNAVAILABLE', 0, `stream failed: ${(err as Error).message}`, true);
    }
    if (!response.finished)
      throw new ApiFailure('INTERNAL', 500, 'model stream ended without a finish reason', true);
    return response.finish();
  }

  /** POSTs the conversation so far. @throws ApiFailure when the endpoint is unreachable or answers an error */
  async #post(ctx: TurnContext): Promise<Response> {
    const { baseUrl, apiVersion, model, apiKey } = this.config;
    const url = `${baseUrl}/${apiVersion}/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`;
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
    return res;
  }
}

/** A tool's output as the `output` string of a `functionResponse`. */
function outputText(output: unknown): string {
  if (output === undefined) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}
