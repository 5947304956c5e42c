/**
 * Routes agy hook calls (arriving on the listener) to in-process handlers and combines their answers:
 * - PreToolUse: handlers run in order; each sees the arguments as overwritten by the ones before it; the
 *   first deny wins; the reply always carries an explicit decision (agy versions differ on `{}`).
 * - Pre/PostInvocation: injected steps are concatenated; the first `terminationBehavior` wins.
 * - Stop: the first `continue` with a non-empty reason wins.
 * - PostToolUse, SessionStart: every handler runs; the reply is `{}`.
 * A handler that throws propagates, so the listener answers its fail-closed fallback (deny for PreToolUse).
 */

import {
  type AgyHookEvent,
  type AgyHookInput,
  type AgyHookRegistration,
  type InjectStep,
  type InvocationOutput,
  type PreToolUseOutput,
  type StopOutput,
  TOOL_HOOK_EVENTS,
} from './hook-wire.js';
import type { HookHandler } from './listener-hook.js';

/** Compiles a matcher: `*` or empty matches every tool; anything else is an anchored regex. */
export function compileMatcher(matcher: string | undefined): (tool: string) => boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  const re = new RegExp(`^(?:${matcher})$`);
  return (tool) => re.test(tool);
}

/** The matcher written to hooks.json for a set of handlers: `*` if any matches everything. */
export function combinedMatcher(matchers: Array<string | undefined>): string {
  if (matchers.some((m) => m === undefined || m === '' || m === '*')) return '*';
  return [...new Set(matchers)].map((m) => `(?:${m})`).join('|');
}

export function createHookDispatcher(registrations: readonly AgyHookRegistration[]): HookHandler {
  const byEvent = new Map<string, Array<{ reg: AgyHookRegistration; matches: (tool: string) => boolean }>>();
  for (const reg of registrations) {
    const list = byEvent.get(reg.event) ?? [];
    list.push({ reg, matches: TOOL_HOOK_EVENTS.has(reg.event) ? compileMatcher(reg.matcher) : () => true });
    byEvent.set(reg.event, list);
  }
  return async (event, rawInput) => {
    const input = (typeof rawInput === 'object' && rawInput !== null ? rawInput : {}) as AgyHookInput;
    const tool = input.toolCall?.name ?? '';
    const handlers = (byEvent.get(event) ?? []).filter((h) => h.matches(tool)).map((h) => h.reg);
    return dispatch(event as AgyHookEvent, input, handlers);
  };
}

async function dispatch(
  event: AgyHookEvent,
  input: AgyHookInput,
  handlers: AgyHookRegistration[],
): Promise<unknown> {
  switch (event) {
    case 'PreToolUse': {
      let args = { ...(input.toolCall?.args ?? {}) };
      const overwrite: Record<string, unknown> = {};
      let ask: PreToolUseOutput | undefined;
      for (const h of handlers) {
        const callInput = input.toolCall ? { ...input, toolCall: { ...input.toolCall, args } } : input;
        const out = (await h.handler(callInput)) as PreToolUseOutput | undefined;
        if (!out) continue;
        if (out.decision === 'deny') {
          return {
            decision: 'deny',
            reason: out.reason || 'denied by an agy-sdk hook',
          } satisfies PreToolUseOutput;
        }
        if (out.overwrite) {
          Object.assign(overwrite, out.overwrite);
          args = { ...args, ...out.overwrite };
        }
        if ((out.decision === 'ask' || out.decision === 'force_ask') && !ask) ask = out;
      }
      const reply: PreToolUseOutput = ask
        ? { decision: ask.decision, ...(ask.reason && { reason: ask.reason }) }
        : { decision: 'allow' };
      if (Object.keys(overwrite).length > 0) reply.overwrite = overwrite;
      return reply;
    }
    case 'PreInvocation':
    case 'PostInvocation': {
      const injectSteps: InjectStep[] = [];
      let terminationBehavior: InvocationOutput['terminationBehavior'];
      for (const h of handlers) {
        const out = (await h.handler(input)) as InvocationOutput | undefined;
        if (out?.injectSteps) injectSteps.push(...out.injectSteps);
        terminationBehavior ??= out?.terminationBehavior;
      }
      const reply: InvocationOutput = {};
      if (injectSteps.length > 0) reply.injectSteps = injectSteps;
      if (terminationBehavior) reply.terminationBehavior = terminationBehavior;
      return reply;
    }
    case 'Stop': {
      for (const h of handlers) {
        const out = (await h.handler(input)) as StopOutput | undefined;
        if (out?.decision === 'continue') {
          if (!out.reason?.trim()) throw new Error('a Stop hook answered continue without a reason');
          return { decision: 'continue', reason: out.reason } satisfies StopOutput;
        }
      }
      return {};
    }
    default:
      for (const h of handlers) await h.handler(input);
      return {};
  }
}
