/**
 * `agy-sdk/ai-sdk`: agy as a language model of the Vercel AI SDK (`ai` 7, `@ai-sdk/provider` 4's
 * `LanguageModelV4`). `streamText({ model: agy('gemini-3-flash', { workspaces }) , prompt })` runs one agy turn
 * per call with the settings' tools, policies and hooks. `@ai-sdk/provider` is an optional peer used for types
 * only: this subpath loads nothing of the AI SDK at run time. See docs/guides/ai-sdk.md.
 */
import { AgyLanguageModel, type AgySettings, DEFAULT_MODEL_ID } from './language-model.js';

export { FAILED_STATUSES } from './finish.js';
export { AgyLanguageModel, type AgySettings, DEFAULT_MODEL_ID } from './language-model.js';

/** A provider made by {@link createAgy}: call it with a model id (and settings over its defaults). */
export interface AgyProvider {
  /** A model; `settings` are laid over the provider's defaults (shallowly). */
  (modelId?: string, settings?: AgySettings): AgyLanguageModel;
  /** The same as calling the provider. */
  languageModel(modelId?: string, settings?: AgySettings): AgyLanguageModel;
}

/**
 * A provider whose models share `defaults` (e.g. `agyPath`, `workspaces`, `policies`). Every model's settings
 * are validated as an `AgentConfig` when it is made (`ConfigError` naming the field).
 */
export function createAgy(defaults: AgySettings = {}): AgyProvider {
  const languageModel = (modelId: string = DEFAULT_MODEL_ID, settings: AgySettings = {}): AgyLanguageModel =>
    new AgyLanguageModel(modelId, { ...defaults, ...settings });
  return Object.assign(languageModel, { languageModel });
}

/**
 * An agy model for the AI SDK: `agy('gemini-3-flash', settings)`; `agy()` or `agy('default')` leaves the model
 * to agy. `settings` are an `AgentConfig` without `model`.
 */
export function agy(modelId: string = DEFAULT_MODEL_ID, settings: AgySettings = {}): AgyLanguageModel {
  return new AgyLanguageModel(modelId, settings);
}
