/**
 * Builders for agy's nested stream-json envelopes, `{"event":"<name>","<name>":{…}}`, with keys in the order
 * of the verbatim captures in shared/fixtures/agy-real (so diffs against captures stay readable).
 */
import { type Usage, zeroUsage } from './usage.js';

/**
 * The `init` line: `model` only when `--model` was passed, `agent` only with `--agent`, in the captured order
 * (model, cwd, agent, tools, permission_mode).
 */
export function initEnvelope(
  conversationId: string,
  init: {
    cwd: string;
    model: string | undefined;
    agent: string | undefined;
    tools: readonly string[];
    permissionMode: string;
    /** The `--json-schema` schema (1.3.1 echoes it in `init` and `result`). */
    jsonSchema?: object | undefined;
  },
): object {
  const payload: Record<string, unknown> = {};
  if (init.model !== undefined) payload.model = init.model;
  payload.cwd = init.cwd;
  if (init.agent !== undefined) payload.agent = init.agent;
  payload.tools = init.tools;
  payload.permission_mode = init.permissionMode;
  if (init.jsonSchema !== undefined) payload.json_schema = init.jsonSchema;
  return { event: 'init', conversation_id: conversationId, init: payload };
}

/** A `step_update` line; `fields` follow `conversation_id`, `step_index` in the order given. */
export function stepEnvelope(
  conversationId: string,
  stepIndex: number,
  fields: Record<string, unknown>,
): object {
  return {
    event: 'step_update',
    step_update: { conversation_id: conversationId, step_index: stepIndex, ...fields },
  };
}

/** One soft-denied permission in `result.denied_actions`. */
export interface DeniedAction {
  action: string;
  display_name: string;
}

/** What a `result` line reports. */
export interface ResultFields {
  conversationId: string;
  status: string;
  response: string;
  error?: string | undefined;
  durationSeconds: number;
  numTurns: number;
  usage: Usage;
  deniedActions?: DeniedAction[] | undefined;
  /** Present (even holding `null`) only when `structured_output` is to be written. */
  structured?: { value: unknown } | undefined;
  /** The `--json-schema` schema, echoed (1.3.1; agy-real/littlebearapps-untether-agy-1.3.1/json_schema_finish.script). */
  jsonSchema?: object | undefined;
  /** A slash command's payload (`{name, data}`), written as `command` last. */
  command?: object | undefined;
}

/** The `result` line that ends a turn (or a run that failed before its first turn). */
export function resultEnvelope(fields: ResultFields): object {
  const result: Record<string, unknown> = {
    conversation_id: fields.conversationId,
    status: fields.status,
    response: fields.response,
  };
  if (fields.error !== undefined) result.error = fields.error;
  result.duration_seconds = roundSeconds(fields.durationSeconds);
  result.num_turns = fields.numTurns;
  if (fields.structured !== undefined) result.structured_output = fields.structured.value;
  if (fields.jsonSchema !== undefined) result.json_schema = fields.jsonSchema;
  result.usage = { ...fields.usage };
  if (fields.deniedActions !== undefined && fields.deniedActions.length > 0) {
    result.denied_actions = fields.deniedActions;
  }
  if (fields.command !== undefined) result.command = fields.command;
  return { event: 'result', result };
}

/** The lone `result` agy writes when it fails before any turn (auth failure, invalid model). */
export function preTurnFailure(error: string): object {
  return resultEnvelope({
    conversationId: '',
    status: 'ERROR',
    response: '',
    error,
    durationSeconds: 0,
    numTurns: 0,
    usage: zeroUsage(),
  });
}

/** Seconds with nanosecond precision at most, like agy's Go float output. */
export function roundSeconds(seconds: number): number {
  return Math.round(seconds * 1e9) / 1e9;
}
