/**
 * A request's `generationConfig` and `toolConfig`, normalized: the sampling and output parameters that were set,
 * the response schema canonicalized, the thinking settings, and the function-calling mode with its allowed names
 * made safe.
 */
import { invalidArgument } from './errors.js';
import type { GenerateContentRequest } from './gemini-types.js';
import type { NormalizedRequest } from './normalized.js';
import { canonicalizeSchema } from './schema/canonicalize.js';
import { safeToolName } from './tool-names.js';

type GenerationConfig = NonNullable<GenerateContentRequest['generationConfig']>;

const MODES = new Set(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']);

/** `toolConfig.functionCallingConfig`: `VALIDATED` and unspecified read as `AUTO`; an unknown mode is a 400. */
export function normalizeToolChoice(
  toolConfig: GenerateContentRequest['toolConfig'],
): NormalizedRequest['toolChoice'] {
  const fcc = toolConfig?.functionCallingConfig;
  const rawMode = fcc?.mode?.toUpperCase() ?? 'AUTO';
  if (!MODES.has(rawMode))
    throw invalidArgument('toolConfig.functionCallingConfig.mode', `unknown mode '${fcc?.mode}'`);
  const mode = rawMode === 'ANY' ? 'ANY' : rawMode === 'NONE' ? 'NONE' : 'AUTO';
  const allowed = fcc?.allowedFunctionNames?.map((n) => safeToolName(n));
  return { mode, allowed: allowed && allowed.length > 0 ? allowed : undefined };
}

/** The sampling and output parameters that were set (an empty `stopSequences` is none). */
export function normalizeGeneration(gen: GenerationConfig): NormalizedRequest['generation'] {
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
  return generation;
}

/** `thinkingConfig`: whether thoughts are wanted, the budget, and the level upper-cased. */
export function normalizeThinking(gen: GenerationConfig): NormalizedRequest['thinking'] {
  const thinking = gen.thinkingConfig ?? {};
  return {
    includeThoughts: thinking.includeThoughts === true,
    budget: thinking.thinkingBudget,
    level: thinking.thinkingLevel?.toUpperCase(),
  };
}
