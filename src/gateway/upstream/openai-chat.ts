/**
 * OpenAI Chat Completions (and compatible servers: vLLM, llama.cpp, Ollama, OpenRouter, DeepSeek),
 * docs/reference/gateway-translation.md#openai-chat-completions. Tool-call argument deltas are accumulated
 * per `index`, tolerating a missing `index` and `id: ""`; calls are emitted whole, in index order, once
 * `finish_reason` arrives; the terminal chunk is held until the separate `include_usage` chunk or the end of
 * the stream, so the final Gemini chunk carries both.
 */
import { fromUpstreamStreamError, prematureEnd, upstreamErrorInfo } from '../errors.js';
import type { GeminiSink } from '../gemini-sink.js';
import type { UsageMetadata } from '../gemini-types.js';
import { type NormalizedPart, type NormalizedRequest, resultsFirst } from '../normalize-request.js';
import { sanitizeForOpenAI, sanitizeResponseSchema } from '../schema/sanitize.js';
import { packSignature, unpackSignature } from '../signature.js';
import {
  effortFor,
  geminiUsage,
  isOpenAIReasoningModel,
  num,
  obj,
  objects,
  originalName,
  parseArgs,
  parseJson,
  type StreamTranslator,
  type Upstream,
  type UpstreamConfig,
  type UpstreamRequest,
} from './upstream.js';

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
      const reasoning = packed?.p === 'chat' ? packed.b[0]?.reasoning_content : undefined;
      if (reasoning) message.reasoning_content = reasoning;
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

class ChatTranslator implements StreamTranslator {
  private readonly slots: Slot[] = [];
  private lastSlot: Slot | undefined;
  private finishReason: string | undefined;
  private usage: UsageMetadata | undefined;
  private reasoning = '';
  private model: string | undefined;

  constructor(
    private readonly req: NormalizedRequest,
    private readonly sink: GeminiSink,
  ) {}

  event(_event: string | undefined, data: string): void {
    if (this.sink.done) return;
    if (data.trim() === '[DONE]') {
      this.end();
      return;
    }
    const chunk = parseJson(data) as Record<string, unknown> | undefined;
    if (!chunk || typeof chunk !== 'object') return;
    if (chunk.error !== undefined) {
      const info = upstreamErrorInfo(chunk);
      this.sink.fail(fromUpstreamStreamError(info.type, info.message));
      return;
    }
    if (typeof chunk.model === 'string' && chunk.model.length > 0) this.model ??= chunk.model;
    this.sink.meta(this.model, typeof chunk.id === 'string' ? chunk.id : undefined);
    if (Object.keys(obj(chunk.usage)).length > 0)
      this.usage = this.mapUsage(chunk.usage as Record<string, unknown>);
    const choices = objects(chunk.choices);
    // Gemini has one candidate: with n > 1 only choice 0 is forwarded.
    for (const choice of choices) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = obj(choice.delta);
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning.length > 0) {
        this.reasoning += reasoning;
        if (this.req.thinking.includeThoughts) this.sink.thought(reasoning);
      }
      if (typeof delta.content === 'string' && delta.content.length > 0) this.emitText(delta.content);
      if (typeof delta.refusal === 'string' && delta.refusal.length > 0) this.emitText(delta.refusal);
      for (const tc of objects(delta.tool_calls)) this.toolDelta(tc);
      if (typeof choice.finish_reason === 'string' && this.finishReason === undefined) {
        this.finishReason = choice.finish_reason;
        this.flushCalls();
      }
    }
    // Usage after the finish chunk (include_usage) completes the turn; some servers put it on the finish chunk.
    if (this.finishReason !== undefined && this.usage !== undefined) this.complete();
  }

  end(): void {
    if (this.sink.done) return;
    if (this.finishReason === undefined) {
      this.sink.fail(prematureEnd('no finish_reason before end of stream'));
      return;
    }
    this.complete();
  }

  private signature(): string | undefined {
    if (this.reasoning.length === 0) return undefined;
    return packSignature({
      v: 1,
      p: 'chat',
      m: this.model ?? this.req.model,
      b: [{ reasoning_content: this.reasoning }],
    });
  }

  private emitText(text: string): void {
    this.sink.text(text);
  }

  private toolDelta(tc: Record<string, unknown>): void {
    const fn = obj(tc.function);
    const id = typeof tc.id === 'string' && tc.id.length > 0 ? tc.id : undefined;
    let slot: Slot | undefined;
    if (typeof tc.index === 'number') {
      slot = this.slots.find((s) => s.index === tc.index);
      if (!slot) {
        slot = { index: tc.index, id: id ?? '', name: '', args: '' };
        this.slots.push(slot);
      }
    } else if (id !== undefined && !this.slots.some((s) => s.id === id)) {
      // No index (Gemini's OpenAI-compatible endpoint): a new non-empty id opens a new call.
      slot = { index: this.slots.length, id, name: '', args: '' };
      this.slots.push(slot);
    } else {
      slot = (id !== undefined ? this.slots.find((s) => s.id === id) : undefined) ?? this.lastSlot;
      if (!slot) {
        slot = { index: this.slots.length, id: '', name: '', args: '' };
        this.slots.push(slot);
      }
    }
    if (id !== undefined && slot.id.length === 0) slot.id = id;
    if (typeof fn.name === 'string' && fn.name.length > 0 && slot.name.length === 0) slot.name = fn.name;
    if (typeof fn.arguments === 'string') slot.args += fn.arguments;
    this.lastSlot = slot;
  }

  private flushCalls(): void {
    const ordered = [...this.slots].sort((a, b) => a.index - b.index);
    this.slots.length = 0;
    let first = true;
    for (const slot of ordered) {
      const args = parseArgs(slot.args);
      if (args === undefined || slot.name.length === 0) {
        // An incomplete call (cut by max tokens) or broken JSON: Gemini CLI retries MALFORMED_FUNCTION_CALL.
        if (this.finishReason !== 'length') this.finishReason = 'malformed';
        continue;
      }
      const id = slot.id.length > 0 ? slot.id : `call_${slot.index}_${Date.now().toString(36)}`;
      this.sink.functionCall(
        { id, name: originalName(this.req, slot.name), args },
        first ? this.signature() : undefined,
      );
      first = false;
    }
  }

  private complete(): void {
    const reason =
      this.finishReason === 'malformed'
        ? 'MALFORMED_FUNCTION_CALL'
        : (FINISH[this.finishReason ?? ''] ?? 'OTHER');
    this.sink.finish(reason, this.usage ?? geminiUsage(0, 0, 0, 0));
  }

  private mapUsage(u: Record<string, unknown>): UsageMetadata {
    const prompt = num(u.prompt_tokens);
    const completion = num(u.completion_tokens);
    const cached = num((u.prompt_tokens_details as Record<string, unknown> | undefined)?.cached_tokens);
    const thoughts = num(
      (u.completion_tokens_details as Record<string, unknown> | undefined)?.reasoning_tokens,
    );
    const usage = geminiUsage(prompt, completion, cached, thoughts);
    if (typeof u.total_tokens === 'number') usage.totalTokenCount = u.total_tokens;
    return usage;
  }
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
    createTranslator: (req, sink) => new ChatTranslator(req, sink),
  };
}
