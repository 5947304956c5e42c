/**
 * The AI SDK call settings agy can honour, mapped onto the agent's config, and a warning for each one it
 * cannot: agy picks its own sampling and runs its own tools, so nothing the caller set is dropped silently.
 */
import type { LanguageModelV4CallOptions, SharedV4Warning } from '@ai-sdk/provider';
import type { AgentConfig, Effort, JsonSchema } from '../index.js';

/** What a call's settings change in the agent's config and its turn. */
export interface MappedCallOptions {
  /** Fields laid over the model's settings for this call. */
  config: Partial<AgentConfig>;
  /** The turn's structured output schema (`responseFormat: { type: 'json', schema }`). */
  responseSchema: JsonSchema | undefined;
  /** One warning per setting agy does not honour as asked. */
  warnings: SharedV4Warning[];
}

/** Sampling settings agy has no flag for. */
const SAMPLING = ['temperature', 'topP', 'topK', 'presencePenalty', 'frequencyPenalty', 'seed'] as const;

/** The AI SDK's reasoning levels that are agy efforts (`none` and `provider-default` are handled apart). */
const EFFORTS: ReadonlySet<string> = new Set(['minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function unsupported(feature: string, details: string): SharedV4Warning {
  return { type: 'unsupported', feature, details };
}

/** Warnings for function and provider tools: agy calls only its own tools and the agent's `tool()`s. */
function toolWarnings(options: LanguageModelV4CallOptions): SharedV4Warning[] {
  const warnings: SharedV4Warning[] = [];
  for (const tool of options.tools ?? [])
    warnings.push(
      unsupported(
        `tool ${tool.name}`,
        tool.type === 'function'
          ? 'agy runs the tools it knows itself; declare the tool with an implementation in the settings (`tools: [tool(...)]`)'
          : `provider tool ${tool.id} is not an agy tool`,
      ),
    );
  if (options.toolChoice && options.toolChoice.type !== 'auto')
    warnings.push(
      unsupported(
        'toolChoice',
        `agy decides which tools to call; "${options.toolChoice.type}" was not applied`,
      ),
    );
  return warnings;
}

/** Maps the call's settings; `base` is the model's own config (its budget is kept). */
export function mapCallOptions(options: LanguageModelV4CallOptions, base: AgentConfig): MappedCallOptions {
  const warnings: SharedV4Warning[] = [];
  const config: Partial<AgentConfig> = {};
  for (const name of SAMPLING)
    if (options[name] !== undefined) warnings.push(unsupported(name, 'agy does not take sampling settings'));
  if (options.stopSequences?.length) warnings.push(unsupported('stopSequences', 'agy has no stop sequences'));
  if (options.maxOutputTokens !== undefined) {
    config.budget = { ...base.budget, maxOutputTokens: options.maxOutputTokens };
    warnings.push({
      type: 'compatibility',
      feature: 'maxOutputTokens',
      details:
        'enforced as the budget `maxOutputTokens`: the turn is interrupted once it is exceeded (finish reason `length`), not cut at the limit',
    });
  }
  const { reasoning } = options;
  if (reasoning === 'none') warnings.push(unsupported('reasoning', 'agy cannot turn thinking off'));
  else if (reasoning !== undefined && EFFORTS.has(reasoning)) config.effort = reasoning as Effort;
  // The AI SDK sends its own `user-agent` with every call: only the caller's headers deserve a warning.
  const headers = Object.entries(options.headers ?? {}).filter(
    ([name, value]) => value !== undefined && name.toLowerCase() !== 'user-agent',
  );
  if (headers.length > 0) warnings.push(unsupported('headers', 'agy is a local process, not an HTTP API'));
  warnings.push(...toolWarnings(options));
  let responseSchema: JsonSchema | undefined;
  if (options.responseFormat?.type === 'json') {
    if (options.responseFormat.schema) responseSchema = options.responseFormat.schema as JsonSchema;
    else
      warnings.push(
        unsupported(
          'responseFormat',
          'JSON output without a schema: agy needs a JSON Schema; the turn ran as text',
        ),
      );
  }
  return { config, responseSchema, warnings };
}
