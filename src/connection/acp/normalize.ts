/**
 * ACP → the SDK's model, in one place: `session/update` notifications become the same normalized `Step`s the
 * agy backend produces (text deltas, thoughts, tool calls with status and output, plans), Gemini CLI's
 * `_meta.quota` becomes `Usage` (input and output only; thinking and cache `null`, never 0), and a prompt's
 * end becomes a fail-closed `TurnResult` status. Facts: docs/reference/acp.md#thoughts-and-text.
 */
import type { Step, ToolCall, ToolError, Usage, WireObject } from '../../model/step.js';
import type { TurnStatus } from '../../model/turn-result.js';
import {
  type AcpSessionUpdate,
  type AcpStopReason,
  type AcpToolCallContent,
  GeminiQuotaMetaSchema,
} from '../../protocol/acp.js';

/** A tool as the SDK names it: the tool's own name, its MCP server when it is one, and the agent's name. */
export interface ResolvedTool {
  /** The built-in tool's name as the agent sends it, or an MCP tool's own name (a `tool()`'s given name). */
  name: string;
  /** The MCP server, for MCP tools (the SDK's own server is `agy-sdk_tools`). */
  server?: string | undefined;
  /** The name the agent used (`mcp_<server>_<tool>` for MCP tools on Gemini CLI). */
  wireName: string;
}

/** Resolves the agent's tool name (or `undefined` when unknown) into a {@link ResolvedTool}. */
export type ToolResolver = (wireName: string | undefined, title: string | undefined) => ResolvedTool;

/**
 * Gemini CLI's tool call ids are `<tool name>__<call id>` (docs/reference/acp.md#always-options):
 * the name is the part before the last `__` (tool names may contain `__` themselves only as a prefix).
 */
/**
 * The tool name inside a UI title: agy_acp_server titles a call "Run client_create_file?" then "Running
 * client_create_file" (agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl). The first snake_case word
 * is the name; a title without one gives none.
 */
export function toolNameFromTitle(title: string | null | undefined): string | undefined {
  return title ? /\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b/.exec(title)?.[1] : undefined;
}

export function toolNameFromCallId(toolCallId: string): string | undefined {
  const at = toolCallId.lastIndexOf('__');
  return at > 0 ? toolCallId.slice(0, at) : undefined;
}

/** The text of a tool call's `content` blocks, joined; undefined when there is none. */
export function contentText(content: readonly AcpToolCallContent[] | null | undefined): string | undefined {
  const texts: string[] = [];
  for (const c of content ?? []) {
    if (c.type === 'content' && c.content.type === 'text') texts.push(c.content.text);
  }
  return texts.length ? texts.join('\n') : undefined;
}

/**
 * A permission request's arguments, recovered from what it carries: a write's diff (`file_path`, `content`,
 * plus `old_string`/`new_string` for a replacement), else the JSON text block (MCP tools), else nothing.
 */
export function argsFromContent(
  content: readonly AcpToolCallContent[] | null | undefined,
): Record<string, unknown> {
  for (const c of content ?? []) {
    if (c.type === 'diff') {
      return c.oldText
        ? { file_path: c.path, old_string: c.oldText, new_string: c.newText, content: c.newText }
        : { file_path: c.path, content: c.newText };
    }
  }
  const text = contentText(content);
  if (text !== undefined) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      // Not JSON: a human-readable explanation, not arguments.
    }
  }
  return {};
}

/** `_meta.quota.token_count` of a prompt result → `Usage` (thinking and cache unknown: `null`); all-zero → null. */
export function usageFromMeta(meta: unknown): Usage | null {
  const parsed = GeminiQuotaMetaSchema.safeParse(meta);
  if (!parsed.success) return null;
  const { input_tokens: inputTokens, output_tokens: outputTokens } = parsed.data.quota.token_count;
  if (inputTokens === 0 && outputTokens === 0) return null;
  return {
    inputTokens,
    outputTokens,
    thinkingTokens: null,
    cacheReadTokens: null,
    totalTokens: inputTokens + outputTokens,
  };
}

/** A protocol object kept as the step's raw wire value. */
export const wire = (value: unknown): WireObject => value as WireObject;

function toolState(status: string | null | undefined, previous: string): string {
  switch (status) {
    case 'completed':
      return 'DONE';
    case 'failed':
      return 'ERROR';
    case 'pending':
    case 'in_progress':
      return 'ACTIVE';
    default:
      return previous;
  }
}

/** Output of a completed call: `rawOutput` when the agent sent one, else its text, else its diff. */
function toolOutput(update: { rawOutput?: unknown; content?: AcpToolCallContent[] | null }): unknown {
  if (update.rawOutput !== undefined && update.rawOutput !== null) return update.rawOutput;
  const text = contentText(update.content);
  if (text !== undefined) return text;
  const diff = update.content?.find((c) => c.type === 'diff');
  return diff && diff.type === 'diff' ? { path: diff.path, newText: diff.newText } : undefined;
}

/**
 * One turn's updates → steps. Each model segment (the text and thoughts between tool calls) is one
 * `agent_response` step, ACTIVE while it streams and DONE when a tool call or the end of the turn closes it;
 * each tool call is one `tool` step.
 */
export class AcpTurnSteps {
  readonly #sessionId: string;
  readonly #resolve: ToolResolver;
  #next: number;
  #model: number | undefined;
  readonly #tools = new Map<string, ToolCall>();
  /** The answer text so far (agent_message_chunk text). */
  text = '';

  constructor(sessionId: string, resolve: ToolResolver, firstIndex: number) {
    this.#sessionId = sessionId;
    this.#resolve = resolve;
    this.#next = firstIndex;
  }

  /** The next unused step index (the following turn starts there). */
  get nextIndex(): number {
    return this.#next;
  }

  /** Tool calls of the turn, in the state they are in now. */
  get toolCalls(): ToolCall[] {
    return [...this.#tools.values()];
  }

  /** The tool call the agent knows by `toolCallId`, if it was seen. */
  tool(toolCallId: string): ToolCall | undefined {
    return this.#tools.get(toolCallId);
  }

  #step(partial: Omit<Step, 'conversationId'>): Step {
    return { conversationId: this.#sessionId, ...partial };
  }

  #closeModel(raw: WireObject, usage?: Usage | null): Step[] {
    if (this.#model === undefined) return [];
    const stepIndex = this.#model;
    this.#model = undefined;
    return [
      this.#step({
        stepIndex,
        state: 'DONE',
        type: 'agent_response',
        raw,
        ...(usage !== undefined && { usage }),
      }),
    ];
  }

  #modelIndex(): number {
    this.#model ??= this.#next++;
    return this.#model;
  }

  /** The steps one `session/update` makes (none for updates that carry nothing for the turn). */
  update(update: AcpSessionUpdate): Step[] {
    const raw = wire(update);
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        const text = update.content.type === 'text' ? update.content.text : '';
        const stepIndex = this.#modelIndex();
        const step = this.#step({ stepIndex, state: 'ACTIVE', type: 'agent_response', raw });
        if (text && update.sessionUpdate === 'agent_message_chunk') {
          step.textDelta = text;
          this.text += text;
        } else if (text) step.thoughtDelta = text;
        return [step];
      }
      case 'tool_call':
        return [...this.#closeModel(raw), this.#toolStep(update.toolCallId, update, raw)];
      case 'tool_call_update':
        return [...this.#closeModel(raw), this.#toolStep(update.toolCallId, update, raw)];
      case 'plan':
        return [
          this.#step({
            stepIndex: this.#next++,
            state: 'DONE',
            type: 'plan',
            plan: update.entries.map((e) => ({ content: e.content, priority: e.priority, status: e.status })),
            raw,
          }),
        ];
      default:
        // available_commands_update, mode and session-info updates: nothing the turn's steps carry.
        return [];
    }
  }

  #toolStep(
    toolCallId: string,
    update: {
      title?: string | null;
      name?: string | null;
      kind?: string | null;
      status?: string | null;
      content?: AcpToolCallContent[] | null;
      rawInput?: unknown;
      rawOutput?: unknown;
    },
    raw: WireObject,
  ): Step {
    let call = this.#tools.get(toolCallId);
    if (!call) {
      // A stable name: the agent's own, else the tool named in the call id or the title, else the ACP `kind`;
      // the title (UI text that changes between updates) is kept for display only.
      const stable =
        update.name ??
        toolNameFromCallId(toolCallId) ??
        toolNameFromTitle(update.title) ??
        update.kind ??
        undefined;
      const resolved = this.#resolve(stable, update.title ?? undefined);
      const stepIndex = this.#next++;
      const rawInput = update.rawInput;
      const args =
        typeof rawInput === 'object' && rawInput !== null && !Array.isArray(rawInput)
          ? (rawInput as Record<string, unknown>)
          : argsFromContent(update.content);
      call = {
        id: `${this.#sessionId}:${stepIndex}`,
        name: resolved.name,
        args,
        ...(resolved.server !== undefined && { mcpServer: resolved.server }),
        wire: { name: resolved.wireName, args },
        stepIndex,
        state: 'ACTIVE',
      };
      if (update.title && update.title !== resolved.name) call.title = update.title;
      this.#tools.set(toolCallId, call);
    }
    if (update.title && update.title !== call.name) call.title = update.title;
    call.state = toolState(update.status, call.state);
    if (call.state === 'DONE') {
      const output = toolOutput(update);
      if (output !== undefined) call.output = output;
    } else if (call.state === 'ERROR') {
      const error: ToolError = {
        type: 'TOOL_ERROR',
        message: contentText(update.content) ?? 'tool call failed',
      };
      call.error = error;
    }
    return this.#step({ stepIndex: call.stepIndex, state: call.state, type: 'tool', tool: { ...call }, raw });
  }

  /**
   * A permission request for a call the agent announced nothing about (Gemini CLI sends no `tool_call` before
   * asking): the call's step, ACTIVE, so `toolCalls()` sees it while the SDK decides.
   */
  requested(
    toolCallId: string,
    toolCall: { title?: string | null; content?: AcpToolCallContent[] | null; rawInput?: unknown },
    raw: WireObject,
  ): Step {
    return this.#tool(toolCallId) ?? this.#toolStep(toolCallId, { ...toolCall, status: 'pending' }, raw);
  }

  #tool(toolCallId: string): Step | undefined {
    const call = this.#tools.get(toolCallId);
    return call
      ? this.#step({ stepIndex: call.stepIndex, state: call.state, type: 'tool', tool: { ...call }, raw: {} })
      : undefined;
  }

  /** A call the SDK denied: its step ends ERROR, `denied`. The agent sends no update for it. */
  denied(toolCallId: string, reason: string, raw: WireObject): Step | undefined {
    const call = this.#tools.get(toolCallId);
    if (!call) return undefined;
    call.state = 'ERROR';
    call.denied = true;
    call.error = { type: 'PERMISSION_DENIED', message: reason };
    return this.#step({ stepIndex: call.stepIndex, state: 'ERROR', type: 'tool', tool: { ...call }, raw });
  }

  /** The end of the turn: closes the open model step, carrying the turn's usage (or a `usage` step if none is open). */
  finish(usage: Usage | null, raw: WireObject): Step[] {
    const closed = this.#closeModel(raw, usage);
    if (closed.length || usage === null) return closed;
    return [this.#step({ stepIndex: this.#next++, state: 'DONE', type: 'usage', usage, raw })];
  }
}

/** How a finished `session/prompt` maps to a turn status (fail-closed). */
export interface PromptVerdict {
  /** The status. */
  status: TurnStatus;
  /** Why, when not success. */
  message: string;
}

/**
 * A prompt result → status. `success` only for `end_turn` with a real answer and no denial; an empty reply is
 * an error even with `end_turn` (Gemini CLI ends quietly after empty or malformed model output); `cancelled`
 * is the interrupt or cancel the SDK asked for, otherwise an error.
 */
export function classifyStop(
  stopReason: AcpStopReason | string,
  o: {
    text: string;
    denials: number;
    stopAsked: 'interrupted' | 'canceled' | undefined;
    /** Tool calls of the turn that completed: a turn whose only content is one (a write) is an answer. */
    completedTools?: number;
  },
): PromptVerdict {
  if (o.stopAsked) return { status: o.stopAsked, message: `the turn was ${o.stopAsked}` };
  if (o.denials > 0)
    return { status: 'denied', message: `${o.denials} tool call(s) denied by the SDK's policies or askUser` };
  switch (stopReason) {
    case 'end_turn':
      // agy_acp_server ends a write with no reply text `end_turn` (agy-real/mluigi-htui-agy-acp-server-1.1.1/agy_acp_turn.jsonl).
      return o.text.trim() === '' && (o.completedTools ?? 0) === 0
        ? { status: 'error', message: 'the agent ended the turn without an answer (empty reply)' }
        : { status: 'success', message: '' };
    case 'cancelled':
      return { status: 'error', message: 'the agent cancelled the turn on its own' };
    case 'max_tokens':
      return { status: 'error', message: 'the agent hit its output token limit (max_tokens)' };
    case 'max_turn_requests':
      return {
        status: 'error',
        message: 'the agent hit its model-request limit or a loop (max_turn_requests)',
      };
    case 'refusal':
      return { status: 'error', message: 'the agent refused (refusal)' };
    default:
      return { status: 'error', message: `unknown stopReason ${JSON.stringify(stopReason)}` };
  }
}

/** Wording of a rate limit (Gemini CLI answers a 429 with a JSON-RPC error, code 429; docs/reference/acp.md#rate-limits). */
const RATE_LIMIT = /\b429\b|rate limit|Resource has been exhausted|RESOURCE_EXHAUSTED|Too Many Requests/i;
/**
 * Wording of the account's quota stop (agy's). A 429 saying "Quota exceeded for metric: …" is a rate limit, as
 * Gemini CLI reports one (docs/reference/acp.md#rate-limits), not this.
 */
const QUOTA = /Individual quota reached/i;
/** Wording of an authentication failure (Gemini CLI's session/new and prompt errors). */
const AUTH = /Authentication required|API key is missing|not configured|API key not valid|UNAUTHENTICATED/i;

/** A JSON-RPC error answering `session/prompt` → status, by its code and wording. */
export function classifyRequestError(code: number | undefined, message: string): PromptVerdict {
  if (QUOTA.test(message)) return { status: 'quota_exhausted', message };
  if (code === 429 || RATE_LIMIT.test(message)) return { status: 'rate_limited', message };
  if (code === 401 || code === 403 || AUTH.test(message)) return { status: 'auth_failed', message };
  return { status: 'error', message };
}
