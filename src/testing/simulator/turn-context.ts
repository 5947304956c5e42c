/**
 * What an action sees while a turn runs, and how it writes a step: shared by the action runner (`actions.ts`),
 * the tool steps (`tool-steps.ts`) and the hook events (`hook-events.ts`) without importing one another in a
 * circle.
 */
import type { Conversation } from './conversation.js';
import type { Emitter } from './emitter.js';
import { type DeniedAction, stepEnvelope } from './envelopes.js';
import type { ToolOutcome } from './mcp-hub.js';
import type { AgyProfile } from './profile.js';
import type { SimRuntime } from './runtime.js';

/** What an action can see and change while a turn runs. */
export interface TurnContext {
  readonly conv: Conversation;
  readonly emitter: Emitter;
  /** Aborted by SIGINT or the print timeout. */
  readonly signal: AbortSignal;
  readonly prompt: string;
  /** Flushes output, saves state and exits the process. */
  readonly exit: (code: number) => Promise<never>;
  /** The text of the latest `agent_response` (partial while it streams): the turn's `response` on 1.1–1.2. */
  lastText: string;
  /** Every finished `agent_response` text of the turn, in order: the turn's `response` on 1.3. */
  turnText: string;
  /** Permissions soft-denied in this turn. */
  readonly denied: DeniedAction[];
  /** The configuration agy loaded (hooks, MCP servers, rules, custom agents). */
  readonly runtime: SimRuntime;
  /** Model calls started so far in this turn: the next call's `invocationNum`. */
  invocations: number;
  /** The conversation's step count once the turn's `user_input` step is out (`initialNumSteps`). */
  initialNumSteps: number;
  /** User messages PreInvocation/PostInvocation hooks injected during this turn, in order. */
  readonly injected: string[];
  /** The outcome of the turn's latest tool step. */
  lastTool: ToolOutcome | undefined;
  /** The agy build being imitated. */
  readonly profile: AgyProfile;
  /** Model calls that produced a DONE model step in this turn (1.1.x then ends the turn with a checkpoint). */
  modelSteps: number;
  /** Whether this turn wrote a `checkpoint` step already. */
  checkpointed: boolean;
  /**
   * The conversation id steps are written under: the turn's own, or a subagent's while its steps stream.
   * Undefined means `conv.id`.
   */
  stepConversation?: string | undefined;
  /** The streaming subagent's step counter (its indexes start at 0); undefined outside a subagent. */
  subagentSteps?: { next: number } | undefined;
}

/** Writes one step update for the current conversation (or the subagent whose steps are streaming). */
export function step(ctx: TurnContext, index: number, fields: Record<string, unknown>): Promise<void> {
  return ctx.emitter.line(stepEnvelope(ctx.stepConversation ?? ctx.conv.id, index, fields));
}

/** The next step index: the conversation's, or the streaming subagent's. */
export function nextIndex(ctx: TurnContext): number {
  return ctx.subagentSteps !== undefined ? ctx.subagentSteps.next++ : ctx.conv.nextStep();
}
