/**
 * Public, idiomatic (camelCase) types for what happens in a conversation.
 * The wire types they come from live in `connection/stream-json/wire.ts`; `connection/stream-json/normalize.ts`
 * is the one place that converts between them.
 */
import type { WireStepUpdate } from '../connection/stream-json/wire.js';

/** Step types agy emits. The set is open: an unknown type is kept as the string agy sent. */
export type StepType =
  | 'user_input'
  | 'agent_response'
  | 'tool'
  | 'system_message'
  | 'checkpoint'
  | 'subagent'
  | (string & {});

/** Step states. `ERROR` marks a failed tool or model step. Unknown states are kept as sent. */
export type StepState = 'ACTIVE' | 'DONE' | 'ERROR' | (string & {});

/**
 * Token usage. Scopes are documented where each value is exposed.
 * `totalTokens = inputTokens + outputTokens`; `thinkingTokens` is part of `outputTokens`;
 * `cacheReadTokens` is reported separately from (not inside) `inputTokens`.
 */
export interface Usage {
  /** Prompt tokens, not counting cache reads. */
  inputTokens: number;
  /** Generated tokens, thinking included. */
  outputTokens: number;
  /** Thinking tokens (a part of `outputTokens`). */
  thinkingTokens: number;
  /** Tokens read from the prompt cache, separate from `inputTokens`. */
  cacheReadTokens: number;
  /** `inputTokens + outputTokens`. */
  totalTokens: number;
}

/** A tool failure as agy reports it. */
export interface ToolError {
  /** agy's error kind, e.g. `TOOL_ERROR`. */
  type?: string;
  /** Human-readable message, e.g. `exit status 1`. */
  message: string;
}

/** One subagent agy started (from `subagent_info`). */
export interface SubagentInfo {
  typeName?: string;
  role?: string;
  conversationId?: string;
  logUri?: string;
  workspaceUris?: string[];
}

/** One normalized `step_update`. */
export interface Step {
  /** The conversation the step belongs to. */
  conversationId: string | undefined;
  /** Position of the step in the conversation; stable across updates of the same step. */
  stepIndex: number;
  /** `ACTIVE` while running, then `DONE` or `ERROR`. */
  state: StepState;
  /** What kind of step this is. */
  type: StepType;
  /** New text of an `agent_response` step carried by this update (may be on the DONE update too). */
  textDelta?: string;
  /** Wall time the step took, on terminal updates. */
  durationSeconds?: number;
  /** Usage of this model step (on DONE `agent_response` updates); `null` when agy reported all zeros. */
  usage?: Usage | null;
  /** For `tool` steps: the call. */
  tool?: ToolCall;
  /** For `subagent` steps: the subagents. */
  subagents?: SubagentInfo[];
  /** The update exactly as agy sent it, unknown fields included. */
  raw: WireStepUpdate;
}

/** A tool call the agent made. */
export interface ToolCall {
  /** Stable id: `<conversationId>:<stepIndex>`. */
  id: string;
  /** agy's tool name, e.g. `run_command`, or an MCP tool's name. */
  name: string;
  /** Arguments with agy's keys as sent (PascalCase for built-in tools, e.g. `CommandLine`). */
  args: Record<string, unknown>;
  /** The step the call belongs to. */
  stepIndex: number;
  /** `ACTIVE`, `DONE` or `ERROR` at the time this value was produced. */
  state: StepState;
  /** The tool output, once the step is DONE. */
  output?: unknown;
  /** The failure, when the step ended in ERROR. */
  error?: ToolError;
}
