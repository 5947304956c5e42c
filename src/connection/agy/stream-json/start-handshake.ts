/**
 * The start of one agy process: waits for its `init` (with a timeout counted from the actual spawn) and turns a
 * failure before it into a `StartError` naming the cause. It consumes the process's events until `init`.
 */
import { StartError } from '../../../errors.js';
import type { AgentProcess } from '../../process/child-process.js';
import type { AgyEvent } from './agy-event.js';
import type { InitInfo } from './normalize.js';
import { classifyStartFailure } from './outcome.js';

/** The `init` handshake of one agy process. */
export class StartHandshake {
  /** Resolves with agy's `init`; rejects with a `StartError` naming the cause. */
  readonly ready: Promise<InitInfo>;
  /** stderr lines agy wrote before `init` (e.g. 1.3.1's `warning: conversation "X" not found`). */
  readonly preInitStderr: string[] = [];
  /** The `init` payload as agy wrote it (for the drift check); undefined until `init`. */
  initPayload: Record<string, unknown> | undefined;
  #initialized = false;
  /** A lone `result` before `init` is agy saying why it cannot start (e.g. not signed in). */
  #reason: string | undefined;
  #droppedBeforeInit = 0;
  readonly #proc: AgentProcess;
  readonly #spec: { binary: string; maxLineBytes: number; startTimeoutMs: number };
  #resolve!: (info: InitInfo) => void;
  #reject!: (err: StartError) => void;

  constructor(proc: AgentProcess, spec: { binary: string; maxLineBytes: number; startTimeoutMs: number }) {
    this.#proc = proc;
    this.#spec = spec;
    this.ready = new Promise<InitInfo>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.ready.catch(() => {});
    this.#armTimeout();
    proc.spawned.catch((err: Error) => {
      this.#fail(`could not start agy (${spec.binary}): ${err.message}`);
    });
  }

  /** True once agy's `init` arrived. */
  get initialized(): boolean {
    return this.#initialized;
  }

  /** Sees one event of the process before `init` (the connection's switch calls it until then). */
  see(event: AgyEvent): void {
    switch (event.type) {
      case 'init':
        this.#initialized = true;
        this.initPayload = event.raw;
        this.#resolve(event.init);
        return;
      case 'result': {
        const err = event.result.error;
        this.#reason = typeof err === 'string' && err ? err : `status ${event.result.status}`;
        return;
      }
      case 'stderr':
        this.preInitStderr.push(event.line);
        return;
      case 'line_too_long':
        this.#droppedBeforeInit++;
        return;
      case 'exit': {
        const { exit } = event;
        const how = exit.signal ? `signal ${exit.signal}` : `exit ${exit.code}`;
        this.#reject(
          new StartError(
            `agy failed to start: ${this.#reason ?? 'agy exited before init'} (${how})${this.#dropped()}`,
            {
              exitCode: exit.code,
              signal: exit.signal,
              stderrTail: this.#proc.stderrTail,
              reason: this.#reason,
              status: classifyStartFailure(this.#reason ?? '', exit, this.preInitStderr),
            },
          ),
        );
        return;
      }
      default:
    }
  }

  /**
   * The start timeout counts from the actual spawn: time spent waiting for other sessions' starts in the
   * host-wide spawn queue must never fail this one.
   */
  #armTimeout(): void {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const clear = () => {
      settled = true;
      clearTimeout(timer);
    };
    this.ready.then(clear, clear);
    const { startTimeoutMs } = this.#spec;
    void this.#proc.launched.then(() => {
      if (settled) return;
      timer = setTimeout(() => {
        if (this.#initialized) return;
        this.#proc.killTree();
        this.#fail(`agy did not send init within ${startTimeoutMs} ms${this.#dropped()}`);
      }, startTimeoutMs);
    });
  }

  #fail(message: string): void {
    this.#reject(
      new StartError(message, { exitCode: null, signal: null, stderrTail: this.#proc.stderrTail }),
    );
  }

  /** A line over maxLineBytes before init (the init line itself, say) is dropped: a failed start says so. */
  #dropped(): string {
    return this.#droppedBeforeInit === 0
      ? ''
      : `; ${this.#droppedBeforeInit} stdout line(s) before init were longer than maxLineBytes (${this.#spec.maxLineBytes} bytes) and dropped`;
  }
}
