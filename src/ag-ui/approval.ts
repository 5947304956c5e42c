/**
 * Human approval over AG-UI: an `askUser` question becomes an AG-UI interrupt (the run ends RUN_FINISHED with
 * the `interrupt` outcome), and the next run's `resume` entry answers it. The Agent's `askUserTimeoutMs`
 * bounds the wait: no answer in time denies the call (fail closed).
 */
import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import { type AskUserHandler, type HookToolCall, type PolicyList, policy } from '../index.js';

/** The answer an approval interrupt expects, as its `responseSchema` tells a client. */
export const APPROVAL_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    approved: { type: 'boolean', description: 'Whether the tool call may run.' },
    message: { type: 'string', description: 'Optional: why, for the model.' },
  },
  required: ['approved'],
};

/** The `reason` of an approval interrupt. */
export const APPROVAL_REASON = 'tool_approval';

/**
 * Put this as the handler of an `askUser` policy in the `agent` config of `createAgUiHandler` to route its
 * questions to the AG-UI client, e.g. `policy.askUser('run_command', { handler: agUiApproval })`. Outside an
 * AG-UI handler it denies (nobody to ask). Without `policies`, the handler asks about `run_command` this way
 * (`policy.confirmRunCommand(agUiApproval)`).
 */
export const agUiApproval: AskUserHandler = () => ({
  allow: false,
  message: 'agUiApproval asks only inside an AG-UI handler',
});

/** The config's policies with `agUiApproval` replaced by the thread's handler. */
export function routeApprovals(policies: PolicyList | undefined, handler: AskUserHandler): PolicyList {
  if (policies === undefined) return [policy.confirmRunCommand(handler)];
  const swap = <P extends { askUser?: AskUserHandler }>(p: P): P =>
    p.askUser === agUiApproval ? { ...p, askUser: handler } : p;
  return policies.map((p) =>
    Array.isArray(p) ? p.map(swap) : swap(p as { askUser?: AskUserHandler }),
  ) as PolicyList;
}

/** The interrupt for one call. */
export function approvalInterrupt(
  id: string,
  call: HookToolCall,
  reason: string | undefined,
  expiresAt: Date,
): Interrupt {
  const command =
    typeof call.normalizedArgs.commandLine === 'string' ? ` \`${call.normalizedArgs.commandLine}\`` : '';
  return {
    id,
    reason: APPROVAL_REASON,
    message: `Allow ${call.name}${command}?${reason ? ` ${reason}` : ''}`,
    toolCallId: call.id,
    responseSchema: { ...APPROVAL_SCHEMA },
    expiresAt: expiresAt.toISOString(),
    metadata: { toolName: call.name, args: JSON.parse(JSON.stringify(call.args ?? {})) },
  };
}

/** A resume entry as an `askUser` answer: only an explicit approval allows; anything else denies. */
export function answerOf(entry: ResumeEntry): boolean | { allow: boolean; message?: string } {
  if (entry.status !== 'resolved') return { allow: false, message: 'The person cancelled the approval.' };
  const payload: unknown = entry.payload;
  if (payload === true) return true;
  if (typeof payload === 'object' && payload !== null) {
    const { approved, message } = payload as { approved?: unknown; message?: unknown };
    const allow = approved === true;
    return typeof message === 'string' && message !== '' ? { allow, message } : allow;
  }
  return false;
}
