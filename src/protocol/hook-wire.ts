/**
 * agy's hook payloads (camelCase protojson), as documented in docs/reference/hooks.md#hook-payloads.
 * Inputs are loose: agy versions differ, and unknown fields pass through.
 */

/** The hook events agy-sdk relays. `SessionStart` exists on agy >= 1.1.25 only. */
export const AGY_HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PreInvocation',
  'PostInvocation',
  'Stop',
  'SessionStart',
] as const;
/** One of the hook events agy-sdk relays (`AGY_HOOK_EVENTS`). */
export type AgyHookEvent = (typeof AGY_HOOK_EVENTS)[number];

/** Tool events take a matcher (a regex on agy's tool name, or `*`). */
export const TOOL_HOOK_EVENTS: ReadonlySet<AgyHookEvent> = new Set(['PreToolUse', 'PostToolUse']);

/**
 * The stdin of any agy hook command, as real agy 1.3.0 sends it
 * (agy-real/hooks-anti-samcheonpo-agy-1.3.0/*.json). There is no event name in it: which event a call is
 * comes only from the route its command was registered on (`/hook/<event>`). Every field is optional
 * because versions differ; unknown fields pass through.
 */
export interface AgyHookInput {
  /** The conversation (agy's trajectory id). */
  conversationId?: string;
  /**
   * The step of the call. Sent on PreToolUse and PostToolUse; never on PreInvocation or Stop, so turn
   * attribution cannot rely on it.
   */
  stepIdx?: number;
  /**
   * Tool events: the call, with agy's argument keys (PascalCase for built-in tools, e.g. `CommandLine`,
   * `Cwd`, `WaitMsBeforeAsync`) plus agy's own `toolAction` ("Running echo hi") and `toolSummary` ("Run echo
   * hi").
   */
  toolCall?: {
    /** agy's name of the tool, e.g. `run_command`. */
    name: string;
    /** The call's arguments, keyed as agy sends them. */
    args?: Record<string, unknown>;
  };
  /**
   * PostToolUse and Stop: an error message; agy 1.3.0 sends `""` even for a command that exited non-zero.
   * PostToolUse carries no tool output on 1.3.0.
   */
  error?: unknown;
  /** PostToolUse on other versions (not 1.3.0): the result, often wrapped as `{output}` or `{error}`. */
  toolResult?: unknown;
  /** PostToolUse on other versions (not 1.3.0): the output. */
  output?: unknown;
  /** The conversation transcript, `…/brain/<conversation>/.system_generated/logs/transcript_full.jsonl`. */
  transcriptPath?: string;
  /** The workspaces agy was given. */
  workspacePaths?: string[];
  /** `…/brain/<conversation>`: where agy keeps the conversation's artifacts. */
  artifactDirectoryPath?: string;
  /** The model serving the conversation, e.g. `gemini-3.8-flash-high`. */
  modelName?: string;
  /** Pre/PostInvocation: 0 for the conversation's first model call, counting up across turns. */
  invocationNum?: number;
  /** Pre/PostInvocation: how many steps the conversation had when the model call began. */
  initialNumSteps?: number;
  /** Stop: why agy wants to stop, e.g. `NO_TOOL_CALL`. */
  terminationReason?: string;
  /** Stop: agy's execution counter for the conversation (0 in the captured one-prompt run). */
  executionNum?: number;
  /** Stop: whether agy has nothing left running. */
  fullyIdle?: boolean;
  /** Older documentation shows this; real 1.3.0 payloads have none. Never used for routing. */
  hookEventName?: string;
  [key: string]: unknown;
}

/** PreToolUse reply. Always carries an explicit decision: agy versions differ on `{}` (measured as DENY). */
export interface PreToolUseOutput {
  /** What agy should do with the call. */
  decision: 'allow' | 'deny' | 'ask' | 'force_ask';
  /** Why; shown to the model on a deny. */
  reason?: string | undefined;
  /** Shallow-merged into the tool's arguments. */
  overwrite?: Record<string, unknown> | undefined;
}

/** One step to inject before a model call. */
export type InjectStep =
  | {
      /** A user message; the model reads it on this call (steering uses it). */
      userMessage: string;
    }
  | {
      /** An ephemeral message (agy's `ephemeralMessage` step). */
      ephemeralMessage: string;
    }
  | {
      /** A system message step. */
      systemMessage: {
        /** The system message's text. */
        systemMessage: string;
        /** Extra string fields agy attaches to it, e.g. `user_markdown`. */
        metadata?: Record<string, string>;
      };
    };

/** PreInvocation / PostInvocation reply. */
export interface InvocationOutput {
  /** Steps agy adds before the model call (steering uses `userMessage`). */
  injectSteps?: InjectStep[];
  /** `force_continue` keeps the agent going after the invocation. */
  terminationBehavior?: 'force_continue';
}

/** Stop reply: `continue` keeps the agent going (subject to agy's continuation cap); `reason` is required. */
export interface StopOutput {
  /** `continue` keeps the agent going; absent lets it stop. */
  decision?: 'continue';
  /** Required with `continue`: given to the model as the reason to go on. */
  reason?: string;
}

/** What a handler may return per event. */
export interface AgyHookOutputs {
  /** Nothing means the SDK's explicit default (`allow`). */
  PreToolUse: PreToolUseOutput | undefined;
  /** agy ignores PostToolUse output. */
  PostToolUse: undefined;
  /** Steps to inject, or nothing. */
  PreInvocation: InvocationOutput | undefined;
  /** Steps to inject, or nothing. */
  PostInvocation: InvocationOutput | undefined;
  /** `continue` with a reason, or nothing to let agy stop. */
  Stop: StopOutput | undefined;
  /** agy ignores SessionStart output. */
  SessionStart: undefined;
}

/** A raw agy hook handler, registered with `AgentConfig.agyHooks`. */
export interface AgyHookRegistration<E extends AgyHookEvent = AgyHookEvent> {
  /** The agy event. */
  event: E;
  /** Tool events only: a regex on agy's tool name (anchored), or `*` (default) for every tool. */
  matcher?: string;
  /**
   * Runs in-process on agy's hook input. A throw fails closed (PreToolUse: deny). Returning nothing is fine;
   * a PreToolUse answer that is not exactly a {@link PreToolUseOutput} (e.g. `{decision:'DENY'}`, `false`, a
   * string `overwrite`) is logged and answered as a deny.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: handlers that only observe return nothing.
  handler: (input: AgyHookInput) => AgyHookOutputs[E] | void | Promise<AgyHookOutputs[E] | void>;
}
