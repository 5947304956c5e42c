/**
 * Resuming over ACP (`session/load`), with Gemini CLI 0.61's same-minute quirk handled: it finds a saved
 * session by a file named after the minute the session started, and a process started in that same
 * wall-clock minute answers "No previous sessions found" (docs/reference/acp-backend.md#session-load). The
 * load is retried once, just after the minute turns; a second failure is a `StartError` that says so.
 */
import { StartError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** Gemini CLI's answer when it finds no saved session for the id. */
export const NO_PREVIOUS_SESSION = /No previous sessions? found/i;

/** Milliseconds until just after the next wall-clock minute (`now` in ms since the epoch). */
export function msToNextMinute(now: number): number {
  return 60_000 - (now % 60_000) + 1_000;
}

/** Options of {@link loadWithMinuteRetry}. */
export interface MinuteRetryOptions {
  /** Aborted when the connection closes: the wait ends at once and the load fails. */
  signal: AbortSignal;
  logger: Logger;
  /** The clock (tests). */
  now?: () => number;
}

/** Runs `load`; on "No previous sessions found" waits for the next minute and runs it once more. */
export async function loadWithMinuteRetry<T>(load: () => Promise<T>, o: MinuteRetryOptions): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!NO_PREVIOUS_SESSION.test(String((err as Error)?.message ?? err))) throw err;
    const wait = msToNextMinute((o.now ?? Date.now)());
    o.logger.info(
      `session/load found no saved session; Gemini CLI names session files by minute, so retrying in ${wait} ms, after the minute turns`,
    );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      o.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    if (o.signal.aborted) throw err;
    try {
      return await load();
    } catch (again) {
      if (!NO_PREVIOUS_SESSION.test(String((again as Error)?.message ?? again))) throw again;
      const diag = again instanceof StartError ? again : undefined;
      throw new StartError(
        'session/load: the agent found no saved session for this conversationId, also after the minute turned ' +
          '(Gemini CLI cannot load a session in the wall-clock minute it was started in; after that minute, the ' +
          'id is unknown in this cwd)',
        {
          exitCode: diag?.exitCode ?? null,
          signal: diag?.signal ?? null,
          stderrTail: diag?.stderrTail ?? '',
        },
        { cause: again },
      );
    }
  }
}
