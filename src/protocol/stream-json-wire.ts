/**
 * Wire types for agy's stream-json protocol, exactly as agy writes them (snake_case).
 *
 * Source of truth: docs/reference/stream-json.md (each fact with the capture behind it).
 * Every object is "loose": fields agy adds later pass through untouched, so a newer agy never breaks parsing.
 * The schemas are used by tests and the simulator to check that captures and our own output stay true to the
 * wire; the hot parse path does not run them (see `parse-line.ts`).
 */
import { z } from 'zod/v4';

/** Token usage as agy reports it on DONE `agent_response` steps and on `result` (docs/reference/stream-json.md#usage-fields). */
export const WireUsageSchema = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  /** A subset of `output_tokens`. */
  thinking_tokens: z.number().optional(),
  /** Reported separately from `input_tokens` (not a subset of it). */
  cache_read_tokens: z.number().optional(),
  /** `input_tokens + output_tokens`. */
  total_tokens: z.number().optional(),
});
/** A `usage` object as agy sends it. */
export type WireUsage = z.infer<typeof WireUsageSchema>;

/** The `init` payload: the first line agy writes, before any input (docs/reference/stream-json.md#init-line). */
export const WireInitSchema = z.looseObject({
  conversation_id: z.string().optional(),
  cwd: z.string().optional(),
  model: z.string().optional(),
  tools: z.array(z.string()).optional(),
  permission_mode: z.string().optional(),
  /** The `--agent` name, echoed even when no such agent exists (agy-real/jdiazromeral-agy-plugin-cc/agent_fallback-*). */
  agent: z.string().optional(),
});
/** The `init` payload as agy sends it. */
export type WireInit = z.infer<typeof WireInitSchema>;

/** A tool failure reported in `tool_info.error` (docs/reference/stream-json.md#tool-steps). */
export const WireToolErrorSchema = z.looseObject({
  type: z.string().optional(),
  message: z.string().optional(),
});
/** A tool step's `error` as agy sends it. */
export type WireToolError = z.infer<typeof WireToolErrorSchema>;

/** `tool_info` on `tool` steps. Parameter keys are PascalCase as agy sends them (`CommandLine`). */
export const WireToolInfoSchema = z.looseObject({
  name: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  output: z.unknown().optional(),
  error: z.union([WireToolErrorSchema, z.string()]).optional(),
});
/** A tool step's `tool_info` as agy sends it. */
export type WireToolInfo = z.infer<typeof WireToolInfoSchema>;

/** One subagent entry in `subagent_info` (docs/reference/stream-json.md#subagents). */
export const WireSubagentSchema = z.looseObject({
  type_name: z.string().optional(),
  role: z.string().optional(),
  conversation_id: z.string().optional(),
  log_uri: z.string().optional(),
  workspace_uris: z.array(z.string()).optional(),
  /** The prompt the parent gave the subagent. */
  initial_prompt: z.string().optional(),
});

/** Known step types. The set is open: unknown types are kept as sent (docs/reference/stream-json.md#step-types). */
export const KNOWN_STEP_TYPES = [
  'user_input',
  'agent_response',
  'tool',
  'system_message',
  'checkpoint',
  'subagent',
  /**
   * The end of a `--json-schema` turn on 1.3.1: ACTIVE as `step_type:"tool"`, `tool_name:"finish"`, then DONE as
   * `step_type:"finish"` with no `tool_info` (agy-real/littlebearapps-untether-agy-1.3.1/json_schema_finish.script).
   */
  'finish',
  /** A failed API call, a retry notice or a model error (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout). */
  'error_message',
  /** agy's own catch-all, e.g. a resume or agent fallback notice (agy-real/jdiazromeral-agy-plugin-cc/resume_fallback-*). */
  'unknown',
] as const;

/** Known step states; `ERROR` marks a failed tool or model step (docs/reference/stream-json.md#step-states). */
export const KNOWN_STEP_STATES = ['ACTIVE', 'DONE', 'ERROR'] as const;

/** The `step_update` payload. */
export const WireStepUpdateSchema = z.looseObject({
  conversation_id: z.string().optional(),
  step_index: z.number(),
  state: z.string(),
  step_type: z.string(),
  text_delta: z.string().optional(),
  duration_seconds: z.number().optional(),
  usage: WireUsageSchema.optional(),
  tool_name: z.string().optional(),
  tool_info: WireToolInfoSchema.optional(),
  subagent_info: z.looseObject({ subagents: z.array(WireSubagentSchema).optional() }).optional(),
  error: z.unknown().optional(),
});
/** A `step_update` payload as agy sends it (unknown fields kept). */
export type WireStepUpdate = z.infer<typeof WireStepUpdateSchema>;

/** One entry of `denied_actions`: a permission agy soft-denied in headless mode (docs/reference/stream-json.md#denied-actions). */
export const WireDeniedActionSchema = z.looseObject({
  action: z.string().optional(),
  display_name: z.string().optional(),
});
/** One `denied_actions` entry as agy sends it. */
export type WireDeniedAction = z.infer<typeof WireDeniedActionSchema>;

/** Terminal `result` statuses seen in the wild; the set is open (docs/reference/stream-json.md#result-statuses). */
export const KNOWN_RESULT_STATUSES = [
  'SUCCESS',
  'ERROR',
  'CANCELED',
  'INTERRUPTED',
  'INVALID',
  'WAITING',
  'RUNNING',
] as const;

/**
 * The `result` payload, one per turn. `usage`, `num_turns` and `duration_seconds` are cumulative over the whole
 * conversation, earlier processes included; `response` is the turn's last text (docs/reference/stream-json.md#cumulative-results).
 */
export const WireResultSchema = z.looseObject({
  conversation_id: z.string().optional(),
  status: z.string(),
  response: z.string().optional(),
  /** Normally a string; one parser also accepts `{type, message}`. */
  error: z
    .union([z.string(), z.looseObject({ type: z.string().optional(), message: z.string().optional() })])
    .optional(),
  duration_seconds: z.number().optional(),
  num_turns: z.number().optional(),
  usage: WireUsageSchema.optional(),
  denied_actions: z.array(WireDeniedActionSchema).optional(),
  /** Present when `--json-schema` was given. */
  structured_output: z.unknown().optional(),
  /** A slash command's result, repeated from the `command_result` event (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota.stdout). */
  command: z.lazy(() => WireCommandSchema).optional(),
});
/** A `result` payload as agy sends it (unknown fields kept). */
export type WireResult = z.infer<typeof WireResultSchema>;

/**
 * A slash command's result: `{name, data}`, where `data` is command-specific (`/model` → the model, `/usage` →
 * quota groups). Verbatim in agy-real/jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson.
 */
export const WireCommandSchema = z.looseObject({
  name: z.string(),
  data: z.unknown().optional(),
});
/** A `command_result` payload as agy sends it. */
export type WireCommand = z.infer<typeof WireCommandSchema>;

const InitEnvelopeSchema = z.looseObject({
  event: z.literal('init'),
  conversation_id: z.string().optional(),
  init: WireInitSchema,
});
const StepUpdateEnvelopeSchema = z.looseObject({
  event: z.literal('step_update'),
  conversation_id: z.string().optional(),
  step_update: WireStepUpdateSchema,
});
const ResultEnvelopeSchema = z.looseObject({
  event: z.literal('result'),
  conversation_id: z.string().optional(),
  result: WireResultSchema,
});
// The payload sits under `command`, not `command_result` (agy-real/jdiazromeral-agy-plugin-cc/command_result-*).
const CommandEnvelopeSchema = z.looseObject({
  event: z.literal('command_result'),
  conversation_id: z.string().optional(),
  command: WireCommandSchema,
});
/** One stdout line agy writes, parsed: the envelopes this SDK understands. */
export type WireEnvelope =
  | z.infer<typeof InitEnvelopeSchema>
  | z.infer<typeof StepUpdateEnvelopeSchema>
  | z.infer<typeof ResultEnvelopeSchema>
  | z.infer<typeof CommandEnvelopeSchema>;
/**
 * The nested envelope: `{"event":"<name>","<name>":{…}}`; `conversation_id` may sit at the top level. Typed
 * as a plain `ZodType` so the declarations name no zod generic whose arity differs between zod 4 and the
 * `zod/v4` of zod 3.25.
 */
export const WireEnvelopeSchema: z.ZodType<WireEnvelope> = z.discriminatedUnion('event', [
  InitEnvelopeSchema,
  StepUpdateEnvelopeSchema,
  ResultEnvelopeSchema,
  CommandEnvelopeSchema,
]);

/** The event names this SDK understands. Anything else is passed through as unknown. */
export const KNOWN_EVENTS = ['init', 'step_update', 'result', 'command_result'] as const;
export type WireEventName = (typeof KNOWN_EVENTS)[number];

/** A text content block; agy accepts no other block type on stdin (docs/reference/stream-json.md#text-blocks-only). */
export interface WireTextBlock {
  type: 'text';
  text: string;
}

/** One user message line written to agy's stdin. */
export interface WireUserLine {
  /** Always `user`. */
  event: 'user';
  /** The message: text only (agy rejects other blocks on stdin). */
  message: {
    /** Always `user`. */
    role: 'user';
    /** The text: a string, or text blocks. */
    content: string | WireTextBlock[];
  };
}
