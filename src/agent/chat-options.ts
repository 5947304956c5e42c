/** The options of one `chat` turn, and their check (shared by the Agent and the pool, which checks them first). */
import { Turn } from '../connection/connection.js';
import { type Content, contentParts } from '../content/content.js';
import { isSlashCommand } from '../content/slash-command.js';
import { ConfigError, UnsupportedError } from '../errors.js';
import { checkDuration } from '../internal/duration.js';
import {
  type InferResponseSchema,
  ResponseSchema,
  type ResponseSchemaInput,
} from '../model/response-schema.js';

/**
 * A turn's structured output type: its own `responseSchema`'s (`T`), else the agent's (`S`); `unknown` for a
 * JSON Schema or none.
 */
export type TurnOutput<S, T> = [T] extends [undefined] ? InferResponseSchema<S> : InferResponseSchema<T>;

/** Options of one `chat` turn. */
export interface ChatOptions {
  /**
   * Aborting it cancels this turn: a queued turn never runs, a running one is interrupted. Either way it
   * ends `canceled` and the session stays usable. An already aborted signal cancels the turn at once.
   */
  signal?: AbortSignal | undefined;
  /** A time limit for this turn only, in ms (overrides `AgentConfig.turnTimeoutMs`); past it the turn ends `timeout`. */
  turnTimeoutMs?: number | undefined;
  /**
   * A zod schema or JSON Schema for this turn's structured output only (overrides `AgentConfig.responseSchema`;
   * later turns go back to it). On agy this turn runs in a process relaunched with `--json-schema` on the same
   * conversation, and the next turn without one relaunches again.
   */
  responseSchema?: ResponseSchemaInput | undefined;
}

/** One turn's options, checked. */
export interface CheckedChatOptions {
  signal: AbortSignal | undefined;
  turnTimeoutMs: number | undefined;
  schema: ResponseSchema | undefined;
}

/** Checks one turn's options (throws `ConfigError` naming the field); the pool checks them before it picks an agent. */
export function checkChatOptions(options: ChatOptions): CheckedChatOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  const { signal, turnTimeoutMs, responseSchema } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new ConfigError('options.signal', 'must be an AbortSignal');
  checkDuration('options.turnTimeoutMs', turnTimeoutMs, { integer: true });
  let schema: ResponseSchema | undefined;
  try {
    schema = responseSchema === undefined ? undefined : ResponseSchema.from(responseSchema);
  } catch (err) {
    if (err instanceof ConfigError)
      throw new ConfigError(`options.${err.field}`, err.message.slice(err.field.length + 2));
    throw err;
  }
  return { signal, turnTimeoutMs, schema };
}

/**
 * One `chat` turn from its prompt and options, both checked (`ContentError`, `ConfigError`); slash commands
 * need the agy backend (`UnsupportedError`).
 */
export function turnOf(prompt: Content, options: ChatOptions, backend: 'agy' | 'acp'): Turn {
  const parts = contentParts(prompt);
  if (backend === 'acp' && parts.some(isSlashCommand))
    throw new UnsupportedError('SlashCommand', "agy's print-mode slash commands need the agy backend");
  const { signal, turnTimeoutMs, schema } = checkChatOptions(options);
  return new Turn(parts, { schema, timeoutMs: turnTimeoutMs, signal });
}
