/**
 * The Gemini REST wire types the gateway accepts and emits (docs/reference/gemini-api.md#request-body,
 * docs/reference/gemini-api.md#response-body). Requests are validated with zod after their structural keys
 * are canonicalized to camelCase: SDKs send camelCase, Google's curl docs and Python users send snake_case
 * (docs/reference/gemini-api.md#camel-and-snake-case-keys), and proxies that read only one form silently
 * dropped system prompts. Free-form payloads (`functionCall.args`, `functionResponse.response`, schemas) keep
 * their keys untouched.
 */
import { z } from 'zod/v4';
import { invalidArgument } from './errors.js';

const blob = z.looseObject({ mimeType: z.string(), data: z.string() });
const fileData = z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() });
const functionCall = z.looseObject({
  id: z.string().optional(),
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).nullish(),
});
const functionResponse = z.looseObject({
  id: z.string().optional(),
  name: z.string(),
  response: z.record(z.string(), z.unknown()).nullish(),
  parts: z.array(z.looseObject({ inlineData: blob.optional(), fileData: fileData.optional() })).optional(),
});

const part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: blob.optional(),
  fileData: fileData.optional(),
  functionCall: functionCall.optional(),
  functionResponse: functionResponse.optional(),
  executableCode: z.unknown().optional(),
  codeExecutionResult: z.unknown().optional(),
});

const content = z.looseObject({
  role: z.string().optional(),
  parts: z.array(part),
});

const jsonSchema = z.record(z.string(), z.unknown());

const functionDeclaration = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: jsonSchema.nullish(),
  parametersJsonSchema: z.unknown().optional(),
});

const tool = z.looseObject({
  functionDeclarations: z.array(functionDeclaration).optional(),
  googleSearch: z.unknown().optional(),
  googleSearchRetrieval: z.unknown().optional(),
  urlContext: z.unknown().optional(),
  codeExecution: z.unknown().optional(),
  fileSearch: z.unknown().optional(),
  googleMaps: z.unknown().optional(),
  computerUse: z.unknown().optional(),
});

const thinkingConfig = z.looseObject({
  includeThoughts: z.boolean().optional(),
  thinkingBudget: z.number().int().optional(),
  thinkingLevel: z.string().optional(),
});

const generationConfig = z.looseObject({
  temperature: z.number().optional(),
  topP: z.number().optional(),
  topK: z.number().optional(),
  candidateCount: z.number().int().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  stopSequences: z.array(z.string()).optional(),
  presencePenalty: z.number().optional(),
  frequencyPenalty: z.number().optional(),
  seed: z.number().int().optional(),
  responseMimeType: z.string().optional(),
  responseSchema: jsonSchema.optional(),
  responseJsonSchema: z.unknown().optional(),
  thinkingConfig: thinkingConfig.optional(),
});

const toolConfig = z.looseObject({
  functionCallingConfig: z
    .looseObject({
      mode: z.string().optional(),
      allowedFunctionNames: z.array(z.string()).optional(),
    })
    .optional(),
});

/** zod schema of a `GenerateContentRequest` (camelCase, after key canonicalization). */
export const generateContentRequestSchema = z.looseObject({
  contents: z.array(content),
  systemInstruction: content.partial({ parts: true }).optional(),
  tools: z.array(tool).optional(),
  toolConfig: toolConfig.optional(),
  generationConfig: generationConfig.optional(),
  safetySettings: z.unknown().optional(),
  cachedContent: z.string().optional(),
});

/** A validated Gemini `GenerateContentRequest`. */
export type GenerateContentRequest = z.infer<typeof generateContentRequestSchema>;
/** A Gemini `Content` of a request. */
export type GeminiContent = z.infer<typeof content>;
/** A Gemini `Part` of a request. */
export type GeminiRequestPart = z.infer<typeof part>;
/** A Gemini function declaration. */
export type GeminiFunctionDeclaration = z.infer<typeof functionDeclaration>;

/** A part the gateway emits. */
export interface GeminiPart {
  /** Text delta. */
  text?: string;
  /** `true` when `text` is a thought summary. */
  thought?: boolean;
  /**
   * Opaque reasoning state (docs/reference/gateway-translation.md#thought-signature-carriage); ours start
   * with `gw1.`.
   */
  thoughtSignature?: string;
  /** A whole function call. */
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
}

/** `usageMetadata` as Gemini reports it (docs/reference/gemini-api.md#usage-metadata). */
export interface UsageMetadata {
  /** Prompt tokens, cached ones included. */
  promptTokenCount: number;
  /** Output tokens, thoughts excluded. */
  candidatesTokenCount: number;
  /** prompt + candidates + thoughts. */
  totalTokenCount: number;
  /** Cached prompt tokens (a subset of `promptTokenCount`). */
  cachedContentTokenCount?: number;
  /** Reasoning/thinking tokens. */
  thoughtsTokenCount?: number;
}

/** Grounding metadata synthesized from upstream web-search citations. */
export interface GroundingMetadata {
  /** Search queries the upstream ran. */
  webSearchQueries?: string[];
  /** Cited pages. */
  groundingChunks: { web: { uri: string; title: string } }[];
}

/** One `GenerateContentResponse` chunk. */
export interface GeminiChunk {
  /** Always exactly one candidate. */
  candidates: {
    content: { role: 'model'; parts: GeminiPart[] };
    finishReason?: string;
    /** Why the candidate stopped, in words (set when an upstream error ended an answered stream). */
    finishMessage?: string;
    index: 0;
    groundingMetadata?: GroundingMetadata;
  }[];
  /** Usage, on the final chunk. */
  usageMetadata?: UsageMetadata;
  /** The upstream model that answered. */
  modelVersion?: string;
  /** The upstream response id. */
  responseId?: string;
}

// Structural objects whose snake_case keys are renamed. Everything else (args, response, schemas) is data.
const CONTAINERS = new Set([
  'contents',
  'parts',
  'systemInstruction',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'generationConfig',
  'thinkingConfig',
  'toolConfig',
  'functionCallingConfig',
  'tools',
  'functionDeclarations',
  'generateContentRequest',
]);

const camel = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Renames snake_case keys to camelCase in the structural parts of a request; when both spellings are present
 * the camelCase one wins (docs/reference/gemini-api.md#camel-and-snake-case-keys). `contents` given as one
 * object is wrapped in an array (docs/reference/gateway-translation.md#pipeline-and-normalisation).
 */
export function canonicalizeKeys(value: unknown, container = true): unknown {
  if (Array.isArray(value)) return value.map((v) => canonicalizeKeys(v, container));
  if (typeof value !== 'object' || value === null || !container) return value;
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [key, v] of entries) {
    const name = key.includes('_') ? camel(key) : key;
    if (name !== key && Object.hasOwn(value, name)) continue;
    out[name] = canonicalizeKeys(v, CONTAINERS.has(name));
  }
  if (out.contents !== undefined && !Array.isArray(out.contents) && typeof out.contents === 'object') {
    out.contents = [out.contents];
  }
  return out;
}

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(request body)';
}

/** Canonicalizes and validates a request body; a 400 naming the first bad field otherwise. */
export function parseGenerateContentRequest(body: unknown): GenerateContentRequest {
  const result = generateContentRequestSchema.safeParse(canonicalizeKeys(body));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw invalidArgument(fieldPath(issue?.path ?? []), issue?.message ?? 'invalid request');
}

/**
 * `countTokens` accepts `{contents}` or `{generateContentRequest: {...}}`
 * (docs/reference/gemini-api.md#counttokens-body).
 */
export function parseCountTokensRequest(body: unknown): GenerateContentRequest {
  const canon = canonicalizeKeys(body) as Record<string, unknown>;
  if (canon && typeof canon === 'object' && canon.generateContentRequest !== undefined) {
    return parseGenerateContentRequest(canon.generateContentRequest);
  }
  return parseGenerateContentRequest(canon);
}
