/**
 * The one interface every upstream protocol module implements: build the HTTP request from a normalized
 * Gemini request, and translate the upstream's SSE events into Gemini sink calls. Requests are always sent with
 * `stream: true`; unary Gemini calls aggregate the same stream
 * (docs/reference/gateway-translation.md#openai-chat-completions), so each protocol has exactly one decoding
 * path.
 */
import type { UpstreamKind } from '../../model/upstream-trace.js';
import type { GeminiSink } from '../gemini-sink.js';
import type { UsageMetadata } from '../gemini-types.js';
import type { NormalizedRequest } from '../normalize-request.js';
import type { WireReporter } from './wire.js';

// The upstream protocols: defined below the gateway, where the Agent's telemetry reads them too.
export type { UpstreamKind } from '../../model/upstream-trace.js';

/** Where and how to reach the upstream. */
export interface UpstreamConfig {
  /** Protocol. */
  kind: UpstreamKind;
  /**
   * Base URL in the vendor SDK's own convention: OpenAI kinds include the version
   * (`https://api.openai.com/v1`, a compatible server's `…/v1`); Anthropic does not (`https://api.anthropic.com`).
   */
  baseUrl: string;
  /** The upstream API key. Sent only upstream; never logged, never returned to the client. */
  apiKey: string;
  /** Extra headers for every upstream request (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /**
   * `openai-responses` only: whether to ask for `include: ["reasoning.encrypted_content"]` so reasoning can be
   * replayed with `store:false`. Default: whenever the model may reason (any model not known to lack
   * reasoning, so deployment names behind a model map get it too). `false` for a server that rejects
   * `include`; `true` to send it even for a model name that looks like a non-reasoning one.
   */
  encryptedReasoning?: boolean | undefined;
}

/** An upstream HTTP request, relative to `baseUrl`. */
export interface UpstreamRequest {
  /** Path appended to the base URL, e.g. `/chat/completions`. */
  path: string;
  /** Protocol headers (auth included). */
  headers: Record<string, string>;
  /** JSON body. */
  body: Record<string, unknown>;
}

/** Decodes one upstream stream. */
export interface StreamTranslator {
  /** One SSE event (`event` is the `event:` field, if any). */
  event(event: string | undefined, data: string): void;
  /** The upstream body ended (cleanly or not); a stream that never said it was done becomes an error. */
  end(): void;
}

/** One upstream protocol. */
export interface Upstream {
  /** Which protocol. */
  readonly kind: UpstreamKind;
  /** Builds the request for a normalized Gemini request. */
  buildRequest(req: NormalizedRequest): UpstreamRequest;
  /**
   * A decoder for one response stream, writing into `sink`; `report` hears of upstream fields of an
   * unexpected type (read as absent, never thrown).
   */
  createTranslator(req: NormalizedRequest, sink: GeminiSink, report?: WireReporter): StreamTranslator;
  /** The upstream's own prompt-count request, when it has one. */
  buildCountRequest?(req: NormalizedRequest): UpstreamRequest;
  /** Reads the count from that request's JSON answer; `undefined` when it has none. */
  readCount?(body: unknown): number | undefined;
}

/** `input_tokens` of a count answer (Anthropic and OpenAI Responses both name it so). */
export function readInputTokens(body: unknown): number | undefined {
  const n = (body as { input_tokens?: unknown } | null)?.input_tokens;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** An upstream's token counts, before deciding how they add up. */
export interface UpstreamCounts {
  /** Prompt tokens, cached ones included. */
  prompt: number;
  /** Completion / output tokens as reported (with or without reasoning: see {@link geminiUsage}). */
  output: number;
  /** Cached prompt tokens. */
  cached: number;
  /** Reasoning / thinking tokens as reported. */
  reasoning: number;
  /** The upstream's own total, when it sends one: the check that decides how the other figures add up. */
  total?: number | undefined;
}

/**
 * Builds Gemini usage from the upstream's figures (docs/reference/gateway-translation.md#usage). Providers
 * disagree on whether reasoning is part of the completion: OpenAI, Groq, DeepSeek and OpenRouter count it in
 * (`prompt + completion = total`), xAI reports it beside (`prompt + completion + reasoning = total`). The total
 * decides; without one, reasoning larger than the completion cannot be part of it. Either way
 * `promptTokenCount + candidatesTokenCount + thoughtsTokenCount = totalTokenCount`.
 */
export function geminiUsage(counts: UpstreamCounts): UsageMetadata {
  const { prompt, output, cached, reasoning, total } = counts;
  let thoughts: number;
  let candidates: number;
  if (total !== undefined && reasoning > 0 && prompt + output + reasoning === total) {
    thoughts = reasoning;
    candidates = output;
  } else if (total !== undefined && total >= prompt) {
    // Reasoning inside the completion; whatever the total says the answer took is split between the two.
    const generated = total - prompt;
    thoughts = Math.min(reasoning, generated);
    candidates = generated - thoughts;
  } else if (reasoning > output) {
    thoughts = reasoning;
    candidates = output;
  } else {
    thoughts = reasoning;
    candidates = output - reasoning;
  }
  const usage: UsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates + thoughts,
  };
  if (cached > 0) usage.cachedContentTokenCount = cached;
  if (thoughts > 0) usage.thoughtsTokenCount = thoughts;
  return usage;
}

/** Usage for a stream that reported none. */
export const NO_USAGE: UpstreamCounts = { prompt: 0, output: 0, cached: 0, reasoning: 0 };

/** Parses complete tool-call arguments; `undefined` when they are not a JSON object. Empty means `{}`. */
export function parseArgs(text: string): Record<string, unknown> | undefined {
  if (text.trim().length === 0) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Parses one SSE data payload as JSON; `undefined` for non-JSON (e.g. `[DONE]`). */
export function parseJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/** A number or 0 (`null`/absent counts). */
export function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Back to the client's function name. */
export function originalName(req: NormalizedRequest, name: string): string {
  return req.toolNames.get(name) ?? name;
}

/**
 * Thinking budget → effort level (CLIProxyAPI's thresholds,
 * docs/reference/gateway-translation.md#openai-chat-completions).
 */
export function effortFor(thinking: NormalizedRequest['thinking']): string | undefined {
  if (thinking.level !== undefined && thinking.level !== 'THINKING_LEVEL_UNSPECIFIED') {
    return thinking.level.toLowerCase();
  }
  const b = thinking.budget;
  if (b === undefined || b < 0) return undefined;
  if (b === 0) return 'minimal';
  if (b <= 512) return 'minimal';
  if (b <= 1024) return 'low';
  if (b <= 8192) return 'medium';
  if (b <= 24576) return 'high';
  return 'xhigh';
}

/**
 * OpenAI reasoning model families reject `temperature`/`top_p` and take `reasoning_effort`
 * (docs/reference/gateway-translation.md#parameter-gotchas).
 */
export function isOpenAIReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5|codex)/i.test(model.replace(/^.*\//, ''));
}
