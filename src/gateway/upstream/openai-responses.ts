/**
 * OpenAI Responses API, docs/reference/gateway-translation.md#openai-responses. Argument deltas are
 * accumulated per `item_id` (falling back to `output_index`), every call of a parallel batch is kept (never
 * overwritten), and reasoning items are captured at `output_item.done` — the final `encrypted_content`, not
 * an earlier partial one — to be packed into the first call's `thoughtSignature` and replayed before the
 * calls on the next request (`store:false`).
 */
import { fromUpstreamStreamError, prematureEnd } from '../errors.js';
import type { GeminiSink } from '../gemini-sink.js';
import type { GroundingMetadata, UsageMetadata } from '../gemini-types.js';
import { type NormalizedPart, type NormalizedRequest, resultsFirst } from '../normalize-request.js';
import { sanitizeForOpenAI, sanitizeResponseSchema } from '../schema/sanitize.js';
import { packSignature, type ResponsesReasoningItem, unpackSignature } from '../signature.js';
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
} from './upstream.js';

type Item = Record<string, unknown>;

function inputContent(parts: NormalizedPart[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const p of parts) {
    if (p.kind === 'text') out.push({ type: 'input_text', text: p.text });
    else if (p.kind === 'media') out.push(mediaInput(p.mimeType, p.data));
    else if (p.kind === 'url') out.push({ type: 'input_image', image_url: p.uri });
  }
  return out;
}

function mediaInput(mimeType: string, data: string): Record<string, unknown> {
  if (mimeType.startsWith('image/'))
    return { type: 'input_image', image_url: `data:${mimeType};base64,${data}` };
  return { type: 'input_file', filename: 'document.pdf', file_data: `data:${mimeType};base64,${data}` };
}

/** Builds the Responses `input` items. */
export function responsesInput(req: NormalizedRequest): Item[] {
  const items: Item[] = [];
  for (const turn of req.turns) {
    if (turn.role === 'model') {
      const calls = turn.parts.flatMap((p) => (p.kind === 'call' ? [p] : []));
      const packed = unpackSignature(calls[0]?.signature ?? turn.textSignature, 'responses');
      if (packed?.p === 'responses') for (const r of packed.b) items.push({ ...r });
      const text = turn.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
      if (text.length > 0)
        items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
      for (const c of calls)
        items.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.args) });
      continue;
    }
    const ordered = resultsFirst(turn.parts);
    for (const p of ordered) {
      if (p.kind !== 'result') continue;
      const output =
        p.media.length > 0
          ? [{ type: 'input_text', text: p.output }, ...p.media.map((m) => mediaInput(m.mimeType, m.data))]
          : p.output;
      items.push({ type: 'function_call_output', call_id: p.id, output });
    }
    const content = inputContent(ordered.filter((p) => p.kind !== 'result'));
    if (content.length > 0) items.push({ type: 'message', role: 'user', content });
  }
  return items;
}

/**
 * The Responses request body (docs/reference/gateway-translation.md#openai-responses; sampling rules:
 * docs/reference/gateway-translation.md#parameter-gotchas).
 */
export function responsesBody(req: NormalizedRequest): Record<string, unknown> {
  const reasoning = isOpenAIReasoningModel(req.model);
  const g = req.generation;
  const body: Record<string, unknown> = {
    model: req.model,
    input: responsesInput(req),
    stream: true,
    store: false,
  };
  if (req.system !== undefined) body.instructions = req.system;
  const tools: Record<string, unknown>[] = req.tools.map((t) => ({
    type: 'function',
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    parameters: sanitizeForOpenAI(t.parameters),
    strict: false,
  }));
  if (req.webSearch) tools.push({ type: 'web_search' });
  if (tools.length > 0) {
    const { mode, allowed } = req.toolChoice;
    body.tools = tools;
    body.parallel_tool_calls = true;
    if (mode === 'NONE') body.tool_choice = 'none';
    else if (mode === 'ANY' && allowed?.length === 1)
      body.tool_choice = { type: 'function', name: allowed[0] };
    else if (mode === 'ANY' && allowed)
      body.tool_choice = {
        type: 'allowed_tools',
        mode: 'required',
        tools: allowed.map((name) => ({ type: 'function', name })),
      };
    else body.tool_choice = mode === 'ANY' ? 'required' : 'auto';
  }
  if (g.maxOutputTokens !== undefined) body.max_output_tokens = g.maxOutputTokens;
  if (!reasoning) {
    if (g.temperature !== undefined) body.temperature = g.temperature;
    if (g.topP !== undefined) body.top_p = g.topP;
  } else {
    const effort = effortFor(req.thinking);
    const r: Record<string, unknown> = {};
    if (effort !== undefined) r.effort = effort;
    if (req.thinking.includeThoughts) r.summary = 'auto';
    if (Object.keys(r).length > 0) body.reasoning = r;
    // store:false keeps no server state, so reasoning must travel back encrypted
    // (docs/reference/gateway-translation.md#thought-signature-carriage).
    body.include = ['reasoning.encrypted_content'];
  }
  // topK, stopSequences, seed: not Responses parameters; dropped
  // (docs/reference/gateway-translation.md#openai-responses).
  if (g.responseMimeType === 'application/json') {
    body.text = {
      format: g.responseSchema
        ? {
            type: 'json_schema',
            name: 'response',
            schema: sanitizeResponseSchema(g.responseSchema),
            strict: false,
          }
        : { type: 'json_object' },
    };
  }
  return body;
}

interface Slot {
  itemId: string;
  outputIndex: number;
  callId: string;
  name: string;
  args: string;
  emitted: boolean;
}

class ResponsesTranslator implements StreamTranslator {
  private readonly slots: Slot[] = [];
  private readonly reasoning: ResponsesReasoningItem[] = [];
  private readonly grounding: GroundingMetadata = { groundingChunks: [] };
  private readonly queries: string[] = [];
  private model: string | undefined;
  private emittedCalls = 0;

  constructor(
    private readonly req: NormalizedRequest,
    private readonly sink: GeminiSink,
  ) {}

  event(_event: string | undefined, data: string): void {
    if (this.sink.done) return;
    const e = parseJson(data) as Record<string, unknown> | undefined;
    if (!e || typeof e !== 'object') return;
    const type = e.type;
    const response = obj(e.response);
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        if (typeof response.model === 'string') this.model = response.model;
        this.sink.meta(this.model, typeof response.id === 'string' ? response.id : undefined);
        return;
      case 'response.output_item.added':
        this.itemAdded(e);
        return;
      case 'response.function_call_arguments.delta':
        this.argsDelta(e);
        return;
      case 'response.function_call_arguments.done': {
        const slot = this.slotFor(e);
        if (slot && typeof e.arguments === 'string') slot.args = e.arguments;
        return;
      }
      case 'response.output_item.done':
        this.itemDone(obj(e.item));
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (typeof e.delta === 'string') this.sink.text(e.delta);
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (this.req.thinking.includeThoughts && typeof e.delta === 'string') this.sink.thought(e.delta);
        return;
      case 'response.output_text.annotation.added':
        this.annotation(obj(e.annotation));
        return;
      case 'response.completed':
        this.complete(response, 'STOP');
        return;
      case 'response.incomplete': {
        const reason = (response.incomplete_details as Item | undefined)?.reason;
        this.complete(response, reason === 'content_filter' ? 'SAFETY' : 'MAX_TOKENS');
        return;
      }
      case 'response.failed': {
        const err = obj(response.error);
        this.sink.fail(
          fromUpstreamStreamError(str(err.code) ?? str(err.type), str(err.message) ?? 'response.failed'),
        );
        return;
      }
      case 'error': {
        const err = e.error === undefined ? e : obj(e.error);
        this.sink.fail(fromUpstreamStreamError(str(err.code) ?? str(err.type), str(err.message)));
        return;
      }
      default:
        return;
    }
  }

  end(): void {
    if (!this.sink.done) this.sink.fail(prematureEnd('no response.completed before end of stream'));
  }

  private slotFor(e: Item): Slot | undefined {
    const itemId = str(e.item_id);
    if (itemId) {
      const byId = this.slots.find((s) => s.itemId === itemId);
      if (byId) return byId;
    }
    if (typeof e.output_index === 'number') return this.slots.find((s) => s.outputIndex === e.output_index);
    return this.slots.at(-1);
  }

  private itemAdded(e: Item): void {
    const item = obj(e.item);
    if (item.type !== 'function_call') return;
    this.slots.push({
      itemId: str(item.id) ?? '',
      outputIndex: typeof e.output_index === 'number' ? e.output_index : this.slots.length,
      callId: str(item.call_id) ?? '',
      name: str(item.name) ?? '',
      args: str(item.arguments) ?? '',
      emitted: false,
    });
  }

  private argsDelta(e: Item): void {
    const slot = this.slotFor(e);
    if (slot && typeof e.delta === 'string') slot.args += e.delta;
  }

  private itemDone(item: Item | undefined): void {
    if (!item) return;
    if (item.type === 'reasoning') {
      if (typeof item.encrypted_content === 'string' && item.encrypted_content.length > 0) {
        this.reasoning.push({
          type: 'reasoning',
          summary: Array.isArray(item.summary) ? item.summary : [],
          encrypted_content: item.encrypted_content,
        });
      }
      return;
    }
    if (item.type === 'web_search_call') {
      const query = str((item.action as Item | undefined)?.query);
      if (query) this.queries.push(query);
      return;
    }
    if (item.type !== 'function_call') return;
    let slot = this.slots.find((s) => s.itemId === str(item.id) && s.itemId !== '');
    if (!slot) {
      slot = { itemId: str(item.id) ?? '', outputIndex: -1, callId: '', name: '', args: '', emitted: false };
      this.slots.push(slot);
    }
    if (typeof item.arguments === 'string') slot.args = item.arguments;
    if (str(item.call_id)) slot.callId = str(item.call_id) ?? slot.callId;
    if (str(item.name)) slot.name = str(item.name) ?? slot.name;
    this.emit(slot);
  }

  private emit(slot: Slot): void {
    if (slot.emitted) return;
    slot.emitted = true;
    const args = parseArgs(slot.args);
    if (args === undefined || slot.name.length === 0) {
      this.malformed = true;
      return;
    }
    const signature =
      this.emittedCalls === 0 && this.reasoning.length > 0
        ? packSignature({ v: 1, p: 'responses', m: this.model ?? this.req.model, b: this.reasoning })
        : undefined;
    this.emittedCalls += 1;
    const id = slot.callId || slot.itemId;
    this.sink.functionCall({ id, name: originalName(this.req, slot.name), args }, signature);
  }

  private malformed = false;

  private annotation(a: Item | undefined): void {
    if (a?.type !== 'url_citation' || typeof a.url !== 'string') return;
    if (this.grounding.groundingChunks.some((c) => c.web.uri === a.url)) return;
    this.grounding.groundingChunks.push({ web: { uri: a.url, title: str(a.title) ?? a.url } });
  }

  private complete(response: Item, reason: string): void {
    // Calls whose output_item.done never came (a proxy that drops it) are taken from the final output.
    const output = objects(response.output);
    for (const item of output) {
      if (item.type === 'function_call' && !this.slots.some((s) => s.emitted && s.itemId === str(item.id)))
        this.itemDone(item);
    }
    for (const slot of this.slots) this.emit(slot);
    const usage = this.usage(obj(response.usage));
    const finish = this.malformed && reason === 'STOP' ? 'MALFORMED_FUNCTION_CALL' : reason;
    const grounded = this.grounding.groundingChunks.length > 0 || this.queries.length > 0;
    if (this.queries.length > 0) this.grounding.webSearchQueries = this.queries;
    this.sink.finish(finish, usage, grounded ? this.grounding : undefined);
  }

  private usage(u: Item | undefined): UsageMetadata {
    if (!u) return geminiUsage(0, 0, 0, 0);
    const usage = geminiUsage(
      num(u.input_tokens),
      num(u.output_tokens),
      num((u.input_tokens_details as Item | undefined)?.cached_tokens),
      num((u.output_tokens_details as Item | undefined)?.reasoning_tokens),
    );
    if (typeof u.total_tokens === 'number') usage.totalTokenCount = u.total_tokens;
    return usage;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The OpenAI Responses upstream. */
export function openAIResponsesUpstream(config: UpstreamConfig): Upstream {
  return {
    kind: 'openai-responses',
    buildRequest: (req) => ({
      path: '/responses',
      headers: { authorization: `Bearer ${config.apiKey}`, accept: 'text/event-stream' },
      body: responsesBody(req),
    }),
    createTranslator: (req, sink) => new ResponsesTranslator(req, sink),
  };
}
