/**
 * Reasoning state carried across turns in `thoughtSignature`
 * (docs/reference/gateway-translation.md#thought-signature-carriage). Gemini CLI and agy drop thought parts,
 * merge text parts and keep only the signature on the first `functionCall` part
 * (docs/reference/gemini-clients.md#gemini-cli-history-handling), so that is where the upstream's opaque
 * reasoning (Anthropic signed thinking, Responses `encrypted_content`, Chat `reasoning_content`) travels:
 * `gw1.<base64url(JSON)>`. Foreign signatures (real Gemini ones, `skip_thought_signature_validator`) decode
 * to `undefined` and are ignored.
 */

/** The upstream family a packed signature belongs to. */
export type SignatureFamily = 'anthropic' | 'responses' | 'chat';

/** Anthropic thinking blocks, exactly as the API returned them (the signature covers their text). */
export type AnthropicThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/** A Responses reasoning item as it must be replayed with `store:false`. */
export interface ResponsesReasoningItem {
  /** Always `reasoning`. */
  type: 'reasoning';
  /** Summary parts as returned. */
  summary: unknown[];
  /** The final (`output_item.done`) encrypted reasoning, when the upstream sent it. */
  encrypted_content?: string;
  /** Readable reasoning content (`reasoning_text` parts), when there is no encrypted form (LM Studio). */
  content?: unknown[];
}

/** Chat Completions reasoning (DeepSeek / vLLM `reasoning_content`, OpenRouter `reasoning_details`). */
export interface ChatReasoning {
  /** The reasoning text to send back on the assistant message. */
  reasoning_content: string;
  /** OpenRouter's `reasoning_details`, merged per index (text, signature, encrypted data), sent back as is. */
  reasoning_details?: Record<string, unknown>[];
}

/** The decoded payload of a `gw1.` signature. */
export type PackedReasoning =
  | { v: 1; p: 'anthropic'; m: string; b: AnthropicThinkingBlock[] }
  | { v: 1; p: 'responses'; m: string; b: ResponsesReasoningItem[] }
  | { v: 1; p: 'chat'; m: string; b: ChatReasoning[] };

const PREFIX = 'gw1.';

/** Packs reasoning state into a `thoughtSignature` value. */
export function packSignature(payload: PackedReasoning): string {
  return PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/**
 * Decodes a signature; `undefined` for anything that is not ours or not for `family`. The model is not
 * compared: a pinned map may legitimately route one conversation to a renamed deployment of the same model.
 */
export function unpackSignature(
  value: string | undefined,
  family: SignatureFamily,
): PackedReasoning | undefined {
  if (!value?.startsWith(PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(
      Buffer.from(value.slice(PREFIX.length), 'base64url').toString('utf8'),
    ) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const p = parsed as { v?: unknown; p?: unknown; b?: unknown };
    if (p.v !== 1 || p.p !== family || !Array.isArray(p.b)) return undefined;
    return parsed as PackedReasoning;
  } catch {
    return undefined;
  }
}
