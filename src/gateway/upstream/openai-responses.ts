/**
 * OpenAI Responses API, docs/reference/gateway-translation.md#openai-responses. Argument deltas are
 * accumulated per `item_id` (falling back to `output_index`), every call of a parallel batch is kept (never
 * overwritten), and reasoning items are captured at `output_item.done` — the final `encrypted_content`, not
 * an earlier partial one — to be packed into the first call's `thoughtSignature` and replayed before the
 * calls on the next request (`store:false`).
 */
import { fromUpstreamStreamError, prematureEnd } from '../errors.js';
import type { GeminiSink } from '../gemini-sink.js';
import type { GroundingMetadata } from '../gemini-types.js';
import { type NormalizedPart, type NormalizedRequest, resultsFirst } from '../normalize-request.js';
import { sanitizeForOpenAI, sanitizeResponseSchema } from '../schema/sanitize.js';
import { packSignature, type ResponsesReasoningItem, unpackSignature } from '../signature.js';
import {
  count,
  effortFor,
  geminiUsage,
  isOpenAIReasoningModel,
  NO_USAGE,
  originalName,
  parseArgs,
  parseJson,
  readInputTokens,
  type StreamTranslator,
  type Upstream,
  type UpstreamConfig,
} from './upstream.js';
import {
  createWireReader,
  type ResponsesEvent,
  type ResponsesItem,
  type ResponsesResponse,
  type WireReporter,
} from './wire.js';

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
 * Model families known to have no reasoning: OpenAI rejects `include: ["reasoning.encrypted_content"]` for
 * them. Anything else (a reasoning family, a deployment name behind a model map, a proxy's alias) may reason.
 */
export function lacksReasoning(model: string): boolean {
  return /^(gpt-4|gpt-3\.5|chatgpt-4o|gpt-5(\.\d+)?-chat)/i.test(model.replace(/^.*\//, ''));
}

/**
 * The Responses request body (docs/reference/gateway-translation.md#openai-responses; sampling rules:
 * docs/reference/gateway-translation.md#parameter-gotchas). `include: ["reasoning.encrypted_content"]` is sent
 * whenever reasoning is possible (an effort asked for, or a model not known to lack it) unless
 * `encryptedReasoning` is `false`: with `store:false` it is the only way reasoning survives to the next turn.
 */
export function responsesBody(
  req: NormalizedRequest,
  options: { encryptedReasoning?: boolean | undefined } = {},
): Record<string, unknown> {
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
  const effort = reasoning ? effortFor(req.thinking) : undefined;
  if (!reasoning) {
    if (g.temperature !== undefined) body.temperature = g.temperature;
    if (g.topP !== undefined) body.top_p = g.topP;
  } else {
    const r: Record<string, unknown> = {};
    if (effort !== undefined) r.effort = effort;
    if (req.thinking.includeThoughts) r.summary = 'auto';
    if (Object.keys(r).length > 0) body.reasoning = r;
  }
  // store:false keeps no server state, so reasoning must travel back encrypted
  // (docs/reference/gateway-translation.md#thought-signature-carriage).
  const mayReason = reasoning || effort !== undefined || !lacksReasoning(req.model);
  if (options.encryptedReasoning ?? mayReason) body.include = ['reasoning.encrypted_content'];
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
  readonly #slots: Slot[] = [];
  readonly #reasoning: ResponsesReasoningItem[] = [];
  readonly #grounding: GroundingMetadata = { groundingChunks: [] };
  readonly #queries: string[] = [];
  #model: string | undefined;
  #emittedCalls = 0;
  #textStarted = false;
  #malformed = false;
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
    const e = this.#read('responsesEvent', parseJson(data));
    if (!e) return;
    const response = e.response ?? undefined;
    switch (e.type) {
      case 'response.created':
      case 'response.in_progress':
        if (response?.model) this.#model = response.model;
        this.#sink.meta(this.#model, response?.id ?? undefined);
        return;
      case 'response.output_item.added':
        this.#itemAdded(e);
        return;
      case 'response.function_call_arguments.delta': {
        const slot = this.#slotFor(e);
        if (slot && typeof e.delta === 'string') slot.args += e.delta;
        return;
      }
      case 'response.function_call_arguments.done': {
        const slot = this.#slotFor(e);
        if (slot && typeof e.arguments === 'string') slot.args = e.arguments;
        return;
      }
      case 'response.output_item.done':
        if (e.item) this.#itemDone(e.item);
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (typeof e.delta === 'string' && e.delta.length > 0) this.#text(e.delta);
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (this.#req.thinking.includeThoughts && typeof e.delta === 'string') this.#sink.thought(e.delta);
        return;
      case 'response.output_text.annotation.added':
        if (e.annotation?.type === 'url_citation' && e.annotation.url)
          this.#cite(e.annotation.url, e.annotation.title ?? undefined);
        return;
      case 'response.completed':
        this.#complete(response, 'STOP');
        return;
      case 'response.incomplete': {
        const reason = response?.incomplete_details?.reason;
        this.#complete(response, reason === 'content_filter' ? 'SAFETY' : 'MAX_TOKENS');
        return;
      }
      case 'response.failed':
        this.#sink.fail(
          fromUpstreamStreamError({ error: response?.error ?? { message: 'response.failed' } }),
        );
        return;
      case 'error':
        // `{"type":"error","code":…,"message":…}` or with the fields under `error` (the table reads both).
        this.#sink.fail(fromUpstreamStreamError(e.error ?? e));
        return;
      default:
        return;
    }
  }

  end(): void {
    if (!this.#sink.done) this.#sink.fail(prematureEnd('no response.completed before end of stream'));
  }

  #slotFor(e: ResponsesEvent): Slot | undefined {
    if (e.item_id) {
      const byId = this.#slots.find((s) => s.itemId === e.item_id);
      if (byId) return byId;
    }
    if (typeof e.output_index === 'number') return this.#slots.find((s) => s.outputIndex === e.output_index);
    return this.#slots.at(-1);
  }

  #itemAdded(e: ResponsesEvent): void {
    const item = e.item;
    if (item?.type !== 'function_call') return;
    this.#slots.push({
      itemId: item.id ?? '',
      outputIndex: typeof e.output_index === 'number' ? e.output_index : this.#slots.length,
      callId: item.call_id ?? '',
      name: item.name ?? '',
      args: item.arguments ?? '',
      emitted: false,
    });
  }

  #itemDone(item: ResponsesItem): void {
    if (item.type === 'reasoning') {
      // Every reasoning item is kept for replay (store:false keeps nothing server-side): the final
      // encrypted_content when the upstream sent one, else its readable content (LM Studio's reasoning_text).
      const content = (item as { content?: unknown }).content;
      const entry: ResponsesReasoningItem = {
        type: 'reasoning',
        summary: Array.isArray(item.summary) ? item.summary : [],
      };
      if (item.encrypted_content) entry.encrypted_content = item.encrypted_content;
      else if (Array.isArray(content) && content.length > 0) entry.content = content;
      if (entry.encrypted_content !== undefined || entry.content !== undefined || entry.summary.length > 0)
        this.#reasoning.push(entry);
      return;
    }
    if (item.type === 'web_search_call') {
      if (item.action?.query) this.#queries.push(item.action.query);
      return;
    }
    if (item.type !== 'function_call') return;
    let slot = this.#slots.find((s) => s.itemId === item.id && s.itemId !== '');
    if (!slot) {
      slot = { itemId: item.id ?? '', outputIndex: -1, callId: '', name: '', args: '', emitted: false };
      this.#slots.push(slot);
    }
    if (typeof item.arguments === 'string') slot.args = item.arguments;
    if (item.call_id) slot.callId = item.call_id;
    if (item.name) slot.name = item.name;
    this.#emit(slot);
  }

  #signature(): string | undefined {
    return this.#reasoning.length > 0
      ? packSignature({ v: 1, p: 'responses', m: this.#model ?? this.#req.model, b: this.#reasoning })
      : undefined;
  }

  #text(text: string): void {
    // A text-only reasoning turn carries its reasoning items on the first text part
    // (docs/reference/gateway-translation.md#thought-signature-carriage).
    const signature = this.#textStarted ? undefined : this.#signature();
    this.#textStarted = true;
    this.#sink.text(text, signature);
  }

  #emit(slot: Slot): void {
    if (slot.emitted) return;
    slot.emitted = true;
    const args = parseArgs(slot.args);
    if (args === undefined || slot.name.length === 0) {
      this.#malformed = true;
      return;
    }
    const signature = this.#emittedCalls === 0 ? this.#signature() : undefined;
    this.#emittedCalls += 1;
    const id = slot.callId || slot.itemId;
    this.#sink.functionCall({ id, name: originalName(this.#req, slot.name), args }, signature);
  }

  #cite(url: string, title: string | undefined): void {
    if (this.#grounding.groundingChunks.some((c) => c.web.uri === url)) return;
    this.#grounding.groundingChunks.push({ web: { uri: url, title: title ?? url } });
  }

  #complete(response: ResponsesResponse | undefined, reason: string): void {
    // Calls whose output_item.done never came (a proxy that drops it) are taken from the final output.
    for (const item of response?.output ?? []) {
      if (item.type === 'function_call' && !this.#slots.some((s) => s.emitted && s.itemId === item.id))
        this.#itemDone(item);
    }
    for (const slot of this.#slots) this.#emit(slot);
    const u = response?.usage;
    const usage = geminiUsage(
      u
        ? {
            prompt: count(u.input_tokens),
            output: count(u.output_tokens),
            cached: count(u.input_tokens_details?.cached_tokens),
            reasoning: count(u.output_tokens_details?.reasoning_tokens),
            total: typeof u.total_tokens === 'number' ? u.total_tokens : undefined,
          }
        : NO_USAGE,
    );
    const finish = this.#malformed && reason === 'STOP' ? 'MALFORMED_FUNCTION_CALL' : reason;
    const grounded = this.#grounding.groundingChunks.length > 0 || this.#queries.length > 0;
    if (this.#queries.length > 0) this.#grounding.webSearchQueries = this.#queries;
    this.#sink.finish(finish, usage, grounded ? this.#grounding : undefined);
  }
}

/** The OpenAI Responses upstream. */
export function openAIResponsesUpstream(config: UpstreamConfig): Upstream {
  return {
    kind: 'openai-responses',
    buildRequest: (req) => ({
      path: '/responses',
      headers: { authorization: `Bearer ${config.apiKey}`, accept: 'text/event-stream' },
      body: responsesBody(req, { encryptedReasoning: config.encryptedReasoning }),
    }),
    createTranslator: (req, sink, report) => new ResponsesTranslator(req, sink, report),
    buildCountRequest: (req) => {
      const body = responsesBody(req, { encryptedReasoning: false });
      const count: Record<string, unknown> = {};
      for (const key of [
        'model',
        'input',
        'instructions',
        'tools',
        'tool_choice',
        'parallel_tool_calls',
        'reasoning',
        'text',
      ])
        if (body[key] !== undefined) count[key] = body[key];
      return {
        path: '/responses/input_tokens',
        headers: { authorization: `Bearer ${config.apiKey}` },
        body: count,
      };
    },
    readCount: readInputTokens,
  };
}
