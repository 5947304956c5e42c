/** What an `AgentProcess` (`child-process.ts`) starts, how it reports, how it is shut down, and how it ended. */
import type { START_WORK_HOLD_MS } from './spawn-queue.js';

/** How an agy process ended. */
export interface ExitInfo {
  /** Exit code, or null when killed by a signal (or when the supervisor itself died). */
  code: number | null;
  /** The terminating signal, if any. */
  signal: NodeJS.Signals | null;
}

/** What to start and where to send its output. */
export interface AgentProcessOptions {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Raw stdout chunks, in order. */
  onStdout: (chunk: Buffer) => void;
  /** End of stdout. */
  onStdoutEnd: () => void;
  /** Each complete stderr line. */
  onStderrLine: (line: string) => void;
  /** Called once with the agy pid when it has started. */
  onSpawn?: ((pid: number) => void) | undefined;
  /**
   * Called as the process is spawned: settles when its start work beyond its first output is done (agy lists
   * the session's own tools after its `init`). The start's spawn slot is held until then, at most
   * {@link START_WORK_HOLD_MS} after the first output, or until the process exits.
   */
  startWork?: (() => Promise<unknown>) | undefined;
  /** How long after the first output `startWork` may hold the slot. Default {@link START_WORK_HOLD_MS}. */
  startWorkHoldMs?: number | undefined;
}

/** Shutdown timings. */
export interface CloseTimings {
  /** How long agy gets to exit after stdin EOF before SIGTERM. */
  graceMs: number;
  /** How long after SIGTERM before SIGKILL. */
  termGraceMs: number;
}
