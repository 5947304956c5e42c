/**
 * The agy language model for the AI SDK (`LanguageModelV4`). Each call runs one turn in an `Agent` of its own
 * (the settings' policies, hooks and tools apply as in any Agent) and closes it when the turn ends, so no agy
 * process outlives a call. A conversation goes on across calls by agy's conversation id, carried in the
 * answer's `providerMetadata.agy.conversationId` (docs/guides/ai-sdk.md#conversations).
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { ConversationNotFoundError } from '../connection/index.js';
import { Agent, type AgentConfig } from '../index.js';
import { mapCallOptions } from './call-options.js';
import { PROVIDER_KEY, type PromptPlan, planPrompt, replayHistory } from './prompt.js';
import { streamTurn } from './turn-stream.js';

/** The settings of an agy model: an `AgentConfig` without `model` (the model id names it). */
export type AgySettings = Omit<AgentConfig, 'model'>;

/** How many conversations' histories a model remembers to tell a continued history from an edited one. */
const MAX_RECORDS = 256;

/** The model id that leaves the model to agy (no `--model`). */
export const DEFAULT_MODEL_ID = 'default';

/** A started agent for one call, its turn's parts and its warnings. */
interface PreparedCall {
  agent: Agent;
  parts: ReturnType<typeof replayHistory>;
  plan: PromptPlan;
  warnings: SharedV4Warning[];
  /** The turn's structured output schema, when the call asked for JSON. */
  schema: ReturnType<typeof mapCallOptions>['responseSchema'];
}

/**
 * agy as an AI SDK language model. Created by `agy()` or `createAgy()`; `close()` ends the calls still
 * running (each call ends its own agy process anyway).
 */
export class AgyLanguageModel implements LanguageModelV4, AsyncDisposable {
  /** The provider spec this model implements. */
  readonly specificationVersion = 'v4';
  /** The AI SDK provider name. */
  readonly provider = 'agy';
  /** The agy model (`--model`), or `default` for agy's own choice. */
  readonly modelId: string;
  /** None: the AI SDK downloads URLs and passes the bytes, which agy gets as attachments. */
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly #config: AgentConfig;
  /** History lines of each conversation this model continued, after its last turn. */
  readonly #records = new Map<string, string[]>();
  readonly #running = new Set<{ abort: AbortController; done: Promise<void> }>();

  /** Validates `settings` as an `AgentConfig` (a `ConfigError` names the field); starts nothing. */
  constructor(modelId: string, settings: AgySettings = {}) {
    this.modelId = modelId;
    this.#config = { ...settings, ...(modelId !== DEFAULT_MODEL_ID && { model: modelId }) };
    // The Agent's own validation, so the settings mean exactly what they mean on an Agent.
    void new Agent(this.#config);
  }

  /** Runs the turn and returns its parts at once (see `doStream` for what is in them). */
  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { stream } = await this.doStream(options);
    const content: LanguageModelV4Content[] = [];
    let warnings: SharedV4Warning[] = [];
    let finish: { finishReason: LanguageModelV4FinishReason; usage: LanguageModelV4Usage } | undefined;
    let providerMetadata: SharedV4ProviderMetadata | undefined;
    let failure: unknown;
    let response: LanguageModelV4GenerateResult['response'];
    const texts = new Map<
      string,
      { type: 'text'; text: string; providerMetadata?: SharedV4ProviderMetadata }
    >();
    for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) {
      if (part.type === 'stream-start') warnings = part.warnings;
      else if (part.type === 'response-metadata') {
        const { type: _, ...metadata } = part;
        response = metadata;
      } else if (part.type === 'text-start') {
        const text = {
          type: 'text' as const,
          text: '',
          ...(part.providerMetadata && { providerMetadata: part.providerMetadata }),
        };
        texts.set(part.id, text);
        content.push(text);
      } else if (part.type === 'text-delta') {
        const text = texts.get(part.id);
        if (text) text.text += part.delta;
      } else if (part.type === 'tool-call' || part.type === 'tool-result') content.push(part);
      else if (part.type === 'error') failure ??= part.error;
      else if (part.type === 'finish') {
        finish = { finishReason: part.finishReason, usage: part.usage };
        providerMetadata = part.providerMetadata;
      }
    }
    if (failure !== undefined) throw failure;
    if (!finish) throw new Error('agy turn ended without a finish'); // unreachable: streamTurn always finishes
    return {
      content,
      ...finish,
      warnings,
      ...(providerMetadata && { providerMetadata }),
      ...(response && { response }),
    };
  }

  /**
   * Starts agy for the turn (rejecting when it cannot start), then streams the turn: text deltas, agy's tool
   * calls as provider-executed dynamic tool calls and results, and a `finish` with the mapped finish reason,
   * usage and `providerMetadata.agy`. A failed status adds an `error` part before the `finish`.
   */
  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const abort = new AbortController();
    const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, abort.signal]) : abort.signal;
    const prepared = await this.#prepare(options);
    let settle!: () => void;
    const entry = { abort, done: new Promise<void>((resolve) => (settle = resolve)) };
    this.#running.add(entry);
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start: (controller) => {
        const emit = (part: LanguageModelV4StreamPart): void => {
          try {
            controller.enqueue(part);
          } catch {
            // the reader cancelled: the turn is being cancelled too
          }
        };
        void this.#pump(prepared, { emit, signal, options }).finally(async () => {
          await prepared.agent.close().catch(() => undefined);
          this.#running.delete(entry);
          settle();
          try {
            controller.close();
          } catch {
            // already cancelled
          }
        });
      },
      cancel: () => abort.abort(),
    });
    return { stream, request: { body: { prompt: prepared.parts.filter((p) => typeof p === 'string') } } };
  }

  /** Ends every call still running (each is interrupted and its agy process ended); idempotent. */
  async close(): Promise<void> {
    const running = [...this.#running];
    for (const call of running) call.abort.abort();
    await Promise.all(running.map((call) => call.done));
  }

  /** `await using model = agy(...)` closes it on scope exit. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #pump(
    prepared: PreparedCall,
    run: {
      emit: (part: LanguageModelV4StreamPart) => void;
      signal: AbortSignal;
      options: LanguageModelV4CallOptions;
    },
  ): Promise<void> {
    const { agent, plan, schema } = prepared;
    run.emit({ type: 'stream-start', warnings: prepared.warnings });
    try {
      const response = await agent.chat(prepared.parts, {
        signal: run.signal,
        ...(schema && { responseSchema: schema }),
      });
      const id = agent.conversationId;
      run.emit({
        type: 'response-metadata',
        ...(id && { id }),
        modelId: this.modelId,
        timestamp: new Date(),
      });
      const { result, text } = await streamTurn(response, {
        emit: run.emit,
        json: schema !== undefined,
        includeRaw: run.options.includeRawChunks === true,
      });
      if (result.conversationId)
        this.#remember(result.conversationId, [...plan.history, ...plan.turn, `assistant: ${text}`]);
    } catch (error) {
      run.emit({ type: 'error', error });
    }
  }

  #remember(conversationId: string, history: string[]): void {
    this.#records.delete(conversationId);
    this.#records.set(conversationId, history);
    if (this.#records.size > MAX_RECORDS) this.#records.delete(this.#records.keys().next().value as string);
  }

  /** Picks the conversation (continued, or new with the history replayed) and starts its agent. */
  async #prepare(options: LanguageModelV4CallOptions): Promise<PreparedCall> {
    const plan = planPrompt(options.prompt);
    const mapped = mapCallOptions(options, this.#config);
    const warnings = [...plan.warnings, ...mapped.warnings];
    const config: AgentConfig = { ...this.#config, ...mapped.config, ...this.#system(plan, warnings) };
    const asked = callConversationId(options) ?? plan.conversationId;
    const record = asked ? this.#records.get(asked) : undefined;
    // A call naming the conversation without history continues it; a history must be the one agy holds.
    if (asked && (!record || plan.history.length === 0 || sameHistory(record, plan.history))) {
      const agent = new Agent({ ...config, conversationId: asked, resume: 'require' });
      try {
        await agent.start();
        return { agent, parts: plan.parts, plan, warnings, schema: mapped.responseSchema };
      } catch (error) {
        await agent.close().catch(() => undefined);
        if (!(error instanceof ConversationNotFoundError)) throw error;
        warnings.push(replayWarning(`agy does not know conversation ${asked}`));
      }
    } else if (asked) warnings.push(replayWarning(`the history differs from agy's conversation ${asked}`));
    else if (plan.history.length > 0)
      warnings.push(replayWarning('the history carries no agy conversation id'));
    const agent = new Agent(config);
    try {
      await agent.start();
    } catch (error) {
      await agent.close().catch(() => undefined);
      throw error;
    }
    return { agent, parts: replayHistory(plan), plan, warnings, schema: mapped.responseSchema };
  }

  /** The system messages, appended to the settings' `systemInstructions` (a string, or none). */
  #system(plan: PromptPlan, warnings: SharedV4Warning[]): Partial<AgentConfig> {
    if (plan.system === undefined) return {};
    const own = this.#config.systemInstructions;
    if (own === undefined) return { systemInstructions: plan.system };
    if (typeof own === 'string') return { systemInstructions: `${own}\n\n${plan.system}` };
    warnings.push({
      type: 'unsupported',
      feature: 'system message',
      details: 'the settings give `systemInstructions` as an object; put the system text there instead',
    });
    return {};
  }
}

/** `providerOptions.agy.conversationId` of the call itself: continue that conversation. */
function callConversationId(options: LanguageModelV4CallOptions): string | undefined {
  const id = options.providerOptions?.[PROVIDER_KEY]?.conversationId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function sameHistory(record: readonly string[], history: readonly string[]): boolean {
  return record.length === history.length && record.every((line, i) => line === history[i]);
}

function replayWarning(why: string): SharedV4Warning {
  return {
    type: 'other',
    message: `${why}: the history was replayed as text into a new agy conversation (its tool calls are not replayed)`,
  };
}
