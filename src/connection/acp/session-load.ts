/**
 * Resuming over ACP (`session/load`) with Gemini CLI 0.61's same-minute quirk handled
 * (docs/reference/acp.md#session-load): it saves a session as
 * `~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of id>.jsonl`, named by the UTC minute the
 * session started, and a load in that same wall-clock minute fails ("No previous sessions found" or "Invalid
 * session identifier") and spoils the file for good, so retrying after a failure cannot help. The SDK waits,
 * before the first `session/load`, until the session's minute has turned; the minute comes from the sessions
 * this process started, else from the session file's name under the agent's HOME.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Gemini CLI's answers for a session it cannot load. */
export const SESSION_NOT_LOADABLE = /No previous sessions? found|Invalid session identifier/i;

/** The start time (ms) of every session this process opened with `session/new`, by id. */
const STARTED = new Map<string, number>();

/** Notes that `sessionId` started now (its file is named by this minute). */
export function noteSessionStarted(sessionId: string, now: number = Date.now()): void {
  STARTED.set(sessionId, now);
}

/** `session-2026-11-30T23-59-<id8>.jsonl` → the start of that UTC minute, in ms; undefined when not such a name. */
export function minuteOfSessionFile(name: string, sessionId: string): number | undefined {
  const m = /^session-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(.+)\.jsonl?$/.exec(name);
  if (!m || m[6] !== sessionId.slice(0, 8)) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
}

/** When `sessionId` started, to the minute: from this process's own sessions, else its file under `home`. */
export async function sessionStartMinute(
  sessionId: string,
  home: string | undefined,
): Promise<number | undefined> {
  const known = STARTED.get(sessionId);
  if (known !== undefined) return known - (known % 60_000);
  if (!home) return undefined;
  const tmp = join(home, '.gemini', 'tmp');
  let projects: string[];
  try {
    projects = await readdir(tmp);
  } catch {
    return undefined;
  }
  for (const project of projects) {
    let files: string[];
    try {
      files = await readdir(join(tmp, project, 'chats'));
    } catch {
      continue;
    }
    for (const f of files) {
      const minute = minuteOfSessionFile(f, sessionId);
      if (minute !== undefined) return minute;
    }
  }
  return undefined;
}

/** Milliseconds to wait so that `now` is past the minute starting at `minute` (plus a margin); 0 when it is. */
export function msUntilMinuteTurned(minute: number, now: number, marginMs = 1_000): number {
  const next = minute + 60_000 + marginMs;
  return now < next && now >= minute - 60_000 ? next - now : 0;
}

/** Waits `ms`, or until `signal` aborts. */
export function waitOrAbort(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (ms <= 0 || signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
