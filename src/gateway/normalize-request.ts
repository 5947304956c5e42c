/**
 * A validated Gemini request → the upstream-neutral form every upstream module translates from
 * (docs/reference/gateway-translation.md#pipeline-and-normalisation): thought parts dropped, tool calls and
 * results paired **by id** (deterministic ids and FIFO-per-name pairing only when the client sent none),
 * function names made safe for OpenAI/Anthropic with a reverse map, schemas canonicalized, and Google
 * built-in tools either accepted (`googleSearch`) or refused
 * (docs/reference/gemini-clients.md#built-in-google-tools).
 */
import { createHash } from 'node:crypto';
import { GatewayError, invalidArgument } from './errors.js';
import type { GeminiRequestPart, GenerateContentRequest } from './gemini-types.js';
import { canonicalizeSchema, type JsonSchema } from './schema/canonicalize.js';

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

const SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const SAFE_ID = /^[a-zA-Z0-9_-]{1,128}$/;

/** An upstream-safe function name: kept when valid, else sanitized with a short hash of the original. */
export function safeToolName(name: string): string {
  if (SAFE_NAME.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 55)}_${hash}`;
}

function safeId(id: string): string {
  if (SAFE_ID.test(id)) return id;
  return `call_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

function textOfContent(content: { parts?: GeminiRequestPart[] | undefined } | undefined): string | undefined {
  const texts = (content?.parts ?? [])
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text);
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function resultOutput(response: Record<string, unknown> | null | undefined): {
  output: string;
  isError: boolean;
} {
  if (!response) return { output: '', isError: false };
  const keys = Object.keys(response);
  if (keys.length === 1 && typeof response.output === 'string')
    return { output: response.output, isError: false };
  if (keys.length === 1 && response.error !== undefined) {
    const err = response.error;
    return { output: `Error: ${typeof err === 'string' ? err : JSON.stringify(err)}`, isError: true };
  }
  return { output: JSON.stringify(response), isError: false };
}

const UNSUPPORTED_TOOLS: [string, string][] = [
  ['urlContext', 'urlContext is not supported by this gateway; fetch the URL locally instead'],
  ['codeExecution', 'codeExecution is not supported by this gateway'],
  ['googleMaps', 'googleMaps is not supported by this gateway'],
  ['fileSearch', 'fileSearch is not supported by this gateway'],
  ['computerUse', 'computerUse is not supported by this gateway'],
  ['googleSearchRetrieval', 'googleSearchRetrieval is not supported by this gateway; use googleSearch'],
];

const MODES = new Set(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']);

/** Normalizes a validated request. Throws `GatewayError` (400) for what no upstream can do. */
export function normalizeRequest(
  req: GenerateContentRequest,
  requestedModel: string,
  upstreamModel: string,
): NormalizedRequest {
  if (req.cachedContent !== undefined)
    throw invalidArgument('cachedContent', 'cached contents are not supported');
  const gen = req.generationConfig ?? {};
  if (gen.candidateCount !== undefined && gen.candidateCount > 1)
    throw invalidArgument('generationConfig.candidateCount', 'only one candidate is supported');

  const toolNames = new Map<string, string>();
  const nameFor = (original: string): string => {
    const safe = safeToolName(original);
    toolNames.set(safe, original);
    return safe;
  };

  let webSearch = false;
  const tools: NormalizedTool[] = [];
  for (const [ti, tool] of (req.tools ?? []).entries()) {
    for (const [key, message] of UNSUPPORTED_TOOLS) {
      if (tool[key] !== undefined) throw invalidArgument(`tools[${ti}].${key}`, message);
    }
    if (tool.googleSearch !== undefined) webSearch = true;
    for (const decl of tool.functionDeclarations ?? []) {
      const schema = decl.parametersJsonSchema ?? decl.parameters ?? { type: 'object', properties: {} };
      tools.push({
        name: nameFor(decl.name),
        description: decl.description,
        parameters: canonicalizeSchema(schema),
      });
    }
  }

  const turns: NormalizedTurn[] = [];
  // Calls without an id get a deterministic one; results without an id take the oldest open call of that name.
  const openByName = new Map<string, string[]>();
  for (const [ci, content] of req.contents.entries()) {
    const role: 'user' | 'model' = content.role === 'model' ? 'model' : 'user';
    const parts: NormalizedPart[] = [];
    let textSignature: string | undefined;
    for (const [pi, part] of content.parts.entries()) {
      if (part.thought === true) continue;
      if (part.functionCall) {
        const call = part.functionCall;
        const id = call.id && call.id.length > 0 ? safeId(call.id) : `call_${ci}_${pi}`;
        const queue = openByName.get(call.name) ?? [];
        queue.push(id);
        openByName.set(call.name, queue);
        parts.push({
          kind: 'call',
          id,
          name: nameFor(call.name),
          args: call.args ?? {},
          signature: part.thoughtSignature,
        });
      } else if (part.functionResponse) {
        const fr = part.functionResponse;
        const queue = openByName.get(fr.name) ?? [];
        let id: string;
        if (fr.id && fr.id.length > 0) {
          id = safeId(fr.id);
          const at = queue.indexOf(id);
          if (at >= 0) queue.splice(at, 1);
        } else {
          id = queue.shift() ?? `call_${ci}_${pi}`;
        }
        const { output, isError } = resultOutput(fr.response);
        const media = (fr.parts ?? []).flatMap((p) => (p.inlineData ? [p.inlineData] : []));
        parts.push({ kind: 'result', id, name: nameFor(fr.name), output, isError, media });
      } else if (typeof part.text === 'string') {
        if (role === 'model' && textSignature === undefined && part.thoughtSignature)
          textSignature = part.thoughtSignature;
        if (part.text.length > 0) parts.push({ kind: 'text', text: part.text });
      } else if (part.inlineData) {
        parts.push({ kind: 'media', mimeType: part.inlineData.mimeType, data: part.inlineData.data });
      } else if (part.fileData) {
        const uri = part.fileData.fileUri;
        if (!/^https?:\/\//.test(uri))
          throw invalidArgument(
            `contents[${ci}].parts[${pi}].fileData.fileUri`,
            'only http(s) URLs are supported',
          );
        parts.push({ kind: 'url', mimeType: part.fileData.mimeType, uri });
      } else if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) {
        throw invalidArgument(`contents[${ci}].parts[${pi}]`, 'code execution parts are not supported');
      }
    }
    if (parts.length === 0) continue;
    const previous = turns.at(-1);
    // Consecutive same-role contents are legal in Gemini; upstreams want alternation, so merge them.
    if (previous && previous.role === role) {
      previous.parts.push(...parts);
      previous.textSignature ??= textSignature;
    } else {
      turns.push({ role, parts, textSignature });
    }
  }

  const fcc = req.toolConfig?.functionCallingConfig;
  const rawMode = fcc?.mode?.toUpperCase() ?? 'AUTO';
  if (!MODES.has(rawMode))
    throw invalidArgument('toolConfig.functionCallingConfig.mode', `unknown mode '${fcc?.mode}'`);
  const mode = rawMode === 'ANY' ? 'ANY' : rawMode === 'NONE' ? 'NONE' : 'AUTO';
  const allowed = fcc?.allowedFunctionNames?.map((n) => safeToolName(n));

  const thinking = gen.thinkingConfig ?? {};
  const responseSchemaSource = gen.responseJsonSchema ?? gen.responseSchema;
  const generation: NormalizedRequest['generation'] = {};
  if (gen.temperature !== undefined) generation.temperature = gen.temperature;
  if (gen.topP !== undefined) generation.topP = gen.topP;
  if (gen.topK !== undefined) generation.topK = gen.topK;
  if (gen.maxOutputTokens !== undefined) generation.maxOutputTokens = gen.maxOutputTokens;
  if (gen.stopSequences !== undefined && gen.stopSequences.length > 0)
    generation.stopSequences = gen.stopSequences;
  if (gen.seed !== undefined) generation.seed = gen.seed;
  if (gen.presencePenalty !== undefined) generation.presencePenalty = gen.presencePenalty;
  if (gen.frequencyPenalty !== undefined) generation.frequencyPenalty = gen.frequencyPenalty;
  if (gen.responseMimeType !== undefined) generation.responseMimeType = gen.responseMimeType;
  if (responseSchemaSource !== undefined)
    generation.responseSchema = canonicalizeSchema(responseSchemaSource);

  if (turns.length === 0)
    throw new GatewayError(400, "Invalid value at 'contents': contents must not be empty");

  return {
    model: upstreamModel,
    requestedModel,
    system: textOfContent(req.systemInstruction),
    turns,
    tools,
    toolChoice: { mode, allowed: allowed && allowed.length > 0 ? allowed : undefined },
    webSearch,
    generation,
    thinking: {
      includeThoughts: thinking.includeThoughts === true,
      budget: thinking.thinkingBudget,
      level: thinking.thinkingLevel?.toUpperCase(),
    },
    toolNames,
  };
}

/** Tool results first, then everything else: both OpenAI and Anthropic require results right after the calls. */
export function resultsFirst(parts: NormalizedPart[]): NormalizedPart[] {
  return [...parts.filter((p) => p.kind === 'result'), ...parts.filter((p) => p.kind !== 'result')];
}
