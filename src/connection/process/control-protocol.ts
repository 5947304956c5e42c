/**
 * The control channel between the host and its supervisor (fd 3, newline-delimited JSON), in one place so both
 * ends agree. One supervisor serves every agent process of the host; each command names its session by `id`.
 * The host writes `watch` before it spawns agy and `pid` right after, both synchronously into the pipe, so a host
 * SIGKILLed at any moment of a start leaves the supervisor knowing at least the session's marker.
 */

import type { FoundPair } from '../../platform/index.js';

/** A process found by a scan, as `[pid, start time]` (the start time tells a reused pid apart). */
export type { FoundPair };

/** host → supervisor. */
export type HostCommand =
  /**
   * A session is about to spawn agy with `mark` in its environment. `graceMs`: how long agy gets between the
   * SIGTERM and the SIGKILL when the host is gone.
   */
  | { cmd: 'watch'; id: number; mark: string; graceMs: number }
  /**
   * agy started as `pid`, leader of its own process group; `start`: its start time as the host read it right
   * after the spawn (absent without /proc), which tells agy apart from a later process with its pid.
   */
  | { cmd: 'pid'; id: number; pid: number; start?: string | undefined }
  /** Descendants the host's scan found while agy ran: killed with it later, even if they left its tree. */
  | { cmd: 'adopt'; id: number; found: FoundPair[] }
  /** agy exited (the host reaped it): its pid and group id are no longer its own; the host sweeps now. */
  | { cmd: 'exited'; id: number }
  /** Kill the session's whole tree now (group, descendants, adopted, marked), scanning /proc. */
  | { cmd: 'kill-tree'; id: number }
  /** The host's sweep found nothing left for the session: the supervisor forgets it. */
  | { cmd: 'forget'; id: number };

/** supervisor → host. */
export type SupervisorReport =
  /** Booted and reading commands. */
  | { type: 'ready'; pid: number }
  /** A `kill-tree` was carried out. */
  | { type: 'killed'; id: number };

/** One line on the control channel. */
export function controlLine(msg: HostCommand | SupervisorReport): string {
  return `${JSON.stringify(msg)}\n`;
}

/** Splits a control stream into lines; feeds each complete one to `onLine`. */
export function lineReader(onLine: (line: string) => void): (chunk: string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) onLine(line);
    }
  };
}
