/**
 * Builders for agy's nested stream-json envelopes, `{"event":"<name>","<name>":{…}}`, with keys in the order
 * of the verbatim captures in agy-cli.md §D.3 (so diffs against captures stay readable).
 */
import { type Usage, zeroUsage } from './usage.js';

/** Built-in tool names agy lists in `init.tools` (agy-cli.md §D.3 "Tool steps"; `call_mcp_tool` from seeds). */
export const BUILTIN_TOOLS: readonly string[] = [
  'run_command',
  'view_file',
  'write_to_file',
  'replace_file_content',
  'list_dir',
  'search_web',
  'read_url_content',
  'invoke_subagent',
  'call_mcp_tool',
];

/** The `init` line. `model` appears only when `--model` was passed, as in agy. */
export function initEnvelope(
  conversationId: string,
  init: {
    cwd: string;
    model: string | undefined;
    permissionMode: string;
  },
): object {
  const payload: Record<string, unknown> = { cwd: init.cwd };
  if (init.model !== undefined) payload.model = init.model;
  payload.tools = BUILTIN_TOOLS;
  payload.permission_mode = init.permissionMode;
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
  result.usage = { ...fields.usage };
  if (fields.deniedActions !== undefined && fields.deniedActions.length > 0) {
    result.denied_actions = fields.deniedActions;
  }
  if (fields.structured !== undefined) result.structured_output = fields.structured.value;
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
