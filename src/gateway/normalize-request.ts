/**
 * A validated Gemini request → the upstream-neutral form every upstream module translates from
 * (docs/reference/gateway-translation.md#pipeline-and-normalisation): thought parts dropped, tool calls and
 * results paired **by id** (deterministic ids and FIFO-per-name pairing only when the client sent none),
 * function names made safe for OpenAI/Anthropic with a reverse map, schemas canonicalized, and Google
 * built-in tools either accepted (`googleSearch`) or refused
 * (docs/reference/gemini-clients.md#built-in-google-tools).
 */
import { GatewayError, invalidArgument } from './errors.js';
import type { GeminiRequestPart, GenerateContentRequest } from './gemini-types.js';
import { normalizeGeneration, normalizeThinking, normalizeToolChoice } from './normalize-generation.js';
import { normalizeTools } from './normalize-tools.js';
import { normalizeTurns } from './normalize-turns.js';
import type { NormalizedRequest } from './normalized.js';
import { toolNamer } from './tool-names.js';

export {
  type NormalizedPart,
  type NormalizedRequest,
  type NormalizedTool,
  type NormalizedTurn,
  resultsFirst,
} from './normalized.js';
export { safeToolName } from './tool-names.js';

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
  // The order of the steps is the order of their errors: tools, contents, tool config, generation config.
  const toolNames = new Map<string, string>();
  const nameFor = toolNamer(toolNames);
  const { tools, webSearch } = normalizeTools(req.tools, nameFor);
  const turns = normalizeTurns(req.contents, nameFor);
  const toolChoice = normalizeToolChoice(req.toolConfig);
  const generation = normalizeGeneration(gen);
  if (turns.length === 0)
    throw new GatewayError(400, "Invalid value at 'contents': contents must not be empty");
  return {
    model: upstreamModel,
    requestedModel,
    system: textOfContent(req.systemInstruction),
    turns,
    tools,
    toolChoice,
    webSearch,
    generation,
    thinking: normalizeThinking(gen),
    toolNames,
  };
}

function textOfContent(content: { parts?: GeminiRequestPart[] | undefined } | undefined): string | undefined {
  const texts = (content?.parts ?? [])
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text);
  return texts.length > 0 ? texts.join('\n') : undefined;
}
