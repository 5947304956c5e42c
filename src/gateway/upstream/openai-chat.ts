/**
 * OpenAI Chat Completions (and compatible servers: vLLM, llama.cpp, Ollama, OpenRouter, DeepSeek),
 * docs/reference/gateway-translation.md#openai-chat-completions. Tool-call argument deltas are accumulated
 * per `index`, tolerating a missing `index` and `id: ""`; calls are emitted whole, in index order, once
 * `finish_reason` arrives; the terminal chunk is held until the separate `include_usage` chunk or the end of
 * the stream, so the final Gemini chunk carries both.
 */
import { type DeltaTemplate, deltaTemplate, matchDelta } from '../../internal/delta-template.js';
import { fromUpstreamStreamError, prematureEnd } from '../errors.js';
import type { GeminiSink } from '../gemini-sink.js';
import type { UsageMetadata } from '../gemini-types.js';
import { type NormalizedPart, type NormalizedRequest, resultsFirst } from '../normalize-request.js';
import { sanitizeForOpenAI, sanitizeResponseSchema } from '../schema/sanitize.js';
import { type ChatReasoning, packSignature, unpackSignature } from '../signature.js';
import {
  count,
  effortFor,
  geminiUsage,
  isOpenAIReasoningModel,
  NO_USAGE,
  originalName,
  parseArgs,
  parseJson,
  type StreamTranslator,
  type Upstream,
  type UpstreamConfig,
  type UpstreamRequest,
} from './upstream.js';
import {
  type ChatChunk,
  type ChatDelta,
  type ChatToolCallDelta,
  type ChatUsage,
  createWireReader,
  type ReasoningDetail,
  type WireReporter,
} from './wire.js';

type Message = Record<string, unknown>;

function userContent(parts: NormalizedPart[]): string | Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  for (const p of parts) {
    if (p.kind === 'text') blocks.push({ type: 'text', text: p.text });
    else if (p.kind === 'media') blocks.push(mediaBlock(p.mimeType, p.data));
    else if (p.kind === 'url') blocks.push({ type: 'image_url', image_url: { url: p.uri } });
  }
  if (blocks.every((b) => b.type === 'text')) return blocks.map((b) => b.text as string).join('\n');
  return blocks;
}

function mediaBlock(mimeType: string, data: string): Record<string, unknown> {
  if (mimeType === 'application/pdf')
    return { type: 'file', file: { filename: 'document.pdf', file_data: `data:${mimeType};base64,${data}` } };
  if (mimeType === 'audio/wav' || mimeType === 'audio/mpeg' || mimeType === 'audio/mp3')
    return { type: 'input_audio', input_audio: { data, format: mimeType === 'audio/wav' ? 'wav' : 'mp3' } };
  return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
}

/** Builds the Chat Completions `messages` array. */
export function chatMessages(req: NormalizedRequest): Message[] {
  const messages: Message[] = [];
  if (req.system !== undefined) messages.push({ role: 'system', content: req.system });
  for (const turn of req.turns) {
    if (turn.role === 'model') {
      const text = turn.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
      const calls = turn.parts.flatMap((p) => (p.kind === 'call' ? [p] : []));
      const message: Message = { role: 'assistant', content: text.length > 0 ? text : null };
      if (calls.length > 0) {
        message.tool_calls = calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        }));
      }
      const packed = unpackSignature(calls[0]?.signature ?? turn.textSignature, 'chat');
      const carried = packed?.p === 'chat' ? packed.b[0] : undefined;
      // OpenRouter takes its reasoning_details back as they came (signature included); others the text.
      if (carried?.reasoning_details && carried.reasoning_details.length > 0)
        message.reasoning_details = carried.reasoning_details;
      else if (carried?.reasoning_content) message.reasoning_content = carried.reasoning_content;
      messages.push(message);
      continue;
    }
    const ordered = resultsFirst(turn.parts);
    const media: Record<string, unknown>[] = [];
    for (const p of ordered) {
      if (p.kind !== 'result') continue;
      messages.push({ role: 'tool', tool_call_id: p.id, content: p.output });
      // Tool messages carry text only; images a tool returned follow as a user message.
      for (const m of p.media) media.push(mediaBlock(m.mimeType, m.data));
    }
    const rest = ordered.filter((p) => p.kind !== 'result');
    if (media.length > 0 || rest.length > 0) {
      const content = userContent(rest);
      const blocks =
        typeof content === 'string' ? (content ? [{ type: 'text', text: content }] : []) : content;
      const all = [...media, ...blocks];
      messages.push({
        role: 'user',
        content: all.every((b) => b.type === 'text') ? all.map((b) => b.text).join('\n') : all,
      });
    }
  }
  return messages;
}

function isOpenAIHost(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * The Chat Completions request body (sampling rules of
 * docs/reference/gateway-translation.md#parameter-gotchas applied).
 */
export function chatBody(req: NormalizedRequest, baseUrl: string): Record<string, unknown> {
  const openai = isOpenAIHost(baseUrl);
  const reasoning = isOpenAIReasoningModel(req.model);
  const g = req.generation;
  const body: Record<string, unknown> = {
    model: req.model,
    messages: chatMessages(req),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: sanitizeForOpenAI(t.parameters),
      },
    }));
    const { mode, allowed } = req.toolChoice;
    if (mode === 'NONE') body.tool_choice = 'none';
    else if (mode === 'ANY' && allowed?.length === 1)
      body.tool_choice = { type: 'function', function: { name: allowed[0] } };
    else if (mode === 'ANY') {
      body.tool_choice = 'required';
      if (allowed)
        body.tools = (body.tools as { function: { name: string } }[]).filter((t) =>
          allowed.includes(t.function.name),
        );
    } else body.tool_choice = 'auto';
  }
  if (!reasoning) {
    if (g.temperature !== undefined) body.temperature = g.temperature;
    if (g.topP !== undefined) body.top_p = g.topP;
  }
  // top_k is not a Chat Completions parameter: api.openai.com rejects it, compatible servers differ. Dropped.
  if (g.maxOutputTokens !== undefined)
    body[openai ? 'max_completion_tokens' : 'max_tokens'] = g.maxOutputTokens;
  if (g.stopSequences) body.stop = openai ? g.stopSequences.slice(0, 4) : g.stopSequences;
  if (g.seed !== undefined) body.seed = g.seed;
  if (g.presencePenalty !== undefined) body.presence_penalty = g.presencePenalty;
  if (g.frequencyPenalty !== undefined) body.frequency_penalty = g.frequencyPenalty;
  if (g.responseMimeType === 'application/json') {
    body.response_format = g.responseSchema
      ? {
          type: 'json_schema',
          json_schema: { name: 'response', schema: sanitizeResponseSchema(g.responseSchema), strict: false },
        }
      : { type: 'json_object' };
  }
  if (reasoning) {
    const effort = effortFor(req.thinking);
    if (effort !== undefined) body.reasoning_effort = effort;
  }
  return body;
}

interface Slot {
  index: number;
  id: string;
  name: string;
  args: string;
}

const FINISH: Record<string, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  function_call: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
};

/** OpenRouter `reasoning_details` merged per `index`: text deltas appended, the signature kept. */
type Detail = Record<string, unknown> & { type: string; index: number };

class ChatTranslator implements StreamTranslator {
  readonly #slots: Slot[] = [];
  #lastSlot: Slot | undefined;
  #finishReason: string | undefined;
  #usage: UsageMetadata | undefined;
  #reasoning = '';
  readonly #details: Detail[] = [];
  #model: string | undefined;
  #textStarted = false;
  readonly #read: ReturnType<typeof createWireReader>;
  readonly #req: NormalizedRequest;
  readonly #sink: GeminiSink;
  /** The last pure delta event, cut around its delta (see delta-template.ts), and what that delta is. */
  #template: DeltaTemplate | undefined;
  #templateThought = false;
  #templateId: string | undefined;
  /** Templates made and events they read: a provider whose every event differs stops paying for new ones. */
  #templatesMade = 0;
  #templateHits = 0;

  constructor(req: NormalizedRequest, sink: GeminiSink, report?: WireReporter) {
    this.#req = req;
    this.#sink = sink;
    this.#read = createWireReader(report);
  }

  event(event: string | undefined, data: string): void {
    if (this.#sink.done) return;
    if (data.length < 32 && data.trim() === '[DONE]') {
      this.end();
      return;
    }
    if (event === undefined && this.#template !== undefined) {
      const value = matchDelta(this.#template, data);
      if (value !== undefined) {
        // The template's event but for its delta: what the full read below would do with it.
        this.#templateHits++;
        this.#sink.meta(this.#model, this.#templateId);
        if (this.#templateThought) this.#thought(value);
        else this.#text(value);
        return;
      }
    }
    const parsed = parseJson(data);
    const chunk = this.#read('chatChunk', parsed);
    if (!chunk) return;
    if (event === undefined && chunk === parsed) this.#remember(data, chunk);
    // An error on a chunk (OpenRouter: `error.code: 400`) or as `event: error` (Groq: `status_code: 400`).
    if ((chunk.error !== undefined && chunk.error !== null) || event === 'error') {
      this.#sink.fail(fromUpstreamStreamError(chunk));
      return;
    }
    if (chunk.model) this.#model ??= chunk.model;
    this.#sink.meta(this.#model, chunk.id ?? undefined);
    if (chunk.usage) this.#usage = this.#mapUsage(chunk.usage);
    // Gemini has one candidate: with n > 1 only choice 0 is forwarded.
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      if (delta) this.#delta(delta);
      if (typeof choice.finish_reason === 'string' && this.#finishReason === undefined) {
        this.#finishReason = choice.finish_reason;
        this.#flushCalls();
      }
    }
    // Usage after the finish chunk (include_usage) completes the turn; some servers put it on the finish chunk.
    if (this.#finishReason !== undefined && this.#usage !== undefined) this.#complete();
  }

  /**
   * Makes `chunk` the template when it is a pure delta: one choice (index 0) with no finish, a delta of one
   * string field, no usage, no error. Only such events are read from a template, whose every other effect (the
   * model, the meta) repeats the template's own.
   */
  #remember(data: string, chunk: ChatChunk): void {
    if (this.#templatesMade >= 4 && this.#templateHits < this.#templatesMade * 4) return;
    if (chunk.usage || (chunk.error !== undefined && chunk.error !== null)) return;
    const choice = chunk.choices?.length === 1 ? chunk.choices[0] : undefined;
    if (!choice || (choice.index ?? 0) !== 0 || typeof choice.finish_reason === 'string') return;
    const delta = choice.delta;
    if (!delta) return;
    const keys = Object.keys(delta);
    const key = keys.length === 1 ? keys[0] : undefined;
    if (key !== 'content' && key !== 'reasoning_content' && key !== 'reasoning') return;
    if (typeof delta[key] !== 'string') return;
    const template = deltaTemplate(
      data,
      key,
      (p) => (p as { choices?: { delta?: Record<string, unknown> }[] }).choices?.[0]?.delta?.[key],
    );
    if (!template) return;
    this.#templatesMade++;
    this.#template = template;
    this.#templateThought = key !== 'content';
    this.#templateId = chunk.id ?? undefined;
  }

  end(): void {
    if (this.#sink.done) return;
    if (this.#finishReason === undefined) {
      this.#sink.fail(prematureEnd('no finish_reason before end of stream'));
      return;
    }
    this.#complete();
  }

  #delta(delta: ChatDelta): void {
    // Reasoning by every name in use (docs/reference/gateway-translation.md#openai-chat-completions):
    // OpenRouter's `reasoning_details` (which repeats its `reasoning` text) first, then `reasoning_content`
    // (DeepSeek, xAI), then `reasoning` (Groq, OpenRouter).
    if (delta.reasoning_details && delta.reasoning_details.length > 0) {
      for (const d of delta.reasoning_details) this.#detail(d);
    } else {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string') this.#thought(reasoning);
    }
    const content = delta.content;
    if (typeof content === 'string') this.#text(content);
    else if (Array.isArray(content)) {
      // Mistral (Magistral): a list of text and thinking blocks.
      for (const block of content) {
        if (block.type === 'thinking') {
          const t = block.thinking;
          this.#thought(typeof t === 'string' ? t : (t ?? []).map((p) => p.text ?? '').join(''));
        } else if (typeof block.text === 'string') this.#text(block.text);
      }
    }
    if (typeof delta.refusal === 'string') this.#text(delta.refusal);
    for (const tc of delta.tool_calls ?? []) this.#toolDelta(tc);
  }

  #thought(text: string): void {
    if (text.length === 0) return;
    this.#reasoning += text;
    if (this.#req.thinking.includeThoughts) this.#sink.thought(text);
  }

  #detail(d: ReasoningDetail): void {
    const type = d.type ?? 'reasoning.text';
    const index = d.index ?? 0;
    const text = d.text ?? d.summary ?? '';
    let merged = this.#details.find((m) => m.index === index && m.type === type);
    if (!merged) {
      merged = { ...stripNulls(d), type, index };
      if (typeof merged.text === 'string') merged.text = '';
      if (typeof merged.summary === 'string') merged.summary = '';
      this.#details.push(merged);
    }
    if (d.text) merged.text = `${typeof merged.text === 'string' ? merged.text : ''}${d.text}`;
    if (d.summary) merged.summary = `${typeof merged.summary === 'string' ? merged.summary : ''}${d.summary}`;
    if (d.signature) merged.signature = d.signature;
    if (d.data) merged.data = d.data;
    this.#thought(text);
  }

  #signature(): string | undefined {
    if (this.#reasoning.length === 0 && this.#details.length === 0) return undefined;
    const b: ChatReasoning = { reasoning_content: this.#reasoning };
    if (this.#details.length > 0) b.reasoning_details = this.#details.map((d) => ({ ...d }));
    return packSignature({ v: 1, p: 'chat', m: this.#model ?? this.#req.model, b: [b] });
  }

  #text(text: string): void {
    if (text.length === 0) return;
    // A text-only thinking turn carries its reasoning on the first text part
    // (docs/reference/gateway-translation.md#thought-signature-carriage); reasoning precedes the answer.
    const signature = this.#textStarted ? undefined : this.#signature();
    this.#textStarted = true;
    this.#sink.text(text, signature);
  }

  #toolDelta(tc: ChatToolCallDelta): void {
    const fn = tc.function;
    const id = typeof tc.id === 'string' && tc.id.length > 0 ? tc.id : undefined;
    let slot: Slot | undefined;
    if (typeof tc.index === 'number') {
      slot = this.#slots.find((s) => s.index === tc.index);
      if (!slot) {
        slot = { index: tc.index, id: id ?? '', name: '', args: '' };
        this.#slots.push(slot);
      }
    } else if (id !== undefined && !this.#slots.some((s) => s.id === id)) {
      // No index (Gemini's OpenAI-compatible endpoint): a new non-empty id opens a new call.
      slot = { index: this.#slots.length, id, name: '', args: '' };
      this.#slots.push(slot);
    } else {
      slot = (id !== undefined ? this.#slots.find((s) => s.id === id) : undefined) ?? this.#lastSlot;
      if (!slot) {
        slot = { index: this.#slots.length, id: '', name: '', args: '' };
        this.#slots.push(slot);
      }
    }
    if (id !== undefined && slot.id.length === 0) slot.id = id;
    if (typeof fn?.name === 'string' && fn.name.length > 0 && slot.name.length === 0) slot.name = fn.name;
    if (typeof fn?.arguments === 'string') slot.args += fn.arguments;
    this.#lastSlot = slot;
  }

  #flushCalls(): void {
    const ordered = [...this.#slots].sort((a, b) => a.index - b.index);
    this.#slots.length = 0;
    let first = true;
    for (const slot of ordered) {
      const args = parseArgs(slot.args);
      if (args === undefined || slot.name.length === 0) {
        // An incomplete call (cut by max tokens) or broken JSON: Gemini CLI retries MALFORMED_FUNCTION_CALL.
        if (this.#finishReason !== 'length') this.#finishReason = 'malformed';
        continue;
      }
      const id = slot.id.length > 0 ? slot.id : `call_${slot.index}_${Date.now().toString(36)}`;
      this.#sink.functionCall(
        { id, name: originalName(this.#req, slot.name), args },
        first ? this.#signature() : undefined,
      );
      first = false;
    }
  }

  #complete(): void {
    const reason =
      this.#finishReason === 'malformed'
        ? 'MALFORMED_FUNCTION_CALL'
        : (FINISH[this.#finishReason ?? ''] ?? 'OTHER');
    this.#sink.finish(reason, this.#usage ?? geminiUsage(NO_USAGE));
  }

  #mapUsage(u: ChatUsage): UsageMetadata {
    return geminiUsage({
      prompt: count(u.prompt_tokens),
      output: count(u.completion_tokens),
      cached: count(u.prompt_tokens_details?.cached_tokens),
      reasoning: count(u.completion_tokens_details?.reasoning_tokens),
      total: typeof u.total_tokens === 'number' ? u.total_tokens : undefined,
    });
  }
}

function stripNulls(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** The OpenAI Chat Completions upstream. */
export function openAIChatUpstream(config: UpstreamConfig): Upstream {
  return {
    kind: 'openai-chat',
    buildRequest(req): UpstreamRequest {
      return {
        path: '/chat/completions',
        headers: { authorization: `Bearer ${config.apiKey}`, accept: 'text/event-stream' },
        body: chatBody(req, config.baseUrl),
      };
    },
    createTranslator: (req, sink, report) => new ChatTranslator(req, sink, report),
  };
}
