/**
 * `POST /<token>/hook/<event>`: agy's hook command posts its stdin here and prints our answer. A hook that
 * throws, times out or answers something unserializable is logged and replaced by a safe default: for
 * `PreToolUse` an explicit deny (agy treats some non-answers as "allow" on some versions, so fail closed),
 * `{}` for everything else.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../internal/json-depth.js';
import { describeError, type Logger, toError } from '../../logger.js';
import { readBody } from './listener-body.js';
import { sendJson, sendStatus } from './listener-http.js';
import type { ListenerHeaders } from './request-headers.js';

/** Runs the host's hook logic for `event` on agy's hook input; the result is answered as JSON. */
export type HookHandler = (event: string, input: unknown, context: HookCallContext) => unknown;

/** The third argument of a {@link HookHandler}. */
export interface HookCallContext {
  /** Aborted when the hook timed out, the caller went away or the listener is closing. */
  signal: AbortSignal;
}

/**
 * The host's side of the hook endpoint: one object for a hook call's whole life, from the request to the
 * answer actually sent.
 */
export interface HookEndpoint {
  /** Answers one hook call; the result is sent as JSON. A throw or a timeout sends the fallback instead. */
  answer: HookHandler;
  /** Sees the one answer sent for each hook call (this endpoint's, or the fallback). Errors here are logged. */
  answered?: HookAnswerObserver | undefined;
}

/** Builds the answer for a hook that failed; its result is answered as JSON. */
export type HookFallback = (event: string, error: Error) => unknown;

export { DEFAULT_HOOK_TIMEOUT_MS } from './hook-timeout.js';

/** The default {@link HookFallback}: deny for `PreToolUse` (fail closed), `{}` otherwise. */
export function defaultHookFallback(event: string, error: Error): unknown {
  if (event === 'PreToolUse') return { decision: 'deny', reason: `agy-sdk hook failed: ${error.message}` };
  return {};
}

/** What {@link handleHookRequest} needs from the listener. */
export interface HookRouteOptions {
  /** Answers the call and sees the answer sent. */
  endpoint: HookEndpoint;
  /** The answer when the handler fails. */
  hookFallback: HookFallback;
  /** How long the handler may run. */
  hookTimeoutMs: number;
  /** The largest body read. */
  maxBodyBytes: number;
  /** Where failures are reported. */
  logger: Logger;
  /** Aborted when the listener closes. */
  signal: AbortSignal;
}

/** Sees the one answer sent for a hook call, whichever path produced it. Errors thrown here are logged. */
export type HookAnswerObserver = (event: string, input: unknown, answer: unknown) => void;

function report(options: HookRouteOptions, event: string, input: unknown, answer: unknown): void {
  try {
    options.endpoint.answered?.(event, input, answer);
  } catch (error) {
    options.logger.error('hook answer observer threw', { event, error: describeError(error) });
  }
}

/** A hook request that ended because its caller or the listener went away: not a failure of the hook. */
class HookEnded extends Error {
  override name = 'HookEnded';
}

/** Serves one hook request. */
export async function handleHookRequest(
  event: string,
  req: IncomingMessage,
  headers: ListenerHeaders,
  res: ServerResponse,
  options: HookRouteOptions,
): Promise<void> {
  const body = await readBody(req, options.maxBodyBytes, headers.contentLength);
  if (!body.ok) {
    // The relay turns the 413 into its own fail-closed answer (a deny for PreToolUse); report that answer
    // too, so the denial is recorded like every other one.
    options.logger.warn('hook input is larger than the body limit; the relay answers its fallback', {
      event,
      maxBodyBytes: options.maxBodyBytes,
    });
    report(options, event, undefined, fallback(event, new Error('hook input is too large'), options));
    sendStatus(res, 413, { Connection: 'close' });
    return;
  }
  let input: unknown;
  try {
    input = JSON.parse(body.body.toString('utf8'));
    // Hook input reaches user handlers and zod, which walk it recursively: bound its depth here.
    if (exceedsJsonDepth(input)) throw new Error(`hook input nests deeper than ${MAX_JSON_DEPTH} levels`);
  } catch (error) {
    options.logger.warn('hook input is not JSON; answering the fallback', {
      event,
      error: describeError(error),
    });
    // Still an explicit answer: a hook command that prints nothing may count as "allow".
    const answer = fallback(event, new Error('hook input is not valid JSON'), options);
    report(options, event, undefined, answer);
    sendJson(res, 400, answer);
    return;
  }
  try {
    const output = await runWithTimeout(event, input, res, options);
    // sendJson serializes before writing anything, so an unserializable answer lands in the fallback below.
    sendJson(res, 200, output ?? {});
    report(options, event, input, output ?? {});
  } catch (error) {
    const failure = toError(error);
    // The caller went away (agy interrupted or stopped) or the session is closing: an expected ending, and the
    // fallback reaches no one; only a real failure is a warning.
    if (failure instanceof HookEnded)
      options.logger.debug('hook ended before its answer; answering the fallback', {
        event,
        reason: failure.message,
      });
    else options.logger.warn('hook failed; answering the fallback', { event, error: failure.message });
    const answer = fallback(event, failure, options);
    report(options, event, input, answer);
    sendJson(res, 200, answer);
  }
}

async function runWithTimeout(
  event: string,
  input: unknown,
  res: ServerResponse,
  options: HookRouteOptions,
): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`hook ${event} timed out after ${options.hookTimeoutMs} ms`)),
    options.hookTimeoutMs,
  );
  const onListenerClose = () => controller.abort(new HookEnded('listener closed'));
  const onGone = () => {
    if (!res.writableEnded) controller.abort(new HookEnded('hook caller went away'));
  };
  options.signal.addEventListener('abort', onListenerClose, { once: true });
  res.on('close', onGone);
  // Settles only on abort; Promise.race subscribes to it, so a late rejection is never unhandled.
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(toError(controller.signal.reason)), {
      once: true,
    });
  });
  if (options.signal.aborted) onListenerClose();
  try {
    return await Promise.race([
      Promise.resolve().then(() => options.endpoint.answer(event, input, { signal: controller.signal })),
      aborted,
    ]);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onListenerClose);
    res.off('close', onGone);
  }
}

function fallback(event: string, error: Error, options: HookRouteOptions): unknown {
  try {
    return options.hookFallback(event, error);
  } catch (fallbackError) {
    options.logger.error('hookFallback threw; using the default fallback', {
      event,
      error: describeError(fallbackError),
    });
    return defaultHookFallback(event, error);
  }
}
