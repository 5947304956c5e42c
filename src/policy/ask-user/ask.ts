/**
 * Runs an {@link AskUserHandler} under a deadline. Everything that is not an explicit "yes" in time is a
 * deny: a timeout, a throw, an invalid answer (fail closed). The timer is cleared as soon as the ask settles,
 * and a late answer or rejection is absorbed so nothing is left unhandled.
 */

import type { ToolInvocation } from '../../hooks/types.js';
import { MAX_TIMER_MS } from '../../internal/timing.js';
import { consoleLogger, describeError, type Logger } from '../../logger.js';
import type { AskUserContext, AskUserHandler } from './types.js';

/** Default time a human has to answer: 5 minutes. */
export const DEFAULT_ASK_USER_TIMEOUT_MS = 5 * 60 * 1000;

/** Options for {@link runAskUser}. */
export interface RunAskUserOptions {
  /** Name of the policy that asks (shown to the handler and in messages). */
  policy: string;
  /** Why confirmation is requested. */
  reason?: string;
  /** Deadline in ms (default 5 min); `Infinity` waits forever. */
  timeoutMs?: number;
  /** Where failures are reported. */
  logger?: Logger;
  /** Passed through to the handler. */
  operation?: AskUserContext['operation'];
}

/** How an ask ended. */
export interface AskUserOutcome {
  /** Whether the call may run. */
  allow: boolean;
  /** Why it was denied, as a phrase (e.g. `no approval within 300000 ms`); callers prefix who denied. */
  message?: string;
  /** `answered`: the handler answered in time; `timeout`: it did not; `error`: it threw or answered nonsense. */
  status: 'answered' | 'timeout' | 'error';
}

/**
 * True when `ms` is a usable deadline: positive and within `setTimeout`'s range (a longer one would fire at
 * once and deny), or `Infinity`.
 */
export function isValidTimeout(ms: number): boolean {
  return ms === Number.POSITIVE_INFINITY || (Number.isFinite(ms) && ms > 0 && ms <= MAX_TIMER_MS);
}

type Raced = { kind: 'answer'; value: unknown } | { kind: 'error'; error: unknown } | { kind: 'timeout' };

/** Asks `handler` about `call`, denying on timeout, throw or invalid answer. */
export async function runAskUser(
  handler: AskUserHandler,
  call: ToolInvocation,
  options: RunAskUserOptions,
): Promise<AskUserOutcome> {
  const logger = options.logger ?? consoleLogger;
  const timeoutMs = options.timeoutMs ?? DEFAULT_ASK_USER_TIMEOUT_MS;
  if (!isValidTimeout(timeoutMs)) throw new RangeError(`Invalid ask-user timeout: ${timeoutMs} ms`);
  const label = `tool '${call.name}' (policy '${options.policy}')`;
  const denied = `the user denied tool '${call.name}'`;
  const controller = new AbortController();
  const ctx: AskUserContext = { signal: controller.signal, policy: options.policy };
  if (options.reason !== undefined) ctx.reason = options.reason;
  if (options.operation !== undefined) ctx.operation = options.operation;

  let timer: NodeJS.Timeout | undefined;
  // new Promise(...) also captures a synchronous throw from the handler.
  const answered = new Promise<unknown>((resolve) => resolve(handler(call, ctx))).then(
    (value): Raced => ({ kind: 'answer', value }),
    (error: unknown): Raced => ({ kind: 'error', error }),
  );
  const contenders: Promise<Raced>[] = [answered];
  if (timeoutMs !== Number.POSITIVE_INFINITY) {
    contenders.push(
      new Promise<Raced>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
      }),
    );
  }
  let raced: Raced;
  try {
    raced = await Promise.race(contenders);
  } finally {
    clearTimeout(timer);
  }

  if (raced.kind === 'timeout') {
    controller.abort(new Error(`No answer within ${timeoutMs} ms`));
    logger.warn(`Approval for ${label} timed out after ${timeoutMs} ms; denying`);
    return { allow: false, status: 'timeout', message: `no approval within ${timeoutMs} ms` };
  }
  if (raced.kind === 'error') {
    logger.error(`Approval handler for ${label} threw; denying`, raced.error);
    return {
      allow: false,
      status: 'error',
      message: `the approval handler failed: ${describeError(raced.error)}`,
    };
  }
  const value = raced.value;
  if (typeof value === 'boolean') {
    return value
      ? { allow: true, status: 'answered' }
      : { allow: false, status: 'answered', message: denied };
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { allow?: unknown }).allow === 'boolean'
  ) {
    const { allow, message } = value as { allow: boolean; message?: unknown };
    if (allow) return { allow: true, status: 'answered' };
    return {
      allow: false,
      status: 'answered',
      message: typeof message === 'string' && message !== '' ? message : denied,
    };
  }
  logger.error(`Approval handler for ${label} returned an invalid answer; denying`, value);
  return { allow: false, status: 'error', message: 'the approval handler returned an invalid answer' };
}
