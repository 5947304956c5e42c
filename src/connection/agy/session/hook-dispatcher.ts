/**
 * Routes agy hook calls (arriving on the listener) to in-process handlers and combines their answers:
 * - PreToolUse: handlers run in order; each sees the arguments as overwritten by the ones before it; the
 *   first deny wins; the reply always carries an explicit decision (agy versions differ on `{}`). Answers
 *   are checked against {@link PreToolUseAnswerSchema}: anything but nothing or a well-formed answer
 *   (`{decision:'DENY'}`, `'deny'`, `false`, `{allow:false}`, a string `overwrite`, …) is a deny with the
 *   reason logged, because agy itself treats an unknown decision as a deny.
 * - Pre/PostInvocation: injected steps are concatenated; the first `terminationBehavior` wins.
 * - Stop: the first `continue` with a non-empty reason wins.
 * - PostToolUse, SessionStart: every handler runs; the reply is `{}`.
 * A handler that throws propagates, so the listener answers its fail-closed fallback (deny for PreToolUse).
 */

import { z } from 'zod/v4';
import { describeError, type Logger } from '../../../logger.js';
import {
  type AgyHookEvent,
  type AgyHookInput,
  type AgyHookRegistration,
  type InjectStep,
  type InvocationOutput,
  type PreToolUseOutput,
  type StopOutput,
  TOOL_HOOK_EVENTS,
} from '../../../protocol/hook-wire.js';
import type { HookHandler } from '../../tool-server/listener-hook.js';

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

/** A well-formed raw PreToolUse answer; extra keys are refused too, so a misspelt field cannot pass as allow. */
export const PreToolUseAnswerSchema = z.strictObject({
  decision: z.enum(['allow', 'deny', 'ask', 'force_ask']),
  reason: z.string().optional(),
  overwrite: z.record(z.string(), z.unknown()).optional(),
});

/** Describes a refused answer for the log and the deny reason; never throws (BigInt, cycles…). */
function describeAnswer(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'bigint' ? `${value}n (a BigInt)` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = `an unserializable ${typeof value}`;
  }
  // Bounded: the reason goes back to agy and the model.
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Checks one raw PreToolUse answer: `undefined` (no opinion) or a well-formed answer; else a deny. */
function checkPreToolUseAnswer(
  out: unknown,
  logger: Logger | undefined,
): PreToolUseOutput | undefined | { refused: string } {
  if (out === undefined) return undefined;
  const parsed = PreToolUseAnswerSchema.safeParse(out);
  if (parsed.success) return parsed.data;
  const refused = `an agy-sdk PreToolUse hook answered ${describeAnswer(out)}, which is not a well-formed answer`;
  logger?.warn('denying the tool call: malformed PreToolUse hook answer', {
    answer: describeAnswer(out),
    error: describeError(parsed.error),
  });
  return { refused };
}

/**
 * Builds the listener's hook handler from raw registrations. `event` is the route the call arrived on,
 * which is how its command was registered: agy's payload carries no event name.
 */
export function createHookDispatcher(
  registrations: readonly AgyHookRegistration[],
  logger?: Logger,
): HookHandler {
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
    return dispatch(event as AgyHookEvent, input, handlers, logger);
  };
}

async function dispatch(
  event: AgyHookEvent,
  input: AgyHookInput,
  handlers: AgyHookRegistration[],
  logger: Logger | undefined,
): Promise<unknown> {
  switch (event) {
    case 'PreToolUse': {
      let args = { ...(input.toolCall?.args ?? {}) };
      const overwrite: Record<string, unknown> = {};
      let ask: PreToolUseOutput | undefined;
      for (const h of handlers) {
        const callInput = input.toolCall ? { ...input, toolCall: { ...input.toolCall, args } } : input;
        const out = checkPreToolUseAnswer(await h.handler(callInput), logger);
        if (!out) continue;
        if ('refused' in out) return { decision: 'deny', reason: out.refused } satisfies PreToolUseOutput;
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
