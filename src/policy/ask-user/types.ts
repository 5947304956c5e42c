/** Types for asking a human to approve a tool call. */
import type { OperationContext } from '../../hooks/context.js';
import type { MaybePromise, ToolInvocation } from '../../hooks/types.js';

/** Extra information given to an {@link AskUserHandler}. */
export interface AskUserContext {
  /** Aborted when the question expires (timeout); stop prompting then; a late answer is ignored anyway. */
  signal: AbortSignal;
  /** Name of the policy that asks. */
  policy: string;
  /** Why confirmation is requested (the policy's `message`), when it says. */
  reason?: string;
  /** The tool call's hook context, when the ask comes from the hook runner. */
  operation?: OperationContext;
}

/** A handler's answer: `true`/`false`, or an object that can carry a message for the model. */
export type AskUserAnswer = boolean | { allow: boolean; message?: string };

/**
 * Asks a human (terminal, web UI, chat) whether a tool call may run. Enforcement wraps it with a timeout that
 * denies on expiry; a handler that throws also denies (fail closed).
 */
export type AskUserHandler = (call: ToolInvocation, ctx: AskUserContext) => MaybePromise<AskUserAnswer>;
