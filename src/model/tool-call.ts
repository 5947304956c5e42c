/**
 * A tool call as the SDK decides on it, and the one answer to "may this call run?". Every tool — the agent's
 * own `tool()`s, a backend's built-in tools, the user's MCP servers, an ACP agent's tools — goes through the
 * same gate (`ConnectionHost.gateToolCall`) with a {@link ToolInvocation} and gets a {@link ToolCallDecision};
 * its end reaches the host once (`ConnectionHost.toolCallEnded`) with a {@link ToolCallOutcome}. Hooks,
 * policies, budgets and telemetry see the same invocation object from the request to the end.
 */
import type { DeniedBy } from './turn-result.js';

/** Tool arguments as a plain JSON-like object. */
export type ToolArgs = Record<string, unknown>;

/**
 * Where an agy hook call came from: the fields real agy sends with every hook
 * (agy-real/hooks-anti-samcheonpo-agy-1.3.0). Present only on calls that arrived through agy's hooks.
 */
export interface AgyHookInfo {
  /** agy's conversation id. */
  conversationId?: string;
  /** The model serving the conversation, e.g. `gemini-3.8-flash-high`. */
  modelName?: string;
  /** agy's transcript of the conversation (a `…/transcript_full.jsonl` file, one step per line). */
  transcriptPath?: string;
  /** The workspaces agy was given. */
  workspacePaths?: string[];
  /** The directory where agy keeps the conversation's artifacts (`…/brain/<conversation>`). */
  artifactDirectoryPath?: string;
}

/**
 * A tool call as the gate, tool hooks and policies see it, from the request to its end. (`ToolCall`, the step's
 * record of a call with its output, is the turn's view of the same call.)
 */
export interface ToolInvocation {
  /** Stable call id (the stream's `<conversationId>:<stepIndex>`, or whatever id the host correlates on). */
  id: string;
  /** agy's tool name, e.g. `run_command`; for MCP tools the tool's own name (without the server). */
  name: string;
  /** Arguments with agy's keys exactly as sent (PascalCase for built-in tools, e.g. `CommandLine`). */
  args: ToolArgs;
  /** The same arguments with camelCase keys (`CommandLine` → `commandLine`), recursively for plain objects. */
  normalizedArgs: ToolArgs;
  /** The MCP server the call targets, when it is an MCP tool. Policies use it for `server/tool` targets. */
  server?: string;
  /** The step the call belongs to, when known. */
  stepIndex?: number;
  /** agy's description of the call in progress (its `toolAction` arg), e.g. `Running echo hi`. */
  action?: string;
  /** agy's short summary of the call (its `toolSummary` arg), e.g. `Run echo hi`. */
  summary?: string;
  /** Where the call came from, when it arrived through an agy hook. */
  agy?: AgyHookInfo;
}

/**
 * The one answer to "may this tool call run, with which arguments, and why not": what the host's gate returns
 * for every tool. A `preToolCall` hook may still return its shorthand (`true`/`false`, or
 * `{ allow, message, modifiedArgs }`); the hook runner turns every hook's answer into this.
 */
export type ToolCallDecision =
  | {
      /** The call may run. */
      allow: true;
      /** Replacement arguments (agy's keys; the model's own arguments for an MCP tool), when a hook changed them. */
      args?: ToolArgs;
    }
  | {
      /** The call may not run. */
      allow: false;
      /** Why; the model sees it. */
      reason: string;
      /** Who decided; absent when the one answering cannot tell (the host then names who it can). */
      deniedBy?: DeniedBy;
    };

/** How a tool call ended, as far as the one that ran it (or refused to) knows. */
export interface ToolCallOutcome {
  /** The error text, when the call failed (or, with `denied`, why it never ran). */
  error?: string;
  /** The tool's output, when it succeeded and the one that ran it has it. */
  output?: unknown;
  /**
   * The SDK ran (or refused) the call in-process: the agent's own tools. What an `onToolError` hook returns is
   * then what the model sees, and `toolCallEnded` returns it; a backend that ran the tool itself cannot replace
   * what its model already saw.
   */
  inProcess?: boolean;
  /** The call never ran: it was refused before its handler (denied, or its arguments were invalid after a rewrite). */
  denied?: boolean;
}

/**
 * What the model sees instead of a failed in-process call's error, when an `onToolError` hook replaced it: an MCP
 * error result, as the SDK's tool server sends it.
 */
export interface ToolErrorReplacement {
  /** Always an error. */
  isError: true;
  /** The replacement text, as one MCP text block. */
  content: [ToolErrorText];
}

/** The one text block of a {@link ToolErrorReplacement}. */
export interface ToolErrorText {
  /** An MCP text block. */
  type: 'text';
  /** What the model reads. */
  text: string;
}
