/**
 * Real token counts for OpenAI model families (docs/reference/gateway-translation.md#counting-tokens): gpt-4o,
 * gpt-4.1, gpt-5 and the o1/o3/o4 reasoning models all use the `o200k_base` encoding, which `gpt-tokenizer`
 * (pure JavaScript, no native code or download) ships. Its ranks are 2.4 MB of JavaScript that take about a
 * second to load on a loaded 2-core box and some 30 MB of heap, so they are imported on the first count that
 * needs them, never when the gateway starts. The package (30 MB unpacked) is an optional peer dependency: without
 * it these counts are the estimate, marked as such, and the gateway says once how to get real ones.
 */
import type { NormalizedRequest } from './normalize-request.js';
import { chatMessages } from './upstream/openai-chat.js';

/** The part of `gpt-tokenizer/encoding/o200k_base` used here. */
interface O200k {
  encodeChat(chat: readonly { role: string; content: string }[], model: 'gpt-4o'): number[];
  countTokens(text: string): number;
}

/** Whether `model` (a provider prefix such as `openai/` ignored) is an `o200k_base` OpenAI family. */
export function isO200kModel(model: string): boolean {
  return /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-5|o1|o3|o4)(\b|-|$)/i.test(model.replace(/^.*\//, ''));
}

let loading: Promise<O200k> | undefined;

/** Thrown when the optional peer `gpt-tokenizer` is not installed (the count falls back to the estimate). */
export class TokenizerMissingError extends Error {
  constructor(cause: unknown) {
    super('gpt-tokenizer is not installed (npm install gpt-tokenizer for real OpenAI token counts)', {
      cause,
    });
    this.name = 'TokenizerMissingError';
  }
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * The encoding, loaded once on first use. A missing package is remembered (`TokenizerMissingError` on every
 * later count, no new lookup); any other failed load is tried again by the next count.
 */
function o200k(): Promise<O200k> {
  loading ??= (import('gpt-tokenizer/encoding/o200k_base') as Promise<O200k>).catch((error: unknown) => {
    if (isModuleNotFound(error)) throw new TokenizerMissingError(error);
    loading = undefined;
    throw error;
  });
  return loading;
}

/** What a Chat message's `content` says, as text (images and files carry no text and are not counted). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: unknown; text?: unknown }) =>
      b.type === 'text' && typeof b.text === 'string' ? b.text : '',
    )
    .join('\n');
}

/**
 * The prompt of `req` as the Chat messages the model reads, counted with `o200k_base` and gpt-tokenizer's chat
 * framing (`encodeChat`: the tokens each message's role markers add). Tool calls count as their name and JSON
 * arguments, tool declarations as their JSON in a system message: close to, not exactly, OpenAI's own
 * rendering of them, which is not published.
 */
export async function countO200kTokens(req: NormalizedRequest): Promise<number> {
  const encoding = await o200k();
  const chat = chatMessages(req).map((m) => {
    const calls = Array.isArray(m.tool_calls)
      ? (m.tool_calls as { function: { name: string; arguments: string } }[])
          .map((c) => `${c.function.name}(${c.function.arguments})`)
          .join('\n')
      : '';
    const text = contentText(m.content);
    return { role: String(m.role), content: calls ? (text ? `${text}\n${calls}` : calls) : text };
  });
  if (req.tools.length > 0) chat.unshift({ role: 'system', content: JSON.stringify(req.tools) });
  return encoding.encodeChat(chat, 'gpt-4o').length;
}
