/**
 * The upstream-neutral request every upstream module translates from: what `normalizeRequest` makes of a
 * Gemini request (docs/reference/gateway-translation.md#pipeline-and-normalisation).
 */
import type { JsonSchema } from './schema/canonicalize.js';

/** One part of a normalized turn. */
export type NormalizedPart =
  | { kind: 'text'; text: string }
  | { kind: 'media'; mimeType: string; data: string }
  | { kind: 'url'; mimeType: string | undefined; uri: string }
  | { kind: 'call'; id: string; name: string; args: Record<string, unknown>; signature: string | undefined }
  | {
      kind: 'result';
      id: string;
      name: string;
      output: string;
      isError: boolean;
      media: { mimeType: string; data: string }[];
    };

/** One turn; `model` turns hold text and calls, `user` turns hold text, media and results. */
export interface NormalizedTurn {
  /** Who spoke. */
  role: 'user' | 'model';
  /** The parts, in order. */
  parts: NormalizedPart[];
  /** The first signature on a text part of a model turn (text-only turns carry reasoning there). */
  textSignature: string | undefined;
}

/** A tool declaration with a canonical JSON Schema. */
export interface NormalizedTool {
  /** The name sent upstream (sanitized). */
  name: string;
  /** Description, if any. */
  description: string | undefined;
  /** Canonical JSON Schema of the arguments. */
  parameters: JsonSchema;
}

/** The upstream-neutral request. */
export interface NormalizedRequest {
  /** Upstream model id (after the model map). */
  model: string;
  /** The Gemini model id the client asked for. */
  requestedModel: string;
  /** System instruction text. */
  system: string | undefined;
  /** Conversation turns. */
  turns: NormalizedTurn[];
  /** Function declarations. */
  tools: NormalizedTool[];
  /** `toolConfig.functionCallingConfig`. */
  toolChoice: { mode: 'AUTO' | 'ANY' | 'NONE'; allowed: string[] | undefined };
  /** Whether `googleSearch` was requested (mapped to upstream web search). */
  webSearch: boolean;
  /** Sampling and output parameters. */
  generation: {
    temperature?: number;
    topP?: number;
    topK?: number;
    maxOutputTokens?: number;
    stopSequences?: string[];
    seed?: number;
    presencePenalty?: number;
    frequencyPenalty?: number;
    responseMimeType?: string;
    responseSchema?: JsonSchema;
  };
  /** `thinkingConfig`. */
  thinking: { includeThoughts: boolean; budget: number | undefined; level: string | undefined };
  /** Upstream-safe tool name → the client's original name. */
  toolNames: Map<string, string>;
}

/** Tool results first, then everything else: both OpenAI and Anthropic require results right after the calls. */
export function resultsFirst(parts: NormalizedPart[]): NormalizedPart[] {
  return [...parts.filter((p) => p.kind === 'result'), ...parts.filter((p) => p.kind !== 'result')];
}
