/**
 * The one seam a recorder (`agy-sdk/testing` cassettes) hooks into: a backend reports what crossed its
 * process pipes and its session listener, exactly as it was, and does nothing else with the tap. Every call
 * is contained by the backend (a tap that throws is logged, never felt by the session).
 */

/** What the session's backend reports to a recorder. */
export interface WireTap {
  /** A process started (first launch and every restart) with these arguments. */
  spawn(args: readonly string[], binary: string): void;
  /** A line written to the agent's stdin (without the newline). */
  stdin(line: string): void;
  /** The SDK closed the agent's stdin (close, restart): agy exits on EOF. */
  stdinClosed(): void;
  /** The SDK sent the agent a signal (`SIGINT` to interrupt a turn). */
  signal(signal: string): void;
  /** A line the agent wrote to stdout (without the newline). */
  stdout(line: string): void;
  /** A line the agent wrote to stderr. */
  stderr(line: string): void;
  /** The process ended. */
  exit(code: number | null, signal: string | null): void;
  /** A hook call arrived (before any handler runs); `request` is the same object its answer names. */
  hookRequest(event: string, request: unknown): void;
  /** The one answer sent for a hook call. */
  hookAnswer(event: string, request: unknown, answer: unknown): void;
  /** One MCP POST on the listener, answered. */
  mcp(server: string, request: unknown, status: number, response: unknown): void;
  /** One JSON-RPC message on an ACP agent's pipes. */
  acp?(direction: 'in' | 'out', message: unknown): void;
  /** Values to scrub, known once the session is built (the listener token, the session directory). */
  secrets(known: { token?: string | undefined; sessionDir?: string | undefined }): void;
  /** The agent CLI's version, once known. */
  version(version: string | null): void;
  /** A turn ended: a good moment to write what was recorded so far. */
  turnEnded(): void;
  /** The session closed: write the cassette. */
  close(): Promise<void>;
}

/**
 * The tap with every call contained: a recorder that throws is reported through `report` and the session
 * goes on without that record.
 */
export function containedTap(tap: WireTap, report: (what: string, error: unknown) => void): WireTap {
  const wrap =
    <A extends unknown[]>(what: keyof WireTap, fn: ((...args: A) => void) | undefined) =>
    (...args: A): void => {
      try {
        fn?.apply(tap, args);
      } catch (error) {
        report(`the cassette recorder (${what})`, error);
      }
    };
  return {
    spawn: wrap('spawn', tap.spawn),
    stdin: wrap('stdin', tap.stdin),
    stdinClosed: wrap('stdinClosed', tap.stdinClosed),
    signal: wrap('signal', tap.signal),
    stdout: wrap('stdout', tap.stdout),
    stderr: wrap('stderr', tap.stderr),
    exit: wrap('exit', tap.exit),
    hookRequest: wrap('hookRequest', tap.hookRequest),
    hookAnswer: wrap('hookAnswer', tap.hookAnswer),
    mcp: wrap('mcp', tap.mcp),
    acp: wrap('acp', tap.acp),
    secrets: wrap('secrets', tap.secrets),
    version: wrap('version', tap.version),
    turnEnded: wrap('turnEnded', tap.turnEnded),
    close: () => tap.close(),
  };
}
