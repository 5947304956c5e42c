/**
 * Anthropic Messages, docs/reference/gateway-translation.md#anthropic-messages. `system` goes top-level,
 * `tool_result` blocks lead the user turn, `max_tokens` is always sent, and signed thinking blocks travel in
 * the first call's `thoughtSignature` so they can lead the replayed assistant message ("a final assistant
 * message must start with a thinking block"). Without them (history from another model) thinking is switched
 * off for that request rather than fabricated.
 */
import { fromUpstreamStreamError, prematureEnd } from '../errors.js';
import type { GeminiSink } from '../gemini-sink.js';
import type { GroundingMetadata, UsageMetadata } from '../gemini-types.js';
import { type NormalizedPart, type NormalizedRequest, resultsFirst } from '../normalize-request.js';
import { sanitizeForAnthropic, sanitizeResponseSchema } from '../schema/sanitize.js';
import { type AnthropicThinkingBlock, packSignature, unpackSignature } from '../signature.js';
import {
  geminiUsage,
  originalName,
  parseArgs,
  parseJson,
  readInputTokens,
  type StreamTranslator,
  type Upstream,
  type UpstreamConfig,
} from './upstream.js';
import { type AnthropicEvent, createWireReader, type WireReporter } from './wire.js';

type AnthropicUsage = NonNullable<AnthropicEvent['usage']>;
type AnthropicBlock = NonNullable<AnthropicEvent['content_block']>;
type AnthropicDelta = NonNullable<AnthropicEvent['delta']>;

type Block = Record<string, unknown>;

/** `max_tokens` is required by Anthropic; Gemini CLI's main turns send no `maxOutputTokens`. */
export const DEFAULT_MAX_TOKENS = 32_000;
/** The `anthropic-version` header the request shapes here follow. */
export const ANTHROPIC_VERSION = '2023-06-01';

const LEVEL_BUDGET: Record<string, number> = {
  MINIMAL: 1024,
  LOW: 1024,
  MEDIUM: 8192,
  HIGH: 24_576,
  XHIGH: 32_768,
};

/** Claude families that accept extended thinking; older ones reject the `thinking` field. */
export function supportsThinking(model: string): boolean {
  return /claude-(3-7-|(opus|sonnet|haiku)-4|4)/i.test(model);
}

function thinkingBudget(req: NormalizedRequest): number | undefined {
  const { budget, level } = req.thinking;
  if (budget !== undefined) {
    if (budget === 0) return undefined;
    return budget < 0 ? 8192 : Math.max(1024, budget);
  }
  return level !== undefined ? LEVEL_BUDGET[level] : undefined;
}

function mediaBlock(mimeType: string, data: string): Block {
  if (mimeType === 'application/pdf')
    return { type: 'document', source: { type: 'base64', media_type: mimeType, data } };
  if (/^image\/(png|jpeg|gif|webp)$/.test(mimeType))
    return { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
  return { type: 'text', text: `[attachment of type ${mimeType} omitted: not supported by this model]` };
}

function userBlocks(parts: NormalizedPart[]): Block[] {
  const blocks: Block[] = [];
  for (const p of resultsFirst(parts)) {
    if (p.kind === 'result') {
      const content =
        p.media.length > 0
          ? [{ type: 'text', text: p.output }, ...p.media.map((m) => mediaBlock(m.mimeType, m.data))]
          : p.output;
      blocks.push({
        type: 'tool_result',
        tool_use_id: p.id,
        content,
        ...(p.isError ? { is_error: true } : {}),
      });
    } else if (p.kind === 'text') blocks.push({ type: 'text', text: p.text });
    else if (p.kind === 'media') blocks.push(mediaBlock(p.mimeType, p.data));
    else if (p.kind === 'url')
      blocks.push(
        p.mimeType === 'application/pdf'
          ? { type: 'document', source: { type: 'url', url: p.uri } }
          : { type: 'image', source: { type: 'url', url: p.uri } },
      );
  }
  return blocks;
}

/** Builds the Messages `messages` array; `thinkingLeads` tells whether every tool turn kept its thinking. */
export function anthropicMessages(req: NormalizedRequest): {
  messages: Block[];
  lastToolTurnSigned: boolean;
} {
  const messages: Block[] = [];
  let lastToolTurnSigned = true;
  for (const turn of req.turns) {
    if (turn.role === 'user') {
      messages.push({ role: 'user', content: userBlocks(turn.parts) });
      continue;
    }
    const calls = turn.parts.flatMap((p) => (p.kind === 'call' ? [p] : []));
    const packed = unpackSignature(calls[0]?.signature ?? turn.textSignature, 'anthropic');
    const thinking = packed?.p === 'anthropic' ? packed.b : [];
    const content: Block[] = thinking.map((b) => ({ ...b }));
    const text = turn.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
    if (text.length > 0) content.push({ type: 'text', text });
    for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
    if (calls.length > 0) lastToolTurnSigned = thinking.length > 0;
    if (content.length > 0) messages.push({ role: 'assistant', content });
  }
  return { messages, lastToolTurnSigned };
}

/**
 * The Messages request body (docs/reference/gateway-translation.md#anthropic-messages; sampling rules:
 * docs/reference/gateway-translation.md#parameter-gotchas).
 */
export function anthropicBody(req: NormalizedRequest): Record<string, unknown> {
  const { messages, lastToolTurnSigned } = anthropicMessages(req);
  const g = req.generation;
  const body: Record<string, unknown> = { model: req.model, messages, stream: true };
  if (req.system !== undefined)
    body.system = [{ type: 'text', text: req.system, cache_control: { type: 'ephemeral' } }];
  const tools: Block[] = req.tools.map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    input_schema: sanitizeForAnthropic(t.parameters),
  }));
  const last = tools.at(-1);
  if (last) last.cache_control = { type: 'ephemeral' };
  if (req.webSearch) tools.push({ type: 'web_search_20250305', name: 'web_search' });
  let forced = false;
  if (tools.length > 0) {
    const { mode, allowed } = req.toolChoice;
    body.tools = tools;
    if (mode === 'NONE') body.tool_choice = { type: 'none' };
    else if (mode === 'ANY' && allowed?.length === 1) {
      body.tool_choice = { type: 'tool', name: allowed[0] };
      forced = true;
    } else if (mode === 'ANY') {
      body.tool_choice = { type: 'any' };
      if (allowed) body.tools = tools.filter((t) => typeof t.name === 'string' && allowed.includes(t.name));
      forced = true;
    }
  }
  // Thinking needs: a model that has it, no forced tool choice, and signed thinking leading the last tool turn.
  const budget =
    supportsThinking(req.model) && !forced && lastToolTurnSigned ? thinkingBudget(req) : undefined;
  let maxTokens = g.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (budget !== undefined) {
    if (maxTokens <= budget) maxTokens = budget + Math.min(DEFAULT_MAX_TOKENS, 8192);
    body.thinking = { type: 'enabled', budget_tokens: budget };
    // Thinking requires temperature 1 (or unset) and no top_k; top_p is dropped with it
    // (docs/reference/gateway-translation.md#anthropic-messages).
  } else {
    if (g.temperature !== undefined) body.temperature = g.temperature;
    else if (g.topP !== undefined) body.top_p = g.topP;
    if (g.topK !== undefined) body.top_k = g.topK;
  }
  body.max_tokens = maxTokens;
  if (g.stopSequences) body.stop_sequences = g.stopSequences;
  if (g.responseMimeType === 'application/json' && g.responseSchema !== undefined) {
    body.output_config = {
      format: { type: 'json_schema', schema: sanitizeResponseSchema(g.responseSchema) },
    };
  }
  return body;
}

const FINISH: Record<string, string> = {
  end_turn: 'STOP',
  stop_sequence: 'STOP',
  tool_use: 'STOP',
  pause_turn: 'STOP',
  max_tokens: 'MAX_TOKENS',
  model_context_window_exceeded: 'MAX_TOKENS',
  refusal: 'SAFETY',
};

interface OpenBlock {
  type: string;
  id: string;
  name: string;
  json: string;
  thinking: string;
  signature: string;
}

class AnthropicTranslator implements StreamTranslator {
  readonly #blocks = new Map<number, OpenBlock>();
  readonly #thinking: AnthropicThinkingBlock[] = [];
  readonly #grounding: GroundingMetadata = { groundingChunks: [] };
  readonly #queries: string[] = [];
  #model: string | undefined;
  #input = 0;
  #cacheWrite = 0;
  #cacheRead = 0;
  #output = 0;
  #thoughts = 0;
  #stopReason: string | undefined;
  #calls = 0;
  #malformed = false;
  #textStarted = false;
  readonly #read: ReturnType<typeof createWireReader>;
  readonly #req: NormalizedRequest;
  readonly #sink: GeminiSink;

  constructor(req: NormalizedRequest, sink: GeminiSink, report?: WireReporter) {
    this.#req = req;
    this.#sink = sink;
    this.#read = createWireReader(report);
  }

  event(_event: string | undefined, data: string): void {
    if (this.#sink.done) return;
    const e = this.#read('anthropicEvent', parseJson(data));
    if (!e) return;
    switch (e.type) {
      case 'message_start': {
        const message = e.message;
        if (message?.model) this.#model = message.model;
        this.#sink.meta(this.#model, message?.id ?? undefined);
        this.#takeUsage(message?.usage ?? undefined);
        return;
      }
      case 'content_block_start':
        if (e.content_block) this.#start(e.index ?? 0, e.content_block);
        return;
      case 'content_block_delta':
        if (e.delta) this.#delta(e.index ?? 0, e.delta);
        return;
      case 'content_block_stop':
        this.#stop(e.index ?? 0);
        return;
      case 'message_delta':
        if (e.delta?.stop_reason) this.#stopReason = e.delta.stop_reason;
        this.#takeUsage(e.usage ?? undefined);
        return;
      case 'message_stop':
        this.#complete();
        return;
      case 'error':
        this.#sink.fail(fromUpstreamStreamError(e));
        return;
      default:
        return; // ping and future event types
    }
  }

  end(): void {
    if (!this.#sink.done) this.#sink.fail(prematureEnd('no message_stop before end of stream'));
  }

  #takeUsage(u: AnthropicUsage | undefined): void {
    if (!u) return;
    // message_delta usage is cumulative; newer API versions resend input/cache counts (prefer non-null).
    if (typeof u.input_tokens === 'number') this.#input = u.input_tokens;
    if (typeof u.cache_creation_input_tokens === 'number') this.#cacheWrite = u.cache_creation_input_tokens;
    if (typeof u.cache_read_input_tokens === 'number') this.#cacheRead = u.cache_read_input_tokens;
    if (typeof u.output_tokens === 'number') this.#output = u.output_tokens;
    const thinking = u.output_tokens_details?.thinking_tokens;
    if (typeof thinking === 'number') this.#thoughts = thinking;
  }

  #start(index: number, block: AnthropicBlock): void {
    const type = block.type ?? '';
    if (type === 'redacted_thinking' && block.data) {
      this.#thinking.push({ type: 'redacted_thinking', data: block.data });
      return;
    }
    if (type === 'web_search_tool_result' && Array.isArray(block.content)) {
      for (const r of block.content) {
        const result = r as { url?: unknown; title?: unknown } | null;
        if (typeof result?.url === 'string') this.#cite(result.url, result.title);
      }
      return;
    }
    this.#blocks.set(index, {
      type,
      id: block.id ?? '',
      name: block.name ?? '',
      json: '',
      thinking: block.thinking ?? '',
      signature: block.signature ?? '',
    });
    if (type === 'text' && block.text) this.#text(block.text);
  }

  #text(text: string): void {
    if (text.length === 0) return;
    // A text-only thinking turn carries the signed thinking on its first text part
    // (docs/reference/gateway-translation.md#thought-signature-carriage): thinking blocks end before text starts.
    const signature = this.#textStarted ? undefined : this.#signature();
    this.#textStarted = true;
    this.#sink.text(text, signature);
  }

  #signature(): string | undefined {
    return this.#thinking.length > 0
      ? packSignature({ v: 1, p: 'anthropic', m: this.#model ?? this.#req.model, b: this.#thinking })
      : undefined;
  }

  #delta(index: number, delta: AnthropicDelta): void {
    const block = this.#blocks.get(index);
    switch (delta.type) {
      case 'text_delta':
        if (typeof delta.text === 'string') this.#text(delta.text);
        return;
      case 'thinking_delta':
        if (typeof delta.thinking !== 'string') return;
        if (block) block.thinking += delta.thinking;
        if (this.#req.thinking.includeThoughts) this.#sink.thought(delta.thinking);
        return;
      case 'signature_delta':
        if (block && typeof delta.signature === 'string') block.signature += delta.signature;
        return;
      case 'input_json_delta':
        if (block && typeof delta.partial_json === 'string') block.json += delta.partial_json;
        return;
      case 'citations_delta':
        if (delta.citation?.url) this.#cite(delta.citation.url, delta.citation.title);
        return;
      default:
        return;
    }
  }

  #cite(url: string, title: unknown): void {
    if (this.#grounding.groundingChunks.some((c) => c.web.uri === url)) return;
    this.#grounding.groundingChunks.push({
      web: { uri: url, title: typeof title === 'string' ? title : url },
    });
  }

  #stop(index: number): void {
    const block = this.#blocks.get(index);
    if (!block) return;
    this.#blocks.delete(index);
    if (block.type === 'thinking') {
      this.#thinking.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
      return;
    }
    if (block.type === 'server_tool_use') {
      const query = parseArgs(block.json)?.query;
      if (typeof query === 'string') this.#queries.push(query);
      return;
    }
    if (block.type !== 'tool_use') return;
    const args = parseArgs(block.json);
    if (args === undefined) {
      this.#malformed = true;
      return;
    }
    const signature = this.#calls === 0 ? this.#signature() : undefined;
    this.#calls += 1;
    this.#sink.functionCall({ id: block.id, name: originalName(this.#req, block.name), args }, signature);
  }

  #complete(): void {
    const base = FINISH[this.#stopReason ?? ''] ?? 'OTHER';
    const reason = this.#malformed && base === 'STOP' ? 'MALFORMED_FUNCTION_CALL' : base;
    const prompt = this.#input + this.#cacheWrite + this.#cacheRead;
    const usage: UsageMetadata = geminiUsage({
      prompt,
      output: this.#output,
      cached: this.#cacheRead,
      reasoning: this.#thoughts,
    });
    const grounded = this.#grounding.groundingChunks.length > 0 || this.#queries.length > 0;
    if (this.#queries.length > 0) this.#grounding.webSearchQueries = this.#queries;
    this.#sink.finish(reason, usage, grounded ? this.#grounding : undefined);
  }
}

/** The Anthropic Messages upstream. */
export function anthropicUpstream(config: UpstreamConfig): Upstream {
  return {
    kind: 'anthropic',
    buildRequest: (req) => ({
      path: '/v1/messages',
      headers: {
        'x-api-key': config.apiKey,
        'anthropic-version': ANTHROPIC_VERSION,
        accept: 'text/event-stream',
      },
      body: anthropicBody(req),
    }),
    createTranslator: (req, sink, report) => new AnthropicTranslator(req, sink, report),
    buildCountRequest: (req) => {
      const body = anthropicBody(req);
      const count: Record<string, unknown> = {};
      for (const key of ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking'])
        if (body[key] !== undefined) count[key] = body[key];
      return {
        path: '/v1/messages/count_tokens',
        headers: { 'x-api-key': config.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        body: count,
      };
    },
    readCount: readInputTokens,
  };
}
