/** The results of turns that never reached the backend, or failed outside it. */
import { type AgySdkError, TurnDeniedError } from '../errors.js';
import { describeDenials } from '../model/denials.js';
import type { DeniedAction, TurnResult } from '../model/turn-result.js';

function baseResult(conversationId: string | undefined): Omit<TurnResult, 'status' | 'errorMessage'> {
  return {
    text: '',
    usage: null,
    totalUsage: null,
    deniedActions: [],
    toolCalls: [],
    exitCode: null,
    signal: null,
    stderrTail: '',
    result: null,
    structuredOutput: undefined,
    conversationId,
    durationMs: 0,
  };
}

/** A turn canceled (or interrupted) before it was sent. */
export function canceledResult(conversationId: string | undefined, why: string): TurnResult {
  return { ...baseResult(conversationId), status: 'canceled', errorMessage: why };
}

/** A turn whose preparation or run threw: `denied` for a `TurnDeniedError`, else `error`. */
export function failedResult(conversationId: string | undefined, err: unknown): TurnResult {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof TurnDeniedError) {
    const denial: DeniedAction = {
      action: 'turn',
      source: 'sdk',
      deniedBy: err.deniedBy ?? { kind: 'sdk' },
      reason: message,
    };
    return {
      ...baseResult(conversationId),
      status: 'denied',
      errorMessage: describeDenials([denial]),
      error: err,
      deniedActions: [denial],
    };
  }
  const result: TurnResult = { ...baseResult(conversationId), status: 'error', errorMessage: message };
  if (err instanceof Error && 'code' in err) result.error = err as AgySdkError;
  return result;
}
