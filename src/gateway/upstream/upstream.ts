/**
 * The one interface every upstream protocol module implements: build the HTTP request from a normalized
 * Gemini request, and translate the upstream's SSE events into Gemini sink calls. Requests are always sent with
 * `stream: true`; unary Gemini calls aggregate the same stream
 * (docs/reference/gateway-translation.md#openai-chat-completions), so each protocol has exactly one decoding
 * path.
 */
import type { GeminiSink } from '../gemini-sink.js';
import type { UsageMetadata } from '../gemini-types.js';
import type { NormalizedRequest } from '../normalize-request.js';

/** The upstream protocols. */
export type UpstreamKind = 'openai-chat' | 'openai-responses' | 'anthropic';

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
  /** A decoder for one response stream, writing into `sink`. */
  createTranslator(req: NormalizedRequest, sink: GeminiSink): StreamTranslator;
}

/**
 * Builds Gemini usage from the upstream's figures (docs/reference/gateway-translation.md#usage); `prompt`
 * already includes cached tokens.
 */
export function geminiUsage(prompt: number, output: number, cached: number, thoughts: number): UsageMetadata {
  const usage: UsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, output - thoughts),
    totalTokenCount: prompt + output,
  };
  if (cached > 0) usage.cachedContentTokenCount = cached;
  if (thoughts > 0) usage.thoughtsTokenCount = thoughts;
  return usage;
}

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

/** The value if it is a JSON object, else an empty one: upstream payloads are read defensively. */
export function obj(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The object elements of a value that should be an array of objects. */
export function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
    : [];
}

/** Numeric field or 0. */
export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
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
