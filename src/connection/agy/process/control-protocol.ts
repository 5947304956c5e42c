/**
 * The control channel between the host and a supervisor (fd 3, newline-delimited JSON), in one place so both
 * ends agree. A supervisor may be booted before anyone knows what it will run (a spare, see `spare.ts`): it
 * then waits for its spawn command as its first control line.
 */

/** A process found in /proc, as `[pid, start time]` (the start time tells a reused pid apart). */
export type FoundPair = [pid: number, start: string];

/** host → supervisor. */
export type HostCommand =
  /** What to run: the first line a supervisor booted without arguments waits for. */
  | { cmd: 'spawn'; binary: string; args: string[]; env: Record<string, string | undefined>; cwd: string }
  /** Descendants the host's scan found while agy ran: killed with it later, even if they left its tree. */
  | { cmd: 'adopt'; found: FoundPair[] }
  /** After agy exited: SIGKILL these marked processes now, then answer `killed`. */
  | { cmd: 'kill'; found: FoundPair[] }
  /** After agy exited: the host's scan finds nothing marked any more; the supervisor may exit. */
  | { cmd: 'swept' };

/** supervisor → host. */
export type SupervisorReport =
  /** Booted and waiting for `spawn` (spares only). */
  | { type: 'ready' }
  | { type: 'spawned'; pid: number; mark: string }
  /** agy exited; the supervisor now waits for the host's sweep (`kill`… then `swept`). */
  | { type: 'exit'; code: number | null; signal: NodeJS.Signals | null }
  /** A `kill` command was carried out. */
  | { type: 'killed' }
  | { type: 'error'; message: string };

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
