/**
 * The agy stream-json transport: one long-lived `agy --input-format stream-json --output-format stream-json`
 * process per conversation, one user line per turn, one `result` per turn (docs/reference/process.md#one-process-per-conversation).
 *
 * Guarantees:
 * - every turn ends in a fail-closed `TurnResult` (see `outcome.ts`), never a hang or an unhandled rejection;
 * - an interrupt, a watchdog timeout or a crash leaves the conversation usable: the next turn runs in a fresh
 *   process started with `--conversation <same id>`;
 * - agy and its children never outlive the host (see `process/supervisor.ts`).
 */

import {
  type AgySdkError,
  ClosedError,
  ConversationNotFoundError,
  LineTooLongError,
  ProcessExitError,
  StartError,
  UsageError,
  WatchdogTimeoutError,
} from '../../../errors.js';
import { callContained } from '../../../internal/contain.js';
import { consoleLogger, type Logger } from '../../../logger.js';
import type { Step } from '../../../model/step.js';
import type { TurnResult } from '../../../model/turn-result.js';
import type { WireUserLine } from '../../../protocol/stream-json-wire.js';
import type { Connection, ConnectionInfo, TurnRequest, TurnSink } from '../../connection.js';
import type { AgentProcess, ExitInfo } from '../../process/child-process.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../process/line-splitter.js';
import type { WireTap } from '../../wire-tap.js';
import { AgyLaunch } from './agy-launch.js';
import { cachedAgyVersion, probeAgyVersion, probesStopped, resolveAgyBinary } from './binary.js';
import { mismatchFromStderr } from './cassette-mismatch.js';
import { buildAgyArgs, buildAgyEnv, type LaunchSpec } from './command-line.js';
import { type DriftEntry, DriftTracker } from './drift.js';
import { checkFlagSupport, gatedFlags } from './flag-support.js';
import { commandFromWire, deniedFromWire, resultFacts, usageFromWire } from './normalize.js';
import { classifyTurn, softDenialLine, softDenialPermission, type TurnRequestedEnd } from './outcome.js';
import type { BadLine } from './parse-line.js';
import { runPrintCommand } from './print-command.js';
import { TurnTracker } from './turn-tracker.js';

/** Options of the stream-json transport. Paths must be absolute and already validated. */
export interface StreamJsonConnectionOptions extends LaunchSpec {
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

/** What a launch asked to resume and what agy opened (docs/reference/stream-json.md#unknown-conversation). */
interface ResumeCheck {
  asked: string;
  opened: string;
  /** agy's own stderr warning, when it wrote one before `init`. */
  warning: string | undefined;
  /** Reported on a turn already (`TurnResult.resumed`). */
  reported: boolean;
  /** Warned about and, under `resume: 'require'`, refused already. */
  checked: boolean;
}

const NOT_FOUND_WARNING = /^warning: conversation "[^"]*" not found/;
/** The start of agy's `result` line (docs/reference/stream-json.md#envelope: `{"event":"result",…}`). */
const RESULT_LINE_HEAD = /^\s*\{\s*"event"\s*:\s*"result"/;

interface ActiveTurn {
  tracker: TurnTracker;
  sink: TurnSink;
  requested: TurnRequestedEnd;
  /** The user line has been written to agy. */
  sent: boolean;
  /** The process the turn runs in; output of any other (an old one still shutting down) is ignored. */
  launch?: AgyLaunch | undefined;
  error: AgySdkError | undefined;
  finish: (exit: ExitInfo | null) => void;
  timers: NodeJS.Timeout[];
  idleTimer: NodeJS.Timeout | undefined;
  /** When agy last showed activity (`performance.now()`): the idle watchdog measures quiet from here. */
  lastActivity: number;
  /** Stops a slash command's print-mode run (set only for those). */
  stopCommand?: (() => void) | undefined;
}

/**
 * Prompt text is never a command: agy refuses text starting with `/` on stdin (1.3.1: `result` ERROR "… is
 * answered by the CLI itself …", exit 2; agy-real/littlebearapps-untether-agy-1.3.1/stream_slash_fatal.script), so
 * such a first block is sent behind a zero-width space (U+200B, which neither agy's trimming nor the model
 * reads as anything). docs/reference/stream-json.md#slash-commands.
 */
export function literalText(text: readonly string[]): string[] {
  const first = text.findIndex((t) => t.trim() !== '');
  if (first < 0 || !text[first]!.trimStart().startsWith('/')) return [...text];
  return text.map((t, i) => (i === first ? `\u200b${t}` : t));
}

export class StreamJsonConnection implements Connection {
  readonly #opts: StreamJsonConnectionOptions;
  readonly #maxLineBytes: number;
  readonly #logger: Logger;
  readonly #countedSteps = new Set<string>();
  #binary: string | undefined;
  #env: NodeJS.ProcessEnv | undefined;
  #model: string | undefined;
  #conversationId: string | undefined;
  /** True once this connection has run (or resumed) a conversation, so result-only usage is not trusted. */
  #resumed: boolean;
  #launch: AgyLaunch | undefined;
  /** The `--json-schema` file the next process starts with: the launch one, or the running turn's own. */
  #schemaFile: string | undefined;
  /** The `--json-schema` file `#launch` was started with. */
  #launchSchemaFile: string | undefined;
  /** A restart in progress (after an interrupt, timeout, crash or model switch). */
  #restarting: Promise<void> | undefined;
  #turn: ActiveTurn | undefined;
  /** Per launch that asked for `--conversation`: what agy opened. */
  readonly #resumeChecks = new WeakMap<AgyLaunch, ResumeCheck>();
  #closed = false;
  /** Stops waiting for the version probe on close (the probe is killed once no connection waits for it). */
  readonly #probeAbort = new AbortController();
  /** The version once known: the cached answer, or the probe started after this connection's first `init`. */
  #version: Promise<string | null> | undefined;
  #info: ConnectionInfo = {
    version: null,
    conversationId: undefined,
    model: undefined,
    tools: [],
    permissionMode: undefined,
    cwd: undefined,
    pid: undefined,
  };
  readonly stats: ConnectionStats;
  readonly #drift: DriftTracker;

  constructor(opts: StreamJsonConnectionOptions) {
    this.#opts = opts;
    this.#maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#logger = opts.logger ?? consoleLogger;
    this.#drift = new DriftTracker(this.#logger, () => this.#info.version);
    this.stats = { lines: 0, badLines: 0, unknownEvents: 0, processesStarted: 0, drift: this.#drift.entries };
    this.#model = opts.model;
    this.#schemaFile = opts.jsonSchemaFile;
    this.#conversationId = opts.conversationId;
    this.#resumed = opts.conversationId !== undefined;
  }

  get conversationId(): string | undefined {
    return this.#conversationId;
  }

  get info(): ConnectionInfo {
    return this.#info;
  }

  /** True once the version probe was abandoned because the connection is closing. */
  get versionProbeAbandoned(): boolean {
    return this.#probeAbort.signal.aborted;
  }

  /**
   * agy's version once `agy --version` has answered (at once when it is already known); null when the probe
   * failed, timed out or the connection closed first; `info.version` then holds the same. Before `start()`: null.
   */
  probedVersion(): Promise<string | null> {
    return this.#version ?? Promise.resolve(null);
  }

  get isIdle(): boolean {
    return this.#turn === undefined;
  }

  /**
   * Tells the watchdog agy is busy although stdout is quiet (a hook or one of our tools is running on its
   * behalf), so a long tool call is not mistaken for a stall.
   */
  noteActivity(): void {
    if (this.#turn) this.#turn.lastActivity = performance.now();
  }

  /** The running agy process's pid, if any. */
  get pid(): number | undefined {
    return this.#launch?.proc.pid;
  }

  async start(): Promise<ConnectionInfo> {
    if (this.#closed) throw new ClosedError();
    if (this.#launch) {
      await this.#launch.ready;
      return this.#info;
    }
    this.#env = buildAgyEnv(this.#opts.env);
    this.#binary = resolveAgyBinary({ agyPath: this.#opts.agyPath, env: this.#env });
    await this.#checkGatedFlags();
    const launch = this.#spawn();
    await launch.ready;
    await this.#checkResumed(launch);
    // The version probe runs after `init`, never on the start's critical path: a known answer (every start but
    // the first per binary) is there at once; otherwise `info.version` is null until the probe answers.
    const known = cachedAgyVersion(this.#binary, this.#env);
    if (known !== undefined) {
      this.#info = { ...this.#info, version: known };
      this.#version = Promise.resolve(known);
    } else
      this.#version = probeAgyVersion(this.#binary, this.#env, {
        cwd: this.#opts.cwd,
        timeoutMs: this.#opts.versionProbeTimeoutMs,
        signal: this.#probeAbort.signal,
      }).then((version) => {
        this.#info = { ...this.#info, version };
        this.#opts.tap?.version(version);
        return version;
      });
    if (known !== undefined) this.#opts.tap?.version(known);
    return this.#info;
  }

  /**
   * A flag only some builds accept (`flag-support.ts`) is checked against the version before agy first runs:
   * only then is the probe on the start's critical path (one `agy --version`, cached per binary).
   */
  async #checkGatedFlags(): Promise<void> {
    const flags = gatedFlags(this.#opts);
    if (flags.length === 0) return;
    const cached = cachedAgyVersion(this.#binary!, this.#env!);
    const version =
      cached !== undefined
        ? cached
        : await probeAgyVersion(this.#binary!, this.#env!, {
            cwd: this.#opts.cwd,
            timeoutMs: this.#opts.versionProbeTimeoutMs,
            signal: this.#probeAbort.signal,
          });
    if (this.#closed) throw new ClosedError();
    checkFlagSupport(flags, version, (f) =>
      this.#logger.warn(
        `agy's version is unknown: ${f.flag} is passed unchecked (agy refuses a flag it does not know)`,
      ),
    );
  }

  async runTurn(request: TurnRequest, sink: TurnSink): Promise<TurnResult> {
    if (this.#closed) throw new ClosedError();
    if (this.#turn)
      throw new UsageError('runTurn: a turn is already running (the Conversation queues turns)');
    if (request.jsonSchema !== undefined && !this.#opts.writeJsonSchema)
      throw new UsageError('runTurn: a per-turn jsonSchema needs the writeJsonSchema option');
    const tracker = new TurnTracker(this.#countedSteps, () => this.#conversationId);
    if (request.command) return this.#runCommand(request.command, sink, tracker, request.timeoutMs);
    // Claim the turn slot before any await, so a concurrent misuse is caught.
    const placeholder: ActiveTurn = {
      tracker,
      sink,
      requested: null,
      sent: false,
      error: undefined,
      finish: () => {},
      timers: [],
      idleTimer: undefined,
      lastActivity: 0,
    };
    this.#turn = placeholder;
    for (let attempt = 0; ; attempt++) {
      try {
        // agy takes a schema only at launch: a turn whose schema differs from the process's runs in a process
        // relaunched on the same conversation (#ensureProcess), and the next turn without one goes back.
        this.#schemaFile =
          request.jsonSchema === undefined
            ? this.#opts.jsonSchemaFile
            : await this.#opts.writeJsonSchema!(request.jsonSchema);
        await this.#ensureProcess();
      } catch (err) {
        this.#turn = undefined;
        return this.#startFailureResult(err, tracker);
      }
      const launch = this.#launch!;
      if (placeholder.requested) {
        // Canceled while the process was (re)starting: never send the message.
        this.#turn = undefined;
        return this.#buildResult(placeholder, null, launch.proc);
      }
      placeholder.launch = launch;
      const exit = await this.#send(placeholder, launch, request);
      // agy may exit right after a `result` (quota, errors, #947-style exits). If the process died before it
      // wrote a single line for this turn, it never started the turn: run it once more in a fresh process.
      if (exit && tracker.lines === 0 && !placeholder.requested && attempt === 0 && !this.#closed) {
        placeholder.error = undefined;
        placeholder.sent = false;
        await this.#replace(launch).catch(() => {});
        continue;
      }
      this.#turn = undefined;
      const result = this.#buildResult(placeholder, exit, launch.proc);
      this.#opts.tap?.turnEnded();
      // A process that was interrupted, timed out or died is replaced before the next turn.
      if (exit || placeholder.requested) this.#restartLater(launch);
      return result;
    }
  }

  /** Writes the user line and waits for the turn's end: its `result` (null) or the process exit. */
  async #send(turn: ActiveTurn, launch: AgyLaunch, request: TurnRequest): Promise<ExitInfo | null> {
    const done = new Promise<ExitInfo | null>((resolve) => {
      turn.finish = resolve;
    });
    turn.sent = true;
    // agy's tree is sampled for descendants only while a turn runs (see process/host-scan.ts).
    launch.proc.setBusy(true);
    this.#armWatchdog(turn, request.timeoutMs);
    const line: WireUserLine = {
      event: 'user',
      message: {
        role: 'user',
        content: literalText(request.text).map((text) => ({ type: 'text' as const, text })),
      },
    };
    const text = JSON.stringify(line);
    this.#opts.tap?.stdin(text);
    launch.proc.write(`${text}\n`).catch(() => {
      // agy died before reading the message; the exit path ends the turn.
    });
    const exit = await done;
    launch.proc.setBusy(false);
    for (const t of turn.timers) clearTimeout(t);
    turn.timers = [];
    if (turn.idleTimer) clearTimeout(turn.idleTimer);
    turn.idleTimer = undefined;
    return exit;
  }

  /**
   * A slash command (`TurnRequest.command`) in a print-mode run on the same conversation
   * (see `print-command.ts`): its `command_result` is delivered as a `command` step and is `TurnResult.command`.
   */
  async #runCommand(
    cmd: { name: string; args: string },
    sink: TurnSink,
    tracker: TurnTracker,
    timeoutMs: number | undefined,
  ): Promise<TurnResult> {
    const abort = new AbortController();
    const placeholder: ActiveTurn = {
      tracker,
      sink,
      requested: null,
      sent: true,
      error: undefined,
      finish: () => {},
      timers: [],
      idleTimer: undefined,
      lastActivity: 0,
      stopCommand: () => abort.abort(),
    };
    this.#turn = placeholder;
    try {
      this.#env ??= buildAgyEnv(this.#opts.env);
      this.#binary ??= resolveAgyBinary({ agyPath: this.#opts.agyPath, env: this.#env });
      const run = await runPrintCommand({
        binary: this.#binary,
        env: this.#env,
        cwd: this.#opts.cwd,
        command: cmd.args ? `/${cmd.name} ${cmd.args}` : `/${cmd.name}`,
        conversationId: this.#conversationId,
        model: this.#model,
        effort: this.#opts.effort,
        maxLineBytes: this.#maxLineBytes,
        timeoutMs: timeoutMs ?? this.#opts.turnTimeoutMs ?? this.#opts.startTimeoutMs ?? 60_000,
        signal: abort.signal,
        onStderrLine: (line) => {
          tracker.stderrLines.push(line);
          callContained(this.#logger, 'onStderr', this.#opts.onStderr, line);
        },
        onSpawn: (pid) => {
          this.stats.processesStarted++;
          callContained(this.#logger, 'onSpawn', this.#opts.onSpawn, pid);
        },
      });
      if (run.timedOut && !placeholder.requested) placeholder.requested = 'timeout';
      tracker.result = run.result;
      if (run.command) {
        tracker.command = run.command;
        this.#deliver(sink, {
          conversationId: this.#conversationId,
          stepIndex: -1,
          state: 'DONE',
          type: 'command',
          command: run.command,
          raw: { step_index: -1, state: 'DONE', step_type: 'command', command: run.payload },
        });
        callContained(this.#logger, 'onCommandResult', this.#opts.onCommandResult, run.payload ?? {});
      }
      const outcome = classifyTurn({
        result: run.result,
        exit: run.exit,
        stderrLines: tracker.stderrLines,
        deniedActions: [],
        agentResponseError: undefined,
        requested: placeholder.requested,
        lineTooLong: false,
        command: run.command !== undefined,
      });
      const commandResult = run.command ?? (run.result ? commandFromWire(run.result.command) : undefined);
      const turnResult: TurnResult = {
        status: outcome.status,
        text: resultFacts(run.result).response ?? '',
        usage: null,
        totalUsage: null,
        deniedActions: [],
        toolCalls: [],
        exitCode: run.exit.code,
        signal: run.exit.signal,
        stderrTail: run.stderrTail,
        result: run.result,
        structuredOutput: undefined,
        conversationId: this.#conversationId,
        durationMs: Date.now() - tracker.startedAt,
        errorMessage: outcome.message,
      };
      if (commandResult) turnResult.command = commandResult;
      if (outcome.status !== 'success') {
        turnResult.error = new ProcessExitError(outcome.message || 'the slash command failed', {
          exitCode: run.exit.code,
          signal: run.exit.signal,
          stderrTail: run.stderrTail,
        });
      }
      return turnResult;
    } catch (err) {
      return this.#startFailureResult(err, tracker);
    } finally {
      this.#turn = undefined;
    }
  }

  async interrupt(reason: 'interrupted' | 'canceled' = 'interrupted'): Promise<void> {
    const turn = this.#turn;
    if (!turn || turn.requested) return;
    turn.requested = reason;
    if (turn.stopCommand) turn.stopCommand();
    else this.#stopTurnProcess(turn);
  }

  async setModel(model: string): Promise<void> {
    if (this.#closed) throw new ClosedError();
    if (this.#turn) throw new UsageError('setModel: wait until the turn ends (the Conversation queues this)');
    this.#model = model;
    if (this.#restarting) await this.#restarting.catch(() => {});
    const launch = this.#launch;
    if (!launch) return;
    // There is no way to switch the model of a running agy: close the idle process and resume in a new one.
    await this.#track(this.#replace(launch));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A cassette names agy's version (its replay answers `--version` with it; `show` prints it): while one is
    // recorded, a probe still in flight (a short first run) finishes within its own bound instead of being
    // killed, which left every short recording "version unknown".
    if (!this.#opts.tap) this.#probeAbort.abort();
    if (this.#turn && !this.#turn.requested) this.#turn.requested = 'canceled';
    this.#turn?.stopCommand?.();
    // Close the current process first: a restart waiting for its `init` then fails fast instead of holding
    // close() for up to startTimeoutMs, and #replace never spawns once #closed is set.
    const launch = this.#launch;
    this.#launch = undefined;
    if (launch) {
      this.#opts.tap?.stdinClosed();
      await launch.proc.close(this.#closeTimings());
    }
    await this.#restarting?.catch(() => {});
    const late = this.#launch as AgyLaunch | undefined;
    if (late) {
      this.#opts.tap?.stdinClosed();
      await late.proc.close(this.#closeTimings());
    }
    // A version probe this connection was the last to wait for was killed by the abort above (or, recording,
    // answered or timed out): it is gone too before close() returns (its wait never rejects: null on failure).
    await this.#version?.catch(() => null);
    this.#probeAbort.abort();
    await probesStopped();
  }

  #closeTimings() {
    return { graceMs: this.#opts.closeGraceMs ?? 3000, termGraceMs: this.#opts.termGraceMs ?? 2000 };
  }

  async #ensureProcess(): Promise<void> {
    // A failed restart is not final: its process is gone, so this turn simply starts a fresh one.
    if (this.#restarting) await this.#restarting.catch(() => {});
    if (this.#closed) throw new ClosedError();
    if (this.#launch && this.#launchSchemaFile !== this.#schemaFile)
      await this.#track(this.#replace(this.#launch));
    if (!this.#launch) {
      if (!this.#binary) {
        await this.start();
        return;
      }
      this.#spawn();
    }
    const launch = this.#launch!;
    await launch.ready;
    await this.#checkResumed(launch);
  }

  /**
   * agy 1.3.1 answers `--conversation X` for an id it does not know with `warning: conversation "X" not found`
   * on stderr and a new conversation in `init` (agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script):
   * warned about once per launch; under `resume: 'require'` the process is stopped and the start fails.
   */
  async #checkResumed(launch: AgyLaunch): Promise<void> {
    const check = this.#resumeChecks.get(launch);
    if (!check || check.asked === check.opened || check.checked) return;
    check.checked = true;
    this.#logger.warn(
      `agy did not resume conversation "${check.asked}"${check.warning ? ` (${check.warning})` : ''}; it started a new conversation "${check.opened}"`,
    );
    if (this.#opts.resume !== 'require') return;
    if (this.#launch === launch) this.#launch = undefined;
    this.#conversationId = check.asked;
    this.#info = { ...this.#info, conversationId: check.asked };
    await launch.proc.close(this.#closeTimings());
    throw new ConversationNotFoundError(check.asked, check.opened, {
      exitCode: null,
      signal: null,
      stderrTail: launch.proc.stderrTail,
    });
  }

  #restartLater(old: AgyLaunch): void {
    if (this.#closed) return;
    this.#track(this.#replace(old));
  }

  /** Records a restart in progress, and forgets it once settled (a failure surfaces on the next turn). */
  #track(restart: Promise<void>): Promise<void> {
    this.#restarting = restart;
    const clear = () => {
      if (this.#restarting === restart) this.#restarting = undefined;
    };
    restart.then(clear, clear);
    return restart;
  }

  /** Closes `old` (bounded) and starts a fresh process on the same conversation. */
  async #replace(old: AgyLaunch): Promise<void> {
    if (this.#launch === old) this.#launch = undefined;
    this.#opts.tap?.stdinClosed();
    await old.proc.close(this.#closeTimings());
    if (this.#closed) return;
    if (this.#conversationId) this.#resumed = true;
    await this.#spawn().ready;
  }

  #spawn(): AgyLaunch {
    const o = this.#opts;
    const args = buildAgyArgs({
      addDirs: o.addDirs,
      model: this.#model,
      effort: o.effort,
      mode: o.mode,
      sandbox: o.sandbox,
      conversationId: this.#conversationId,
      jsonSchemaFile: this.#schemaFile,
      skipPermissions: o.skipPermissions,
      extraArgs: o.extraArgs,
    });
    this.#launchSchemaFile = this.#schemaFile;
    const tap = o.tap;
    tap?.spawn(args, this.#binary!);
    const asked = this.#conversationId;
    /** The running turn, if it runs in this process (an old process shutting down must not touch it). */
    const turnHere = (): ActiveTurn | undefined => (this.#turn?.launch === launch ? this.#turn : undefined);
    const launch: AgyLaunch = new AgyLaunch(
      {
        binary: this.#binary!,
        args,
        env: this.#env!,
        cwd: o.cwd,
        maxLineBytes: this.#maxLineBytes,
        startTimeoutMs: o.startTimeoutMs ?? 60_000,
        startWork: o.startWork,
      },
      {
        onLine: (line) => {
          tap?.stdout(line);
          this.stats.lines++;
          const turn = turnHere();
          if (turn) {
            if (turn.sent) turn.tracker.lines++;
            turn.lastActivity = performance.now();
          }
        },
        onEvent: (event, raw) => {
          const turn = turnHere();
          if (!turn) return;
          turn.tracker.lastLine = raw;
          if (event.type === 'step') {
            this.#drift.step(event.step.raw as Record<string, unknown>);
            this.#deliver(turn.sink, turn.tracker.onStep(this.#resolveTool(event.step)));
          } else if (event.type === 'result') {
            if (event.conversationId) this.#conversationId = event.conversationId;
            this.#drift.result(event.result as Record<string, unknown>);
            turn.tracker.result = event.result;
            // stdout and stderr are separate pipes: a stderr marker agy wrote just before this `result`
            // (print timeout, quota) may not have been read yet. Let the event loop drain what is readable.
            setImmediate(() => setImmediate(() => turn.finish(null)));
          } else if (event.type === 'command_result') {
            if (event.command) {
              turn.tracker.command = event.command;
              // Not an agy step: -1 says agy gave it no index. Delivered so `steps()` shows it in order.
              this.#deliver(turn.sink, {
                conversationId: event.conversationId ?? this.#conversationId,
                stepIndex: -1,
                state: 'DONE',
                type: 'command',
                command: event.command,
                raw: { step_index: -1, state: 'DONE', step_type: 'command', command: event.payload },
              });
            }
            callContained(this.#logger, 'onCommandResult', o.onCommandResult, event.payload);
          }
        },
        onBadLine: (bad) => {
          this.stats.badLines++;
          if (bad.reason === 'unknown_event') {
            this.stats.unknownEvents++;
            const name = (bad.value as { event?: unknown } | undefined)?.event;
            this.#drift.event(typeof name === 'string' ? name : '(no event name)');
          }
          if (
            bad.reason === 'malformed_event' &&
            (bad.value as { event?: unknown })?.event === 'step_update'
          ) {
            // Named too: the renamed or retyped field is what the user needs to see.
            const payload = (bad.value as { step_update?: unknown }).step_update;
            if (typeof payload === 'object' && payload !== null)
              this.#drift.step(payload as Record<string, unknown>);
            const turn = turnHere();
            if (turn) {
              const seen = turn.tracker.malformedSteps;
              if (seen) seen.count++;
              else turn.tracker.malformedSteps = { count: 1, first: bad.line.slice(0, 200) };
            }
          }
          if (bad.reason === 'too_deep') {
            const turn = turnHere();
            if (turn) turn.tracker.lineTooDeep = true;
          }
          callContained(this.#logger, 'onBadLine', o.onBadLine, bad);
        },
        onOverflow: (head) => {
          const turn = turnHere();
          if (!turn) return;
          turn.tracker.lineTooLong = true;
          turn.error ??= new LineTooLongError(this.#maxLineBytes);
          // The result repeats the turn's whole text (`response`, docs/reference/stream-json.md#text-streaming), so a
          // turn with one long text has an even longer result line. Dropped, nothing else ends the turn: it ends now.
          if (RESULT_LINE_HEAD.test(head) && !turn.tracker.resultTooLong) {
            turn.tracker.resultTooLong = true;
            setImmediate(() => setImmediate(() => turn.finish(null)));
          }
        },
        onStderrLine: (line) => {
          tap?.stderr(line);
          turnHere()?.tracker.stderrLines.push(line);
          callContained(this.#logger, 'onStderr', o.onStderr, line);
        },
        onHandlerError: (error, stream) => {
          this.#logger.error(`handling a line of agy's ${stream} threw; the line was dropped`, error);
        },
        onSpawn: (pid) => {
          this.stats.processesStarted++;
          callContained(this.#logger, 'onSpawn', o.onSpawn, pid);
        },
        onExit: (exit) => {
          const turn = turnHere();
          if (!turn || turn.tracker.result) return;
          if (!turn.requested) {
            turn.error ??= new ProcessExitError(
              exit.signal
                ? `agy was killed by ${exit.signal} during the turn`
                : `agy exited with code ${exit.code} during the turn`,
              { exitCode: exit.code, signal: exit.signal, stderrTail: launch.proc.stderrTail },
            );
          }
          turn.finish(exit);
        },
      },
    );
    this.#launch = launch;
    // Whenever it exits (before or after init), a dead process is no longer the current one.
    void launch.proc.exited.then((exit) => {
      tap?.exit(exit.code, exit.signal);
      if (this.#launch === launch) this.#launch = undefined;
    });
    // A start failure is handled by whoever awaits `ready`; this only records what init said.
    launch.ready.then(
      (init) => {
        if (launch.initPayload) this.#drift.init(launch.initPayload);
        if (asked !== undefined && init.conversationId !== undefined) {
          const warning = launch.preInitStderr.map((l) => l.trim()).find((l) => NOT_FOUND_WARNING.test(l));
          this.#resumeChecks.set(launch, {
            asked,
            opened: init.conversationId,
            warning,
            reported: false,
            checked: false,
          });
        }
        if (init.conversationId) this.#conversationId = init.conversationId;
        this.#info = {
          ...this.#info,
          conversationId: this.#conversationId,
          model: init.model ?? this.#model,
          tools: init.tools,
          permissionMode: init.permissionMode,
          agent: init.agent,
          cwd: init.cwd,
          pid: launch.proc.pid,
        };
      },
      () => {},
    );
    return launch;
  }

  /** Gives an MCP tool call the name its author chose, when the served name was normalized. */
  #resolveTool(step: Step): Step {
    const call = step.tool;
    const resolve = this.#opts.resolveToolName;
    if (!call?.mcpServer || !resolve) return step;
    const name = resolve(call.mcpServer, call.name);
    return name === undefined || name === call.name ? step : { ...step, tool: { ...call, name } };
  }

  #deliver(sink: TurnSink, step: Step): void {
    try {
      sink.onStep(step);
    } catch (err) {
      // A consumer's bug must not break the transport: report it and keep reading.
      this.#logger.error('a turn sink threw while handling a step; the step was dropped for it', err);
    }
  }

  #armWatchdog(turn: ActiveTurn, turnLimitMs: number | undefined): void {
    const { idleTimeoutMs } = this.#opts;
    const turnTimeoutMs = turnLimitMs ?? this.#opts.turnTimeoutMs;
    const fire = (kind: 'idle' | 'turn', limit: number) => () => {
      if (turn.requested) return;
      turn.requested = 'timeout';
      turn.error = new WatchdogTimeoutError(
        kind,
        limit,
        Date.now() - turn.tracker.startedAt,
        turn.tracker.lastLine,
        this.#launch?.proc.stderrTail ?? '',
      );
      this.#stopTurnProcess(turn);
    };
    if (idleTimeoutMs && idleTimeoutMs > 0) {
      const fireIdle = fire('idle', idleTimeoutMs);
      // Activity only stamps `lastActivity`; the timer looks at it when it fires and waits out the rest of the
      // limit. Refreshing the timer on every line cost a timer-list insert per event on the hot path.
      const check = (): void => {
        const quietMs = performance.now() - turn.lastActivity;
        if (quietMs >= idleTimeoutMs) fireIdle();
        else turn.idleTimer = setTimeout(check, Math.ceil(idleTimeoutMs - quietMs));
      };
      turn.lastActivity = performance.now();
      turn.idleTimer = setTimeout(check, idleTimeoutMs);
    }
    if (turnTimeoutMs && turnTimeoutMs > 0) {
      turn.timers.push(setTimeout(fire('turn', turnTimeoutMs), turnTimeoutMs));
    }
  }

  /** SIGINT, then kill the tree if the turn has not ended within the grace period. */
  #stopTurnProcess(turn: ActiveTurn): void {
    if (turn.idleTimer) {
      clearTimeout(turn.idleTimer);
      turn.idleTimer = undefined;
    }
    const proc = this.#launch?.proc;
    // Not sent yet: runTurn sees `requested` and never sends the message; the starting process is left alone.
    if (!proc || !turn.sent) return;
    this.#opts.tap?.signal('SIGINT');
    proc.signal('SIGINT');
    const grace = this.#opts.interruptGraceMs ?? 5000;
    turn.timers.push(
      setTimeout(() => {
        if (this.#turn === turn) proc.killTree();
      }, grace),
    );
  }

  #buildResult(turn: ActiveTurn, exit: ExitInfo | null, proc: AgentProcess): TurnResult {
    const { tracker } = turn;
    const result = tracker.result;
    const wireDenied = result ? deniedFromWire(result) : [];
    tracker.applyDeniedActions(wireDenied);
    const deniedActions = [...wireDenied, ...tracker.hookDenials];
    const command = tracker.command ?? (result ? commandFromWire(result.command) : undefined);
    const outcome = classifyTurn({
      result,
      exit,
      stderrLines: tracker.stderrLines,
      deniedActions,
      agentResponseError: tracker.agentResponseError,
      requested: turn.requested,
      lineTooLong: tracker.lineTooLong,
      resultTooLong: tracker.resultTooLong,
      lineTooDeep: tracker.lineTooDeep,
      malformedSteps: tracker.malformedSteps,
      deniedToolSteps: tracker.deniedToolSteps.size,
      command: command !== undefined,
      finishedModelStep: tracker.finishedModelStep,
      sawStepUsage: tracker.sawStepUsage,
      notices: tracker.notices,
      silentToolCalls: tracker.silentToolCalls.length,
    });
    if (outcome.status === 'denied' && result?.status === 'CANCELED') {
      const line = softDenialLine(tracker.stderrLines);
      tracker.applySoftDenial(line === undefined ? undefined : softDenialPermission(line));
    }
    const totalUsage = result ? usageFromWire(result.usage) : null;
    const facts = resultFacts(result);
    let usage = tracker.stepUsage;
    // Result-only usage is trusted only for the first turn of a fresh conversation, where it equals the turn.
    if (!usage && !this.#resumed && facts.numTurns === 1) usage = totalUsage;
    const text = tracker.text || (facts.response ?? '');
    const turnResult: TurnResult = {
      status: outcome.status,
      text,
      usage,
      totalUsage,
      notices: [...tracker.notices],
      deniedActions,
      toolCalls: tracker.toolCalls,
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      stderrTail: proc.stderrTail,
      result,
      structuredOutput: facts.structuredOutput,
      conversationId: this.#conversationId,
      durationMs: Date.now() - tracker.startedAt,
      errorMessage: outcome.message,
    };
    const check = turn.launch ? this.#resumeChecks.get(turn.launch) : undefined;
    if (check && !check.reported && turn.sent) {
      check.reported = true;
      if (check.asked !== check.opened) {
        turnResult.resumed = false;
        turnResult.notices = [
          ...(turnResult.notices ?? []),
          `agy did not know conversation "${check.asked}" and started a new conversation "${check.opened}"`,
        ];
      } else turnResult.resumed = true;
    }
    const subagentUsage = tracker.subagentUsage;
    if (subagentUsage) turnResult.subagentUsage = subagentUsage;
    if (facts.durationSeconds !== undefined) turnResult.agyDurationSeconds = facts.durationSeconds;
    if (command) turnResult.command = command;
    if (outcome.retryAfterMs !== undefined) {
      turnResult.retryAfterMs = outcome.retryAfterMs;
      turnResult.resetsAt = new Date(Date.now() + outcome.retryAfterMs);
    }
    const error =
      outcome.status === 'success'
        ? undefined
        : (mismatchFromStderr(tracker.stderrLines) ??
          turn.error ??
          (exit
            ? new ProcessExitError(outcome.message, {
                exitCode: exit.code,
                signal: exit.signal,
                stderrTail: proc.stderrTail,
              })
            : undefined));
    if (error) turnResult.error = error;
    return turnResult;
  }

  #startFailureResult(err: unknown, tracker: TurnTracker): TurnResult {
    const start = err instanceof StartError ? err : undefined;
    const status = start?.status ?? 'error';
    const result: TurnResult = {
      status: this.#closed ? 'canceled' : status,
      text: '',
      usage: null,
      totalUsage: null,
      deniedActions: [],
      toolCalls: [],
      exitCode: start?.exitCode ?? null,
      signal: start?.signal ?? null,
      stderrTail: start?.stderrTail ?? '',
      result: null,
      structuredOutput: undefined,
      conversationId: this.#conversationId,
      durationMs: Date.now() - tracker.startedAt,
      errorMessage: err instanceof Error ? err.message.split('\n')[0]! : String(err),
    };
    if (start) result.error = start;
    return result;
  }
}
