/**
 * Public, idiomatic (camelCase) types for what happens in a conversation.
 * The wire types they come from live in `protocol/stream-json-wire.ts`; `connection/agy/stream-json/normalize.ts`
 * is the one place that converts between them. This folder imports nothing of ours but `errors`.
 */

/**
 * A JSON object exactly as agy sent it, kept for inspection. Its fields are agy's (snake_case) and change
 * between agy versions; narrow it with the types of the `agy-sdk/wire` subpath (e.g. `WireStepUpdate`).
 */
export type WireObject = { readonly [field: string]: unknown };

/**
 * Step types. The set is open: an unknown type is kept as the string agy sent.
 * - `error_message`: a failed API call, a retry (e.g. a 429) or a model error; its text, when agy gives one,
 *   is in {@link Step.message}.
 * - `unknown`: agy's own catch-all step type (resume and agent fallback notices); text in {@link Step.message}.
 * - `command`: not an agy step but a slash command's result (`command_result`), in {@link Step.command}.
 */
export type StepType =
  | 'user_input'
  | 'agent_response'
  | 'tool'
  | 'system_message'
  | 'checkpoint'
  | 'subagent'
  /** The last step of a `--json-schema` turn (1.3.1): its DONE update ends the `finish` tool call. */
  | 'finish'
  | 'error_message'
  | 'unknown'
  | 'command'
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
  /**
   * Thinking tokens (a part of `outputTokens`); `null` when the backend does not report them (ACP backends
   * such as Gemini CLI send input and output counts only), never a made-up 0.
   */
  thinkingTokens: number | null;
  /** Tokens read from the prompt cache, separate from `inputTokens`; `null` when the backend does not report them. */
  cacheReadTokens: number | null;
  /** `inputTokens + outputTokens`. */
  totalTokens: number;
  /**
   * Tokens written to the prompt cache, where the backend reports them (agy does not: then 0 on values the SDK
   * prices, absent on raw step values); `null` when the backend reports no cache counts at all (ACP).
   */
  cacheWriteTokens?: number | null;
  /**
   * What these tokens cost in USD at the model's prices (`AgentConfig.pricing` over the built-in table), on
   * turn, conversation, subagent and per-model values. `null` when any price it needs is unknown (never 0 for
   * an unknown model); absent on raw step values, which are not priced.
   */
  costUsd?: number | null;
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
  /** The subagent's type, e.g. `research`. */
  typeName?: string | undefined;
  /** Its role, as the parent described it. */
  role?: string | undefined;
  /** The subagent's own conversation: its steps carry this id. */
  conversationId?: string | undefined;
  /** Where agy writes its log. */
  logUri?: string | undefined;
  /** The workspaces it may use. */
  workspaceUris?: string[] | undefined;
  /** The prompt the parent gave it (`initial_prompt`). */
  initialPrompt?: string | undefined;
}

/** A slash command's result (`command_result`, e.g. `/model`, `/usage`). */
export interface CommandResult {
  /** The command, as agy names it (`/quota` answers as `usage`). */
  name: string;
  /** Its command-specific payload, exactly as agy sent it. */
  data: unknown;
}

/** One entry of an agent's plan (ACP `plan` updates). */
export interface PlanEntry {
  /** What the entry is about. */
  content: string;
  /** `high`, `medium` or `low` (kept as sent). */
  priority: string;
  /** `pending`, `in_progress` or `completed` (kept as sent). */
  status: string;
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
  /**
   * New thinking text of an `agent_response` step, on backends that stream it (ACP's `agent_thought_chunk`);
   * never part of the answer text. agy streams none.
   */
  thoughtDelta?: string;
  /** Wall time the step took, on terminal updates. */
  durationSeconds?: number;
  /**
   * Usage of this step, on DONE updates of any type (model steps and, on agy 1.1.x, `checkpoint` steps);
   * `null` when agy reported all zeros.
   */
  usage?: Usage | null;
  /** For `tool` steps: the call. */
  tool?: ToolCall;
  /** For `subagent` steps: the subagents. */
  subagents?: SubagentInfo[];
  /** The text of an `error_message` or `unknown` step, when agy gives one. */
  message?: string;
  /** For `command` steps: the slash command's result. */
  command?: CommandResult;
  /** For `plan` steps (ACP agents): the agent's current plan, whole (each update replaces the last). */
  plan?: PlanEntry[];
  /**
   * Set when the step belongs to a subagent's conversation, not the turn's own: such steps never add to the
   * turn's text or usage (see `TurnResult.subagentUsage`). Carries what `subagent_info` said about it.
   */
  subagent?: SubagentInfo & {
    /** The subagent's own conversation: always known on such a step. */
    conversationId: string;
  };
  /**
   * True on a repeated DONE update of a step already done: its `textDelta` was removed (agy resends the last
   * delta) and its usage is not counted again.
   */
  repeat?: boolean;
  /** The update exactly as agy sent it, unknown fields included. */
  raw: WireObject;
}

/** A tool call the agent made. */
export interface ToolCall {
  /** Stable id: `<conversationId>:<stepIndex>`. */
  id: string;
  /**
   * The tool's name: agy's built-in name (e.g. `run_command`), or for an MCP tool (agy's `call_mcp_tool`)
   * the tool's own name, mapped back to the name you gave it in `tool()` when the served name was normalized.
   */
  name: string;
  /**
   * Arguments: agy's keys as sent for built-in tools (PascalCase, e.g. `CommandLine`); for MCP tools the
   * model's arguments to the tool (agy's `Arguments`).
   */
  args: Record<string, unknown>;
  /**
   * The agent's display text for the call, when it gives one that is not the tool's name (agy_acp_server's
   * ACP `title`, e.g. "Run client_create_file?", which changes between updates). Never used for matching.
   */
  title?: string;
  /**
   * For MCP tools: the server the tool belongs to, by the name it was configured under (`mcpServers.calc` →
   * `calc`, though agy itself shows `agy-sdk_calc`); the agent's own tools are on `agy-sdk_tools`. Backend-neutral: each backend fills it where it converts its wire steps (for agy,
   * `connection/agy/stream-json/normalize.ts`), and the SDK reads only this, never a backend's arguments.
   */
  mcpServer?: string;
  /** For MCP tools: the call as agy made it (`call_mcp_tool` and its `ServerName`/`ToolName`/`Arguments`). */
  wire?: {
    /** The tool agy called, e.g. `call_mcp_tool`. */
    name: string;
    /** The arguments agy passed to it, as sent. */
    args: Record<string, unknown>;
  };
  /** The step the call belongs to. */
  stepIndex: number;
  /** `ACTIVE`, `DONE` or `ERROR` at the time this value was produced. */
  state: StepState;
  /** The tool output, once the step is DONE. */
  output?: unknown;
  /** The failure, when the step ended in ERROR. */
  error?: ToolError;
  /** Wall time of the call, in seconds as agy reports it (terminal updates). */
  durationSeconds?: number;
  /**
   * True when a permission check denied the call: agy's soft denial (matched with `result.denied_actions`;
   * the step ends DONE without output on agy 1.2.17+, ERROR "…denied permission…" on 1.2.7) or a hook.
   * For a DONE step this is known only when the turn's `result` arrives, so `toolResults()` yields such
   * calls at the end of the turn, and objects yielded earlier are updated in place.
   */
  denied?: boolean;
}
