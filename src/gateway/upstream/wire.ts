/**
 * What the upstreams send, one tolerant zod schema per event kind, written once next to its sources
 * (docs/reference/gateway-translation.md#reading-upstream-events). Objects are `looseObject` (unknown fields
 * kept), every field is optional and nullable (providers send `null` for absent), and a value of the wrong type
 * never throws: the event is read a second time with that field dropped, and the mismatch is reported.
 *
 * Each schema is built twice from one definition: a strict reading (its issues name the exact path when
 * something is off) and a tolerant one, where a wrong-typed field becomes `undefined` and a bad array element
 * is left out. In front of both, a shape check compiled from the strict schema (`shape-check.ts`) accepts an
 * event that already is its own strict parse without zod: the common case, one per upstream event.
 */
import { z } from 'zod/v4';
import { compileShapeCheck, type ShapeCheck } from './shape-check.js';

type Mode = 'strict' | 'tolerant';

// biome-ignore lint/suspicious/noExplicitAny: the builder is generic over any zod schema; its output is typed.
type AnySchema = z.ZodType<any>;

function builders(mode: Mode) {
  /** An optional, nullable field; tolerant mode drops a wrong-typed value. */
  const f = <T extends AnySchema>(schema: T): z.ZodOptional<z.ZodNullable<T>> => {
    const base = schema.nullable().optional();
    return (mode === 'strict' ? base : base.catch(undefined)) as z.ZodOptional<z.ZodNullable<T>>;
  };
  /** An optional array; tolerant mode keeps the elements that read and leaves the rest out. */
  const list = <T extends AnySchema>(item: T): z.ZodOptional<z.ZodNullable<z.ZodArray<T>>> => {
    if (mode === 'strict') return z.array(item).nullable().optional();
    return z
      .array(z.unknown())
      .nullable()
      .optional()
      .catch(undefined)
      .transform((values) =>
        values?.flatMap((v) => {
          const r = item.safeParse(v);
          return r.success ? [r.data as z.output<T>] : [];
        }),
      ) as unknown as z.ZodOptional<z.ZodNullable<z.ZodArray<T>>>;
  };
  const str = f(z.string());
  const num = f(z.number());
  return { f, list, str, num };
}

type Builders = ReturnType<typeof builders>;

function schemas(mode: Mode) {
  const b = builders(mode);
  return {
    chatChunk: chatChunkSchema(b),
    responsesEvent: responsesEventSchema(b),
    anthropicEvent: anthropicEventSchema(b),
  };
}

/** OpenAI Chat Completions chunks and compatible servers (vLLM, Groq, xAI, DeepSeek, Mistral, OpenRouter). */
function chatChunkSchema({ f, list, str, num }: Builders) {
  /** `delta.tool_calls[]`; `index` may be missing, `id` may be `""` on continuations. */
  const chatToolCall = z.looseObject({
    index: num,
    id: str,
    type: str,
    function: f(z.looseObject({ name: str, arguments: str })),
  });
  /** OpenRouter `reasoning_details[]`: `reasoning.text` (text + signature), `reasoning.summary`, `reasoning.encrypted`. */
  const reasoningDetail = z.looseObject({
    type: str,
    id: str,
    index: num,
    format: str,
    text: str,
    summary: str,
    data: str,
    signature: str,
  });
  /** Mistral (Magistral) content blocks: `{type:"text",text}` and `{type:"thinking",thinking:[{type:"text",text}]}`. */
  const contentBlock = z.looseObject({
    type: str,
    text: str,
    thinking: f(z.union([z.string(), z.array(z.looseObject({ type: str, text: str }))])),
  });
  const chatUsage = z.looseObject({
    prompt_tokens: num,
    completion_tokens: num,
    total_tokens: num,
    prompt_tokens_details: f(z.looseObject({ cached_tokens: num })),
    completion_tokens_details: f(z.looseObject({ reasoning_tokens: num })),
  });
  const chatChunk = z.looseObject({
    id: str,
    model: str,
    /** An in-stream error (OpenRouter puts it on a chunk; Groq sends `event: error` with only this). */
    error: f(z.unknown()),
    usage: f(chatUsage),
    choices: list(
      z.looseObject({
        index: num,
        finish_reason: str,
        delta: f(
          z.looseObject({
            content: f(z.union([z.string(), z.array(contentBlock)])),
            refusal: str,
            /** DeepSeek, xAI, vLLM. */
            reasoning_content: str,
            /** Groq, OpenRouter, Ollama. */
            reasoning: str,
            reasoning_details: list(reasoningDetail),
            tool_calls: list(chatToolCall),
          }),
        ),
      }),
    ),
  });
  return chatChunk;
}

/** OpenAI Responses events (OpenAI, Azure, LM Studio, xAI, GitHub Copilot). */
function responsesEventSchema({ f, list, str, num }: Builders) {
  const responsesItem = z.looseObject({
    id: str,
    type: str,
    call_id: str,
    name: str,
    arguments: str,
    encrypted_content: str,
    summary: f(z.array(z.unknown())),
    action: f(z.looseObject({ query: str })),
  });
  const responsesUsage = z.looseObject({
    input_tokens: num,
    output_tokens: num,
    total_tokens: num,
    input_tokens_details: f(z.looseObject({ cached_tokens: num })),
    output_tokens_details: f(z.looseObject({ reasoning_tokens: num })),
  });
  const responsesEvent = z.looseObject({
    type: str,
    item_id: str,
    output_index: num,
    delta: str,
    arguments: str,
    item: f(responsesItem),
    annotation: f(z.looseObject({ type: str, url: str, title: str })),
    response: f(
      z.looseObject({
        id: str,
        model: str,
        output: list(responsesItem),
        usage: f(responsesUsage),
        error: f(z.unknown()),
        incomplete_details: f(z.looseObject({ reason: str })),
      }),
    ),
    error: f(z.unknown()),
  });
  return responsesEvent;
}

/** Anthropic Messages events. */
function anthropicEventSchema({ f, str, num }: Builders) {
  const anthropicUsage = z.looseObject({
    input_tokens: num,
    output_tokens: num,
    cache_creation_input_tokens: num,
    cache_read_input_tokens: num,
    output_tokens_details: f(z.looseObject({ thinking_tokens: num })),
  });
  const anthropicEvent = z.looseObject({
    type: str,
    index: num,
    message: f(z.looseObject({ id: str, model: str, usage: f(anthropicUsage) })),
    content_block: f(
      z.looseObject({
        type: str,
        id: str,
        name: str,
        text: str,
        thinking: str,
        signature: str,
        data: str,
        content: f(z.array(z.unknown())),
      }),
    ),
    delta: f(
      z.looseObject({
        type: str,
        text: str,
        thinking: str,
        signature: str,
        partial_json: str,
        stop_reason: str,
        citation: f(z.looseObject({ url: str, title: str })),
      }),
    ),
    usage: f(anthropicUsage),
    error: f(z.unknown()),
  });
  return anthropicEvent;
}

const STRICT = schemas('strict');
const TOLERANT = schemas('tolerant');
const SHAPE: Record<WireKind, ShapeCheck> = {
  chatChunk: compileShapeCheck(STRICT.chatChunk),
  responsesEvent: compileShapeCheck(STRICT.responsesEvent),
  anthropicEvent: compileShapeCheck(STRICT.anthropicEvent),
};

/** The schemas themselves, strict and tolerant (for tests holding the shape checks equal to them). */
export const WIRE_SCHEMAS = { strict: STRICT, tolerant: TOLERANT } as const;

/** The event kinds there is a schema for. */
export type WireKind = keyof typeof STRICT;
/** A Chat Completions chunk as read. */
export type ChatChunk = z.output<typeof STRICT.chatChunk>;
/** One `choices[]` entry's delta. */
export type ChatDelta = NonNullable<NonNullable<ChatChunk['choices']>[number]['delta']>;
/** One `reasoning_details[]` entry. */
export type ReasoningDetail = NonNullable<ChatDelta['reasoning_details']>[number];
/** One `tool_calls[]` delta. */
export type ChatToolCallDelta = NonNullable<ChatDelta['tool_calls']>[number];
/** A Chat usage object. */
export type ChatUsage = NonNullable<ChatChunk['usage']>;
/** A Responses stream event as read. */
export type ResponsesEvent = z.output<typeof STRICT.responsesEvent>;
/** A Responses output item. */
export type ResponsesItem = NonNullable<ResponsesEvent['item']>;
/** A Responses `response` object. */
export type ResponsesResponse = NonNullable<ResponsesEvent['response']>;
/** An Anthropic stream event as read. */
export type AnthropicEvent = z.output<typeof STRICT.anthropicEvent>;

/** Receives what did not match its schema: `upstream chatChunk: choices.0.delta.content: expected …`. */
export type WireReporter = (message: string) => void;

/**
 * Reads one upstream JSON payload with the schema for `kind`. Never throws: a wrong-typed field is reported
 * (once per path per reader, so a long stream cannot flood the log) and read as absent; a payload that is not
 * an object at all is `undefined`.
 */
export function createWireReader(
  report?: WireReporter,
): <K extends WireKind>(kind: K, value: unknown) => z.output<(typeof STRICT)[K]> | undefined {
  const seen = new Set<string>();
  return (kind, value) => {
    // Already what the strict parse would return (loose objects keep every key): no copy, no zod.
    if (SHAPE[kind](value)) return value as z.output<(typeof STRICT)[typeof kind]>;
    const strict = STRICT[kind].safeParse(value);
    if (strict.success) return strict.data as z.output<(typeof STRICT)[typeof kind]>;
    for (const issue of strict.error.issues.slice(0, 3)) {
      const message = `upstream ${kind}: ${issue.path.join('.') || '(root)'}: ${issue.message}`;
      if (seen.has(message) || seen.size >= 32) continue;
      seen.add(message);
      report?.(message);
    }
    const tolerant = TOLERANT[kind].safeParse(value);
    return tolerant.success ? (tolerant.data as z.output<(typeof STRICT)[typeof kind]>) : undefined;
  };
}
