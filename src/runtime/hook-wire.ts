/**
 * agy's hook payloads (camelCase protojson), as documented in agy-cli.md §D.6 and seed 000 "Hooks".
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
export type AgyHookEvent = (typeof AGY_HOOK_EVENTS)[number];

/** Tool events take a matcher (a regex on agy's tool name, or `*`). */
export const TOOL_HOOK_EVENTS: ReadonlySet<AgyHookEvent> = new Set(['PreToolUse', 'PostToolUse']);

/** The stdin of any agy hook command. */
export interface AgyHookInput {
  hookEventName?: string;
  conversationId?: string;
  stepIdx?: number;
  /** Tool events: the call, with agy's argument keys (PascalCase for built-in tools). */
  toolCall?: { name: string; args?: Record<string, unknown> };
  /** PostToolUse: the tool's result (agy versions differ on the key). */
  toolResult?: unknown;
  output?: unknown;
  transcriptPath?: string;
  workspacePaths?: string[];
  artifactDirectoryPath?: string;
  modelName?: string;
  /** Pre/PostInvocation: 0 for a turn's first model call. */
  invocationNum?: number;
  initialNumSteps?: number;
  /** Stop: why agy wants to stop, e.g. `NO_TOOL_CALL`. */
  terminationReason?: string;
  [key: string]: unknown;
}

/** PreToolUse reply. Always carries an explicit decision: agy versions differ on `{}` (measured as DENY). */
export interface PreToolUseOutput {
  decision: 'allow' | 'deny' | 'ask' | 'force_ask';
  reason?: string;
  /** Shallow-merged into the tool's arguments. */
  overwrite?: Record<string, unknown>;
}

/** One step to inject before a model call. */
export type InjectStep =
  | { userMessage: string }
  | { ephemeralMessage: string }
  | { systemMessage: { systemMessage: string; metadata?: Record<string, string> } };

/** PreInvocation / PostInvocation reply. */
export interface InvocationOutput {
  injectSteps?: InjectStep[];
  terminationBehavior?: 'force_continue';
}

/** Stop reply: `continue` keeps the agent going (subject to agy's continuation cap); `reason` is required. */
export interface StopOutput {
  decision?: 'continue';
  reason?: string;
}

/** What a handler may return per event. */
export interface AgyHookOutputs {
  PreToolUse: PreToolUseOutput | undefined;
  PostToolUse: undefined;
  PreInvocation: InvocationOutput | undefined;
  PostInvocation: InvocationOutput | undefined;
  Stop: StopOutput | undefined;
  SessionStart: undefined;
}

/** A raw agy hook handler, registered with `AgentConfig.agyHooks`. */
export interface AgyHookRegistration<E extends AgyHookEvent = AgyHookEvent> {
  /** The agy event. */
  event: E;
  /** Tool events only: a regex on agy's tool name (anchored), or `*` (default) for every tool. */
  matcher?: string;
  /** Runs in-process on agy's hook input. A throw fails closed (PreToolUse: deny). Returning nothing is fine. */
  // biome-ignore lint/suspicious/noConfusingVoidType: handlers that only observe return nothing.
  handler: (input: AgyHookInput) => AgyHookOutputs[E] | void | Promise<AgyHookOutputs[E] | void>;
}
