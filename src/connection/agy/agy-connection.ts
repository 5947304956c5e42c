/**
 * The agy backend: ONE `Connection` that owns everything agy-specific — the session (`agy-session.ts`: its
 * directory, the loopback listener, shadow HOME, the hooks) and the long-lived
 * `agy --input-format stream-json --output-format stream-json` process of the conversation, one user line per
 * turn, one `result` per turn (docs/reference/process.md#one-process-per-conversation).
 *
 * Each agy process is read as one stream of typed events (`AgyProcess.events`, {@link AgyEvent}); every event
 * of every process is consumed here, in one `switch` (`#onEvent`): the start handshake, the running turn's
 * tracker and watchdog, the drift check, the counters and the recorder all see the events from there.
 *
 * Guarantees:
 * - every turn ends in a fail-closed `TurnResult` (see `outcome.ts`), never a hang or an unhandled rejection;
 * - an interrupt, a watchdog timeout or a crash leaves the conversation usable: the next turn runs in a fresh
 *   process started with `--conversation <same id>`;
 * - agy and its children never outlive the host (see `process/supervisor.ts`).
 */
import { ClosedError, UsageError } from '../../errors.js';
import { callContained } from '../../internal/contain.js';
import { consoleLogger, type Logger } from '../../logger.js';
import type { AgentCapabilities } from '../../model/capabilities.js';
import type { TurnResult } from '../../model/turn-result.js';
import type { Connection, ConnectionInfo, TurnRequest, TurnSink } from '../connection.js';
import type { ConnectionHost } from '../host.js';
import type { ExitInfo } from '../process/child-process.js';
import { hostSupervisor } from '../process/host-supervisor.js';
import { DEFAULT_MAX_LINE_BYTES } from '../process/line-splitter.js';
import { type AgyConnectionOptions, type AgySession, buildAgySession } from './agy-session.js';
import { AGY_CAPABILITIES } from './capabilities.js';
import type { SessionRuntime } from './session/session-runtime.js';
import { ActiveTurn } from './stream-json/active-turn.js';
import type { AgyEvent } from './stream-json/agy-event.js';
import { type AgyProcess, readEvents } from './stream-json/agy-process.js';
import { AgyProcesses } from './stream-json/agy-processes.js';
import { AgyVersion } from './stream-json/agy-version.js';
import { recordBadLine } from './stream-json/bad-line.js';
import { probesStopped } from './stream-json/binary.js';
import { commandStep, runCommandTurn } from './stream-json/command-turn.js';
import { DriftTracker } from './stream-json/drift.js';
import { withToolName } from './stream-json/normalize.js';
import type { BadLine } from './stream-json/parse-line.js';
import type { AgyProcessOptions, ConnectionStats } from './stream-json/process-options.js';
import { buildTurnResult, startFailureResult } from './stream-json/turn-outcome.js';
import { TurnTracker } from './stream-json/turn-tracker.js';
import { userLine } from './stream-json/user-line.js';

/** The agy backend behind `Connection`. */
export class AgyConnection implements Connection {
  /** Counters: lines, bad lines, unknown events, processes started, drift. */
  readonly stats: ConnectionStats;
  readonly #opts: AgyProcessOptions;
  readonly #session: AgySession | undefined;
  readonly #logger: Logger;
  readonly #maxLineBytes: number;
  readonly #drift: DriftTracker;
  readonly #processes: AgyProcesses;
  readonly #version: AgyVersion;
  /** Conversation-wide `<conversation>:<step>` keys whose usage was counted (agy may repeat a DONE update). */
  readonly #countedSteps = new Set<string>();
  #turn: ActiveTurn | undefined;
  #closed = false;

  /**
   * An agy connection over a built session (`create` builds it), or over none: then only the process side,
   * with `options` as given (the session's directory, listener and hooks are the caller's).
   */
  constructor(options: AgyProcessOptions, session?: AgySession) {
    this.#opts = options;
    this.#session = session;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#logger = options.logger ?? consoleLogger;
    this.#processes = new AgyProcesses(options, this.#logger, this.#maxLineBytes, (p) => this.#read(p));
    this.#version = new AgyVersion(options);
    this.#drift = new DriftTracker(this.#logger, () => this.#processes.info.version);
    this.stats = { lines: 0, badLines: 0, unknownEvents: 0, processesStarted: 0, drift: this.#drift.entries };
  }

  /** Builds the session (files, listener, shadow HOME); agy itself starts with `start()`. */
  static async create(o: AgyConnectionOptions, host: ConnectionHost): Promise<AgyConnection> {
    // The host's supervisor, once its first agy has started it, stays until this session ends (process/host-supervisor.ts).
    const releaseSupervisor = hostSupervisor.hold();
    try {
      let conn: AgyConnection | undefined;
      const built = await buildAgySession(o, host, () => conn, releaseSupervisor);
      conn = new AgyConnection(built.process, built.session);
      return conn;
    } catch (err) {
      await releaseSupervisor();
      throw err;
    }
  }

  /** The session runtime (directory, listener, files); a connection built without a session has none. */
  get runtime(): SessionRuntime {
    if (!this.#session) throw new UsageError('this AgyConnection was built without a session');
    return this.#session.runtime;
  }

  get conversationId(): string | undefined {
    return this.#processes.conversationId;
  }

  get info(): ConnectionInfo {
    return this.#processes.info;
  }

  /**
   * agy's version once `agy --version` has answered (at once when it is already known); null when the probe
   * failed, timed out or the connection closed first; `info.version` then holds the same. Before `start()`: null.
   */
  probedVersion(): Promise<string | null> {
    return this.#version.probed();
  }

  /** True once the version probe was abandoned because the connection is closing. */
  get versionProbeAbandoned(): boolean {
    return this.#version.abandoned;
  }

  get isIdle(): boolean {
    return this.#turn === undefined;
  }

  /** The running agy process's pid, if any. */
  get pid(): number | undefined {
    return this.#processes.current?.proc.pid;
  }

  /** agy's fixed flags, with the version once probed. */
  get capabilities(): AgentCapabilities {
    return { ...AGY_CAPABILITIES, agentVersion: this.info.version ?? undefined };
  }

  /**
   * Tells the watchdog agy is busy although stdout is quiet (a hook or one of our tools is running on its
   * behalf), so a long tool call is not mistaken for a stall.
   */
  noteActivity(): void {
    if (this.#turn) this.#turn.lastActivity = performance.now();
  }

  async start(): Promise<ConnectionInfo> {
    if (this.#closed) throw new ClosedError();
    const current = this.#processes.current;
    if (current) {
      await current.start.ready;
      return this.info;
    }
    const { binary, env } = this.#processes.resolve();
    await this.#version.checkGatedFlags(binary, env, this.#logger);
    if (this.#closed) throw new ClosedError();
    const p = this.#processes.spawn();
    await p.start.ready;
    await this.#processes.checkResumed(p);
    // The version probe runs after `init`, never on the start's critical path.
    this.#version.begin(binary, env, (version) => {
      this.#processes.info = { ...this.#processes.info, version };
      this.#opts.tap?.version(version);
    });
    return this.info;
  }

  async runTurn(request: TurnRequest, sink: TurnSink): Promise<TurnResult> {
    if (this.#closed) throw new ClosedError();
    if (this.#turn)
      throw new UsageError('runTurn: a turn is already running (the Conversation queues turns)');
    if (request.jsonSchema !== undefined && !this.#opts.writeJsonSchema)
      throw new UsageError('runTurn: a per-turn jsonSchema needs the writeJsonSchema option');
    const tracker = new TurnTracker(this.#countedSteps, () => this.#processes.conversationId);
    if (request.command) return this.#runCommand(request.command, sink, tracker, request.timeoutMs);
    // Claim the turn slot before any await, so a concurrent misuse is caught.
    const turn = new ActiveTurn(tracker, sink);
    this.#turn = turn;
    for (let attempt = 0; ; attempt++) {
      let p: AgyProcess;
      try {
        // agy takes a schema only at launch: a turn whose schema differs from the process's runs in a process
        // relaunched on the same conversation (AgyProcesses.ensure), and the next turn without one goes back.
        this.#processes.schemaFile =
          request.jsonSchema === undefined
            ? this.#opts.jsonSchemaFile
            : await this.#opts.writeJsonSchema!(request.jsonSchema);
        p = await this.#processes.ensure(() => this.start());
      } catch (err) {
        this.#turn = undefined;
        return startFailureResult(err, tracker, this.#closed, this.#processes.conversationId);
      }
      if (turn.requested) {
        // Canceled while the process was (re)starting: never send the message.
        this.#turn = undefined;
        return this.#result(turn, null, p);
      }
      turn.process = p;
      const exit = await this.#send(turn, p, request);
      // agy may exit right after a `result` (quota, errors, #947-style exits). If the process died before it
      // wrote a single line for this turn, it never started the turn: run it once more in a fresh process.
      if (exit && tracker.lines === 0 && !turn.requested && attempt === 0 && !this.#closed) {
        turn.error = undefined;
        turn.sent = false;
        await this.#processes.replace(p).catch(() => {});
        continue;
      }
      this.#turn = undefined;
      const result = this.#result(turn, exit, p);
      this.#opts.tap?.turnEnded();
      if (exit || turn.requested) this.#processes.restartLater(p);
      return result;
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
    this.#processes.model = model;
    await this.#processes.settled();
    const current = this.#processes.current;
    if (!current) return;
    // There is no way to switch the model of a running agy: close the idle process and resume in a new one.
    await this.#processes.track(this.#processes.replace(current));
  }

  attachmentsDir(): Promise<string> {
    return this.runtime.attachmentsDir();
  }

  /** Stops agy (bounded), then removes the session directory and closes the listener. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const session = this.#session;
    session?.unwatchSteering?.();
    try {
      await this.#closeProcesses();
    } finally {
      if (session) {
        try {
          await session.runtime.close();
          await session.tap?.close();
        } finally {
          // The last session's close stops the supervisor before it returns.
          await session.releaseSupervisor();
        }
      }
    }
  }

  async #closeProcesses(): Promise<void> {
    this.#closed = true;
    // A cassette names agy's version (its replay answers `--version` with it; `show` prints it): while one is
    // recorded, a probe still in flight (a short first run) finishes within its own bound instead of being
    // killed, which left every short recording "version unknown".
    this.#version.abandon(this.#opts.tap !== undefined);
    if (this.#turn && !this.#turn.requested) this.#turn.requested = 'canceled';
    this.#turn?.stopCommand?.();
    await this.#processes.closeAll();
    // A version probe this connection was the last to wait for was killed by the abort above (or, recording,
    // answered or timed out): it is gone too before close() returns.
    await this.#version.settle();
    await probesStopped();
  }

  /** Writes the user line and waits for the turn's end: its `result` (null) or the process exit. */
  async #send(turn: ActiveTurn, p: AgyProcess, request: TurnRequest): Promise<ExitInfo | null> {
    const done = turn.ended();
    turn.sent = true;
    // agy's tree is sampled for descendants only while a turn runs (see process/host-scan.ts).
    p.proc.setBusy(true);
    turn.armWatchdog(this.#opts.idleTimeoutMs, request.timeoutMs ?? this.#opts.turnTimeoutMs, p.events);
    const text = userLine(request.text);
    this.#opts.tap?.stdin(text);
    p.proc.write(`${text}\n`).catch(() => {
      // agy died before reading the message; the exit path ends the turn.
    });
    const exit = await done;
    p.proc.setBusy(false);
    turn.clearTimers();
    return exit;
  }

  #result(turn: ActiveTurn, exit: ExitInfo | null, p: AgyProcess): TurnResult {
    return buildTurnResult(turn, exit, {
      conversationId: this.#processes.conversationId,
      resumed: this.#processes.resumed,
      resumeCheck: this.#processes.resumeCheck(turn.process),
      stderrTail: p.proc.stderrTail,
    });
  }

  async #runCommand(
    cmd: { name: string; args: string },
    sink: TurnSink,
    tracker: TurnTracker,
    timeoutMs: number | undefined,
  ): Promise<TurnResult> {
    const abort = new AbortController();
    const turn = new ActiveTurn(tracker, sink, () => abort.abort());
    turn.sent = true;
    this.#turn = turn;
    try {
      const { binary, env } = this.#processes.resolve();
      return await runCommandTurn(cmd, turn, abort.signal, timeoutMs, {
        binary,
        env,
        conversationId: this.#processes.conversationId,
        model: this.#processes.model,
        maxLineBytes: this.#maxLineBytes,
        opts: this.#opts,
        logger: this.#logger,
        onSpawn: (pid) => this.#spawned(pid),
      });
    } catch (err) {
      return startFailureResult(err, tracker, this.#closed, this.#processes.conversationId);
    } finally {
      this.#turn = undefined;
    }
  }

  /** SIGINT, then kill the tree if the turn has not ended within the grace period. */
  #stopTurnProcess(turn: ActiveTurn): void {
    turn.stopIdleWatch();
    const proc = this.#processes.current?.proc;
    // Not sent yet: runTurn sees `requested` and never sends the message; the starting process is left alone.
    if (!proc || !turn.sent) return;
    this.#opts.tap?.signal('SIGINT');
    proc.signal('SIGINT');
    const grace = this.#opts.interruptGraceMs ?? 5000;
    turn.addTimer(
      setTimeout(() => {
        if (this.#turn === turn) proc.killTree();
      }, grace),
    );
  }

  // ---- The one consumer of agy's events ----

  /** Reads `p`'s events to its exit: every one goes through `#onEvent`. */
  #read(p: AgyProcess): void {
    readEvents(
      p,
      (event) => this.#onEvent(p, event),
      (error, stream) =>
        this.#logger.error(`handling a line of agy's ${stream} threw; the line was dropped`, error),
    ).catch((error) => this.#logger.error("reading agy's events failed", error));
  }

  /** Every event of every agy process, in the order it happened. */
  #onEvent(p: AgyProcess, e: AgyEvent): void {
    // The running turn, if it runs in this process (an old process shutting down must not touch it).
    const turn = this.#turn?.process === p ? this.#turn : undefined;
    const starting = !p.start.initialized;
    switch (e.type) {
      case 'spawned':
        this.#spawned(e.pid);
        break;
      case 'stderr':
        this.#opts.tap?.stderr(e.line);
        if (starting) p.start.see(e);
        turn?.tracker.stderrLines.push(e.line);
        callContained(this.#logger, 'onStderr', this.#opts.onStderr, e.line);
        break;
      case 'line_too_long':
        if (starting) p.start.see(e);
        turn?.lineDropped(e.head, this.#maxLineBytes);
        this.#badLine(turn, { reason: 'too_long', line: '' });
        break;
      case 'stall':
        if (turn?.id === e.turnId && turn.timedOut(e.kind, e.limitMs, p.proc.stderrTail))
          this.#stopTurnProcess(turn);
        break;
      case 'exit':
        this.#opts.tap?.exit(e.exit.code, e.exit.signal);
        this.#processes.onExit(p);
        if (starting) p.start.see(e);
        else turn?.exited(e.exit, p.proc.stderrTail);
        break;
      case 'blank_line':
        this.#line(turn, e.line);
        break;
      case 'bad_line':
        this.#line(turn, e.line);
        this.#badLine(turn, e.bad);
        break;
      case 'init':
        this.#line(turn, e.line);
        if (starting) {
          this.#drift.init(e.raw as Record<string, unknown>);
          this.#processes.onInit(p, e.init);
          p.start.see(e);
        }
        break;
      case 'step':
        this.#line(turn, e.line);
        if (starting || !turn) break;
        turn.tracker.lastLine = e.line;
        this.#drift.step(e.step.raw as Record<string, unknown>);
        turn.deliver(turn.tracker.onStep(withToolName(e.step, this.#opts.resolveToolName)), this.#logger);
        break;
      case 'result':
        this.#line(turn, e.line);
        if (starting) p.start.see(e);
        else if (turn) this.#turnResult(turn, e);
        break;
      case 'command_result':
        this.#line(turn, e.line);
        if (!starting && turn) this.#commandResult(turn, e);
        break;
    }
  }

  /** Any stdout line: counted, recorded, and a sign of life for the running turn. */
  #line(turn: ActiveTurn | undefined, line: string): void {
    this.#opts.tap?.stdout(line);
    this.stats.lines++;
    if (turn) {
      if (turn.sent) turn.tracker.lines++;
      turn.lastActivity = performance.now();
    }
  }

  #spawned(pid: number): void {
    this.stats.processesStarted++;
    callContained(this.#logger, 'onSpawn', this.#opts.onSpawn, pid);
  }

  #turnResult(turn: ActiveTurn, e: Extract<AgyEvent, { type: 'result' }>): void {
    turn.tracker.lastLine = e.line;
    if (e.conversationId) this.#processes.conversationId = e.conversationId;
    this.#drift.result(e.result as Record<string, unknown>);
    turn.tracker.result = e.result;
    turn.finishAfterDrain();
  }

  #commandResult(turn: ActiveTurn, e: Extract<AgyEvent, { type: 'command_result' }>): void {
    turn.tracker.lastLine = e.line;
    if (e.command) {
      turn.tracker.command = e.command;
      // Not an agy step: delivered so `steps()` shows it in order.
      const conversationId = e.conversationId ?? this.#processes.conversationId;
      turn.deliver(commandStep(conversationId, e.command, e.payload), this.#logger);
    }
    callContained(this.#logger, 'onCommandResult', this.#opts.onCommandResult, e.payload);
  }

  #badLine(turn: ActiveTurn | undefined, bad: BadLine): void {
    recordBadLine(bad, this.stats, this.#drift, turn?.tracker);
    callContained(this.#logger, 'onBadLine', this.#opts.onBadLine, bad);
  }
}
