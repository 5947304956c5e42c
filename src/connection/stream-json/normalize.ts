/**
 * The one place where agy's snake_case wire objects become the SDK's camelCase public types.
 * Tolerant by design: missing or mistyped fields yield `undefined`, never a throw.
 */

import type { Step, SubagentInfo, ToolCall, ToolError, Usage } from '../../conversation/step.js';
import type { DeniedAction } from '../../conversation/turn-result.js';
import { isRecord } from '../../internal/guards.js';
import type { WireInit, WireResult, WireStepUpdate, WireUsage } from './wire.js';

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
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Converts wire usage. Returns `null` when absent or all zero (unknown, per agy-cli.md §F.4). */
export function usageFromWire(w: WireUsage | undefined): Usage | null {
  if (!isRecord(w)) return null;
  const inputTokens = num(w.input_tokens);
  const outputTokens = num(w.output_tokens);
  const thinkingTokens = num(w.thinking_tokens);
  const cacheReadTokens = num(w.cache_read_tokens);
  if (inputTokens === 0 && outputTokens === 0 && thinkingTokens === 0 && cacheReadTokens === 0) return null;
  return {
    inputTokens,
    outputTokens,
    thinkingTokens,
    cacheReadTokens,
    totalTokens: inputTokens + outputTokens,
  };
}

export function initFromWire(w: WireInit, topLevelConversationId: unknown): InitInfo {
  return {
    conversationId: str(topLevelConversationId) ?? str(w.conversation_id),
    cwd: str(w.cwd),
    model: str(w.model),
    tools: Array.isArray(w.tools) ? w.tools.filter((t): t is string => typeof t === 'string') : [],
    permissionMode: str(w.permission_mode),
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
  }));
}

/** The stable id of a tool call: `<conversationId>:<stepIndex>` (seed 001, "tool IDs are conversation + step_index"). */
export function toolCallId(conversationId: string | undefined, stepIndex: number): string {
  return `${conversationId ?? ''}:${stepIndex}`;
}

/** Converts a `step_update` payload. `fallbackConversationId` covers envelopes that carry it at the top level. */
export function stepFromWire(w: WireStepUpdate, fallbackConversationId: string | undefined): Step {
  const conversationId = str(w.conversation_id) ?? fallbackConversationId;
  const stepIndex = num(w.step_index);
  const state = str(w.state) ?? 'UNKNOWN';
  const type = str(w.step_type) ?? 'unknown';
  const step: Step = { conversationId, stepIndex, state, type, raw: w };
  const textDelta = str(w.text_delta);
  if (textDelta !== undefined) step.textDelta = textDelta;
  if (typeof w.duration_seconds === 'number') step.durationSeconds = w.duration_seconds;
  if (w.usage !== undefined) step.usage = usageFromWire(w.usage);
  const info = isRecord(w.tool_info) ? w.tool_info : undefined;
  if (type === 'tool' || info !== undefined || w.tool_name !== undefined) {
    const call: ToolCall = {
      id: toolCallId(conversationId, stepIndex),
      name: str(info?.name) ?? str(w.tool_name) ?? 'unknown',
      args: isRecord(info?.parameters) ? info.parameters : {},
      stepIndex,
      state,
    };
    if (info && 'output' in info && info.output !== undefined) call.output = info.output;
    const error = toolErrorFromWire(info?.error);
    if (error) call.error = error;
    step.tool = call;
  }
  const subagents = subagentsFromWire(w.subagent_info);
  if (subagents) step.subagents = subagents;
  return step;
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
