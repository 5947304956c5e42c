/**
 * What the agy backend's process side is built from (`AgyProcessOptions`), and the counters it keeps
 * (`ConnectionStats`). Paths must be absolute and already validated.
 */
import type { Logger } from '../../../logger.js';
import type { WireTap } from '../../wire-tap.js';
import type { LaunchSpec } from './command-line.js';
import type { DriftEntry } from './drift.js';
import type { BadLine } from './parse-line.js';

/** Options of the agy process side: launch, time limits, callbacks. */
export interface AgyProcessOptions extends LaunchSpec {
  /** Path of the agy binary; otherwise `AGY_PATH`, then PATH. */
  agyPath?: string | undefined;
  /** Environment overrides, merged over `process.env` (`undefined` removes a variable). */
  env?: Record<string, string | undefined> | undefined;
  /** Working directory of the agy process. */
  cwd: string;
  /** How long to wait for `init`. Default 60 s. */
  startTimeoutMs?: number | undefined;
  /** How long `agy --version` may run before it is killed (the version is then null). Default 10 s. */
  versionProbeTimeoutMs?: number | undefined;
  /** Fail the turn with `timeout` when agy writes nothing for this long. Off by default. */
  idleTimeoutMs?: number | undefined;
  /** Fail the turn with `timeout` when it runs longer than this. Off by default. */
  turnTimeoutMs?: number | undefined;
  /** After SIGINT, how long agy gets to end the turn before its tree is killed. Default 5 s. */
  interruptGraceMs?: number | undefined;
  /** On close, how long agy gets after stdin EOF before SIGTERM. Default 3 s. */
  closeGraceMs?: number | undefined;
  /** On close, how long after SIGTERM before SIGKILL. Default 2 s. */
  termGraceMs?: number | undefined;
  /** Longest stdout line accepted. Default 64 MiB. */
  maxLineBytes?: number | undefined;
  /** Lines that are not JSON, not objects, or carry an unknown event. They never throw. */
  onBadLine?: ((bad: BadLine) => void) | undefined;
  /** Every `command_result` event (slash commands), with its payload (`{name, data}`) as sent. */
  onCommandResult?: ((payload: Record<string, unknown>) => void) | undefined;
  /**
   * Maps an MCP tool's served name back to the name its author gave it (`agyServer` as agy names the server,
   * e.g. `agy-sdk_tools`); `undefined` keeps the served name. Used for `ToolCall.name`.
   */
  resolveToolName?: ((agyServer: string, servedName: string) => string | undefined) | undefined;
  /** Every stderr line of agy. */
  onStderr?: ((line: string) => void) | undefined;
  /**
   * Writes a turn's own JSON Schema (`TurnRequest.jsonSchema`) to a private file and returns its path, for
   * `--json-schema`. The same schema must give the same path, so consecutive turns with one schema share a
   * process. Without it, a turn that carries a schema is refused.
   */
  writeJsonSchema?: ((schema: Record<string, unknown>) => Promise<string>) | undefined;
  /**
   * When agy does not know `conversationId` (it warns and starts a new conversation): `allow` (default) goes on
   * in the new one (`TurnResult.resumed: false`, a notice, a logger warning); `require` fails the start with a
   * `ConversationNotFoundError`.
   */
  resume?: 'allow' | 'require' | undefined;
  /** Called with the pid of each agy process started (restarts included). */
  onSpawn?: ((pid: number) => void) | undefined;
  /**
   * Called as each agy process is spawned: settles once its start work after `init` is done (it listed the
   * session's own tools). The host's start pacing waits for it, bounded (`spawn-queue.ts`).
   */
  startWork?: (() => Promise<unknown>) | undefined;
  /** Where contained failures are reported. Default: `consoleLogger`. */
  logger?: Logger | undefined;
  /** Sees every process start, stdin/stdout/stderr line and exit (a cassette recorder); contained. */
  tap?: WireTap | undefined;
}

/** Counters, for diagnostics and tests. */
export interface ConnectionStats {
  /** stdout lines received. */
  lines: number;
  /** Lines that were not understood (all reasons). */
  badLines: number;
  /** Of which: JSON objects with an event name this SDK does not know. */
  unknownEvents: number;
  /** agy processes started. */
  processesStarted: number;
  /**
   * What agy wrote that this SDK does not know (events, step types, states, statuses, fields), each name once
   * with its count; each is also logged (warn) the first time it is seen in the session.
   */
  drift: readonly DriftEntry[];
}
