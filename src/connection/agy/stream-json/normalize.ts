/**
 * The one place where agy's snake_case wire objects become the SDK's camelCase public types.
 * Tolerant by design: missing or mistyped fields yield `undefined`, never a throw.
 */

import { isRecord } from '../../../internal/guards.js';
import type { CommandResult, Step, SubagentInfo, ToolCall, ToolError, Usage } from '../../../model/step.js';
import type { DeniedAction } from '../../../model/turn-result.js';
import type { WireInit, WireResult, WireStepUpdate, WireUsage } from '../../../protocol/stream-json-wire.js';
import { configuredServerName, unwrapMcpCall } from '../mcp-call.js';

/** Public view of agy's `init` event. */
export interface InitInfo {
  /** The conversation agy opened or resumed. */
  conversationId: string | undefined;
  /** agy's working directory. */
  cwd: string | undefined;
  /** The model, when `--model` was passed. */
  model: string | undefined;
  /** Built-in tool names agy offers. */
  tools: string[];
  /** `always-proceed` with `--dangerously-skip-permissions`, otherwise `request-review`. */
  permissionMode: string | undefined;
  /** The `--agent` name agy echoes (even for an agent that does not exist), when one was asked for. */
  agent: string | undefined;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** A count agy may legitimately send: finite and not negative. `1e400` parses to Infinity and is not one. */
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const USAGE_KEYS = ['input_tokens', 'output_tokens', 'thinking_tokens', 'cache_read_tokens', 'total_tokens'];

/**
 * Why a step or result payload carries a number no agy writes (non-finite, negative, or a step index that is not
 * a whole number), or `undefined` when its numbers are fine. Such a line is reported as malformed instead of
 * being coerced: an index of `1e400` read as 0 would make the step a duplicate and drop its usage.
 */
export function badNumber(w: Record<string, unknown>, kind: 'step' | 'result'): string | undefined {
  if (kind === 'step' && !(Number.isSafeInteger(w.step_index) && (w.step_index as number) >= 0))
    return `step_index ${String(w.step_index)} is not a step index`;
  if (w.duration_seconds !== undefined && !isCount(w.duration_seconds))
    return `duration_seconds ${String(w.duration_seconds)} is out of range`;
  if (isRecord(w.usage)) {
    for (const key of USAGE_KEYS) {
      const v = w.usage[key];
      if (v !== undefined && !isCount(v)) return `usage.${key} ${String(v)} is out of range`;
    }
  }
  return undefined;
}

/**
 * Converts wire usage. Returns `null` when absent, all zero (unknown, per docs/reference/stream-json.md#all-zero-usage) or carrying an
 * out-of-range count (see {@link badNumber}): a bad count is unknown, never read as zero.
 */
export function usageFromWire(w: WireUsage | undefined): Usage | null {
  if (!isRecord(w)) return null;
  const usage = readUsage(w);
  return usage === BAD_USAGE ? null : usage;
}

export function initFromWire(w: WireInit, topLevelConversationId: unknown): InitInfo {
  return {
    conversationId: str(topLevelConversationId) ?? str(w.conversation_id),
    cwd: str(w.cwd),
    model: str(w.model),
    tools: Array.isArray(w.tools) ? w.tools.filter((t): t is string => typeof t === 'string') : [],
    permissionMode: str(w.permission_mode),
    agent: str(w.agent),
  };
}

function toolErrorFromWire(e: unknown): ToolError | undefined {
  if (e === undefined || e === null) return undefined;
  if (typeof e === 'string') return { message: e };
  if (isRecord(e)) {
    const type = str(e.type);
    return { ...(type !== undefined && { type }), message: str(e.message) ?? JSON.stringify(e) };
  }
  return { message: String(e) };
}

function subagentsFromWire(w: unknown): SubagentInfo[] | undefined {
  if (!isRecord(w) || !Array.isArray(w.subagents)) return undefined;
  return w.subagents.filter(isRecord).map((s) => ({
    typeName: str(s.type_name),
    role: str(s.role),
    conversationId: str(s.conversation_id),
    logUri: str(s.log_uri),
    workspaceUris: Array.isArray(s.workspace_uris)
      ? s.workspace_uris.filter((u) => typeof u === 'string')
      : undefined,
    initialPrompt: str(s.initial_prompt),
  }));
}

/** The text of an `error_message` or `unknown` step, under whichever key agy put it. */
function stepMessage(w: Record<string, unknown>): string | undefined {
  for (const key of ['error_message', 'message', 'text', 'text_delta']) {
    const v = str(w[key]);
    if (v) return v;
  }
  const e = w.error;
  if (typeof e === 'string' && e) return e;
  if (isRecord(e)) return str(e.message) ?? str(e.error_message) ?? JSON.stringify(e);
  return undefined;
}

/** A `command_result` payload (`{name, data}`), or `undefined` when it has no name. */
export function commandFromWire(w: unknown): CommandResult | undefined {
  if (!isRecord(w) || typeof w.name !== 'string') return undefined;
  return { name: w.name, data: w.data };
}

/** The stable id of a tool call: `<conversationId>:<stepIndex>` (docs/reference/stream-json.md#tool-call-ids). */
export function toolCallId(conversationId: string | undefined, stepIndex: number): string {
  return `${conversationId ?? ''}:${stepIndex}`;
}

/**
 * Converts a `step_update` payload, or returns `undefined` when it carries a number no agy writes (the
 * checks of {@link badNumber}, made here while reading each field once). `fallbackConversationId` covers
 * envelopes that carry it at the top level.
 *
 * This is the hot path of a long turn, so each wire field is read once (reads of absent fields on objects
 * of many shapes cost more than building the step), and the step (and its tool call) is built in one
 * object literal with every field present (absent ones `undefined`): one hidden class for every step, no
 * field added after construction.
 */
export function stepFromWire(
  w: WireStepUpdate,
  fallbackConversationId: string | undefined,
): Step | undefined {
  const stepIndex = w.step_index;
  if (!(Number.isSafeInteger(stepIndex) && (stepIndex as number) >= 0)) return undefined;
  const duration = w.duration_seconds;
  if (duration !== undefined && !isCount(duration)) return undefined;
  const wireUsage = w.usage;
  let usage: Usage | null | undefined;
  if (wireUsage !== undefined) {
    usage = isRecord(wireUsage) ? readUsage(wireUsage) : null;
    if (usage === BAD_USAGE) return undefined;
  }
  // A state or type of another type than string cannot be placed (absent ones are tolerated as unknown).
  const wireState = w.state;
  const wireType = w.step_type;
  if (
    (wireState !== undefined && typeof wireState !== 'string') ||
    (wireType !== undefined && typeof wireType !== 'string')
  )
    return undefined;
  const wireConversationId = w.conversation_id;
  const conversationId = typeof wireConversationId === 'string' ? wireConversationId : fallbackConversationId;
  const state = wireState ?? 'UNKNOWN';
  const type = wireType ?? 'unknown';
  const textual = type !== 'error_message' && type !== 'unknown';
  const durationSeconds = duration as number | undefined;
  const wireInfo = w.tool_info;
  const info = isRecord(wireInfo) ? wireInfo : undefined;
  const toolName = w.tool_name;
  const subagentInfo = w.subagent_info;
  const step: FixedShape<Step> = {
    conversationId,
    stepIndex: stepIndex as number,
    state,
    type,
    textDelta: textual ? str(w.text_delta) : undefined,
    thoughtDelta: undefined,
    durationSeconds,
    usage,
    // `finish` (1.3.1 with --json-schema): the DONE update of a call that went ACTIVE as tool `finish`.
    tool:
      type === 'tool' || type === 'finish' || info !== undefined || toolName !== undefined
        ? (toolCallFromWire(
            info,
            toolName,
            type,
            conversationId,
            stepIndex as number,
            state,
            durationSeconds,
          ) as ToolCall)
        : undefined,
    subagents: subagentInfo !== undefined ? subagentsFromWire(subagentInfo) : undefined,
    message: textual ? undefined : stepMessage(w),
    command: undefined,
    subagent: undefined,
    repeat: undefined,
    plan: undefined,
    raw: w,
  };
  return step as Step;
}

/** What {@link readUsage} returns for a usage carrying a count no agy writes (the step is malformed). */
const BAD_USAGE: Usage = Object.freeze({
  inputTokens: -1,
  outputTokens: -1,
  thinkingTokens: -1,
  cacheReadTokens: -1,
  totalTokens: -1,
});

/**
 * A step's usage with each count read once: `null` when all zero (unknown), {@link BAD_USAGE} when a count is
 * out of range (see {@link badNumber}). The keys are {@link USAGE_KEYS}, read by name.
 */
function readUsage(u: Record<string, unknown>): Usage | null {
  const input = u.input_tokens;
  const output = u.output_tokens;
  const thinking = u.thinking_tokens;
  const cacheRead = u.cache_read_tokens;
  const total = u.total_tokens;
  if (
    (input !== undefined && !isCount(input)) ||
    (output !== undefined && !isCount(output)) ||
    (thinking !== undefined && !isCount(thinking)) ||
    (cacheRead !== undefined && !isCount(cacheRead)) ||
    (total !== undefined && !isCount(total))
  )
    return BAD_USAGE;
  const inputTokens = num(input);
  const outputTokens = num(output);
  const thinkingTokens = num(thinking);
  const cacheReadTokens = num(cacheRead);
  if (inputTokens === 0 && outputTokens === 0 && thinkingTokens === 0 && cacheReadTokens === 0) return null;
  return {
    inputTokens,
    outputTokens,
    thinkingTokens,
    cacheReadTokens,
    totalTokens: inputTokens + outputTokens,
  };
}

/** {@link Step} as built here: every optional field present, `undefined` when absent. */
type FixedShape<T> = { [K in keyof T]-?: T[K] | undefined };

function toolCallFromWire(
  info: Record<string, unknown> | undefined,
  toolName: unknown,
  type: string,
  conversationId: string | undefined,
  stepIndex: number,
  state: string,
  durationSeconds: number | undefined,
): FixedShape<ToolCall> {
  const wireName = str(info?.name) ?? str(toolName) ?? (type === 'finish' ? 'finish' : 'unknown');
  const parameters = info?.parameters;
  const wireArgs = isRecord(parameters) ? parameters : {};
  const mcp = unwrapMcpCall(wireName, wireArgs);
  return {
    id: toolCallId(conversationId, stepIndex),
    name: mcp?.toolName ?? wireName,
    args: mcp?.args ?? wireArgs,
    // The user's name for the server (`calc`, not agy's `agy-sdk_calc`); `wire` keeps agy's.
    mcpServer: mcp ? configuredServerName(mcp.agyServer) : undefined,
    wire: mcp ? { name: wireName, args: wireArgs } : undefined,
    stepIndex,
    state,
    output: info?.output,
    error: toolErrorFromWire(info?.error),
    durationSeconds,
    denied: undefined,
    title: undefined,
  };
}

/** Converts `denied_actions`. */
export function deniedFromWire(w: WireResult): DeniedAction[] {
  if (!Array.isArray(w.denied_actions)) return [];
  return w.denied_actions.filter(isRecord).map((d) => {
    const displayName = str(d.display_name);
    return {
      action: str(d.action) ?? 'unknown',
      ...(displayName !== undefined && { displayName }),
      source: 'agy' as const,
      deniedBy: { kind: 'agy' as const },
    };
  });
}

/** `result.error` as one line, whichever form agy used. */
export function resultErrorText(w: WireResult): string {
  const e: unknown = w.error;
  if (typeof e === 'string') return e;
  if (isRecord(e)) return str(e.message) ?? str(e.type) ?? JSON.stringify(e);
  return '';
}

/** The facts of a `result` line the SDK acts on, in camelCase. */
export interface ResultFacts {
  /** `num_turns`: cumulative over the conversation (earlier processes included). */
  numTurns: number | undefined;
  /** `duration_seconds`, when a finite number. */
  durationSeconds: number | undefined;
  /** `structured_output` as sent (still unvalidated; possibly JSON text). */
  structuredOutput: unknown;
  /** `response`, when a string. */
  response: string | undefined;
}

/** Reads the `result` fields the SDK uses; every field is undefined without a `result`. */
export function resultFacts(w: WireResult | null): ResultFacts {
  return {
    numTurns: typeof w?.num_turns === 'number' ? w.num_turns : undefined,
    durationSeconds:
      typeof w?.duration_seconds === 'number' && Number.isFinite(w.duration_seconds)
        ? w.duration_seconds
        : undefined,
    structuredOutput: w?.structured_output,
    response: typeof w?.response === 'string' ? w.response : undefined,
  };
}

/**
 * Gives an MCP tool call the name its author chose, when the served name was normalized (`resolve` maps agy's
 * server name and the served name back; `undefined` keeps the served name).
 */
export function withToolName(
  step: Step,
  resolve: ((agyServer: string, servedName: string) => string | undefined) | undefined,
): Step {
  const call = step.tool;
  if (!call?.mcpServer || !resolve) return step;
  const name = resolve(call.mcpServer, call.name);
  return name === undefined || name === call.name ? step : { ...step, tool: { ...call, name } };
}
