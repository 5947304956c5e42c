/**
 * One agy process as the transport sees it: spawned (supervised), its stdout framed and parsed, the `init`
 * handshake awaited with a timeout, and a failure before `init` turned into a `StartError` naming the cause.
 * What happens after `init` is the connection's business: events go out through `LaunchEvents`.
 */
import { StartError } from '../../../errors.js';
import { AgentProcess, type ExitInfo } from '../../process/child-process.js';
import { LineSplitter } from '../../process/line-splitter.js';
import { EventReader } from './event-reader.js';
import type { InitInfo } from './normalize.js';
import { classifyStartFailure } from './outcome.js';
import { type AgyEvent, type BadLine, isBadLine, parseLine } from './parse-line.js';

/** What to start. */
export interface LaunchOptions {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  maxLineBytes: number;
  startTimeoutMs: number;
  /** See `AgentProcessOptions.startWork`. */
  startWork?: (() => Promise<unknown>) | undefined;
}

/** Where a launch reports. Every callback runs only for this process. */
export interface LaunchEvents {
  /** Any stdout line (activity, for the watchdog; the line, for a recorder), before it is parsed. */
  onLine(line: string): void;
  /** An event after `init`. */
  onEvent(event: AgyEvent, raw: string): void;
  /** A line that was not understood (never thrown). */
  onBadLine(bad: BadLine): void;
  /** A line over `maxLineBytes` was dropped; `head` is its first bytes. */
  onOverflow(head: string): void;
  /** Each stderr line. */
  onStderrLine(line: string): void;
  /** The agy pid, once spawned. */
  onSpawn(pid: number): void;
  /** agy exited after `init` (an exit before it rejects `ready` instead). */
  onExit(exit: ExitInfo): void;
  /**
   * Handling one line of agy's output threw (a bug on our side, or in a callback that was not contained).
   * The line is lost but the stream goes on: an exception in a pipe handler would otherwise end the host.
   */
  onHandlerError(error: unknown, stream: 'stdout' | 'stderr'): void;
}

export class AgyLaunch {
  readonly proc: AgentProcess;
  /** Resolves with agy's `init`; rejects with a `StartError` naming the cause. */
  readonly ready: Promise<InitInfo>;
  /** stderr lines agy wrote before `init` (e.g. 1.3.1's `warning: conversation "X" not found`). */
  readonly preInitStderr: string[] = [];
  /** The `init` payload as agy wrote it (for the drift check); undefined until `init`. */
  initPayload: Record<string, unknown> | undefined;
  #initialized = false;

  constructor(o: LaunchOptions, events: LaunchEvents) {
    let onInit!: (info: InitInfo) => void;
    let fail!: (err: StartError) => void;
    this.ready = new Promise<InitInfo>((res, rej) => {
      onInit = res;
      fail = rej;
    });
    this.ready.catch(() => {});
    let preInitReason: string | undefined;
    const preInitStderr = this.preInitStderr;
    let droppedBeforeInit = 0;

    const handle = (event: AgyEvent, raw: string): void => {
      if (this.#initialized) {
        events.onEvent(event, raw);
        return;
      }
      if (event.type === 'init') {
        this.#initialized = true;
        this.initPayload = event.raw;
        onInit(event.init);
      } else if (event.type === 'result') {
        // A lone `result` before `init` is agy saying why it cannot start (e.g. not signed in).
        const err = event.result.error;
        preInitReason = typeof err === 'string' && err ? err : `status ${event.result.status}`;
      }
    };
    // One argument, no rest parameter: every stdout line passes through here, and `(...args) => fn(...args)`
    // built an arguments array per line.
    const guarded =
      <A = undefined>(stream: 'stdout' | 'stderr', fn: (arg: A) => void) =>
      (arg?: A): void => {
        try {
          fn(arg as A);
        } catch (error) {
          events.onHandlerError(error, stream);
        }
      };
    const reader = new EventReader();
    const splitter = new LineSplitter({
      maxLineBytes: o.maxLineBytes,
      onLine: guarded('stdout', (line: string) => {
        events.onLine(line);
        if (line.length === 0) return;
        const parsed = reader.read(line);
        if (isBadLine(parsed)) events.onBadLine(parsed);
        else handle(parsed, line);
      }),
      onOverflow: guarded('stdout', (head: string) => {
        if (!this.#initialized) droppedBeforeInit++;
        events.onOverflow(head);
        events.onBadLine({ reason: 'too_long', line: '' });
      }),
    });

    const proc = new AgentProcess({
      binary: o.binary,
      args: o.args,
      env: o.env,
      cwd: o.cwd,
      onStdout: (chunk) => splitter.push(chunk),
      onStdoutEnd: guarded('stdout', () => {
        const last = splitter.end();
        if (last === undefined || last.trim() === '') return;
        events.onLine(last);
        const parsed = parseLine(last);
        // A truncated last line that still parses is delivered; otherwise it is reported, never thrown.
        if (parsed.ok) handle(parsed.event, last);
        else
          events.onBadLine({
            ...parsed.bad,
            reason: parsed.bad.reason === 'too_deep' ? 'too_deep' : 'truncated',
          });
      }),
      onStderrLine: guarded('stderr', (line: string) => {
        if (!this.#initialized) preInitStderr.push(line);
        events.onStderrLine(line);
      }),
      onSpawn: (pid) => events.onSpawn(pid),
      startWork: o.startWork,
    });
    this.proc = proc;
    // A line over maxLineBytes before init (the init line itself, say) is dropped: a failed start says so.
    const dropped = () =>
      droppedBeforeInit === 0
        ? ''
        : `; ${droppedBeforeInit} stdout line(s) before init were longer than maxLineBytes (${o.maxLineBytes} bytes) and dropped`;

    // The start timeout counts from the actual spawn: time spent waiting for other sessions' starts in the
    // host-wide spawn queue must never fail this one.
    let startTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const clear = () => {
      settled = true;
      clearTimeout(startTimer);
    };
    this.ready.then(clear, clear);
    void proc.launched.then(() => {
      if (settled) return;
      startTimer = setTimeout(() => {
        if (this.#initialized) return;
        proc.killTree();
        fail(
          new StartError(
            `agy did not send init within ${o.startTimeoutMs} ms${dropped()}`,
            diagnostics(proc),
          ),
        );
      }, o.startTimeoutMs);
    });

    proc.spawned.catch((err: Error) => {
      fail(new StartError(`could not start agy (${o.binary}): ${err.message}`, diagnostics(proc)));
    });

    void proc.exited.then((exit) => {
      if (this.#initialized) {
        events.onExit(exit);
        return;
      }
      const how = exit.signal ? `signal ${exit.signal}` : `exit ${exit.code}`;
      fail(
        new StartError(
          `agy failed to start: ${preInitReason ?? 'agy exited before init'} (${how})${dropped()}`,
          {
            exitCode: exit.code,
            signal: exit.signal,
            stderrTail: proc.stderrTail,
            reason: preInitReason,
            status: classifyStartFailure(preInitReason ?? '', exit, preInitStderr),
          },
        ),
      );
    });
  }

  /** True once agy's `init` arrived. */
  get initialized(): boolean {
    return this.#initialized;
  }
}

function diagnostics(proc: AgentProcess) {
  return { exitCode: null, signal: null, stderrTail: proc.stderrTail };
}
