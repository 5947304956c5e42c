/**
 * An MCP stdio transport over a server process the SDK starts itself for its start check
 * (`check-server.ts`). Unlike the official `StdioClientTransport` it starts the server in a process group of
 * its own and ends the whole group, so a server started through a wrapper (`npx`, a shell script) leaves no
 * grandchild behind; and it keeps the server's exit (code or signal) and the tail of its stderr, which is what
 * a failed check reports.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { currentPlatform } from '../../platform/index.js';

/** The most stderr kept, in characters (the last ones). */
export const STDERR_TAIL_CHARS = 2_000;

/** How long the group gets after SIGTERM before SIGKILL. */
const TERM_GRACE_MS = 2_000;

/** How the server process is started. */
export interface StdioServerLaunch {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** Its whole environment. */
  env: Record<string, string>;
  /** Its working directory. */
  cwd?: string | undefined;
}

/** How the server process ended. */
export interface ServerExit {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
}

/** One server process as an MCP transport. Start it through the MCP `Client`; always {@link stop} it. */
export class StdioServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #launch: StdioServerLaunch;
  readonly #buffer = new ReadBuffer();
  #child: ChildProcess | undefined;
  #stderr = '';
  #exit: ServerExit | undefined;
  #spawnError: Error | undefined;
  #exited: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(launch: StdioServerLaunch) {
    this.#launch = launch;
  }

  /** The last {@link STDERR_TAIL_CHARS} characters the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr;
  }

  /** How the process ended, once it has. */
  get exit(): ServerExit | undefined {
    return this.#exit;
  }

  /**
   * How the process ended, waiting up to `ms` for it: a server that exits as we write to it fails the write
   * with EPIPE before its own 'close' arrives, and that exit is what the check should report.
   */
  async exitWithin(ms: number): Promise<ServerExit | undefined> {
    if (this.#exit !== undefined || this.#child === undefined) return this.#exit;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
    return this.#exit;
  }

  /** Why the process could not be started (`spawn node ENOENT`), if it could not. */
  get spawnError(): Error | undefined {
    return this.#spawnError;
  }

  start(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const child = spawn(this.#launch.command, [...this.#launch.args], {
        env: this.#launch.env,
        cwd: this.#launch.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        // A group of its own, so stop() reaches whatever the server starts.
        ...currentPlatform().newGroupSpawnOptions(),
      });
      this.#child = child;
      this.#exited = new Promise<void>((done) => {
        child.once('close', (code, signal) => {
          this.#exit = { code, signal };
          this.#notifyClosed();
          done();
        });
      });
      child.once('error', (error) => {
        // Only a failed spawn reaches here before 'spawn'; later errors are reported to the client.
        if (child.pid === undefined) {
          this.#spawnError = error;
          this.#exit ??= { code: null, signal: null };
          this.#notifyClosed();
          reject(error);
        } else this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.stdout?.on('data', (chunk: Buffer) => {
        this.#buffer.append(chunk);
        this.#drain();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      // A server that exits while we write gets EPIPE: the exit itself is what the check reports.
      child.stdin?.on('error', (error) => this.onerror?.(error));
    });
  }

  /** The client hears of the end once, however it came (a failed spawn may also emit 'close'). */
  #notifyClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  #drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error('the server process is not running'));
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * The `Client` closes its transport: stdin is ended, nothing more. The check stops the group itself once it
   * has read how the server ended (`stop()`); the client also closes on a failed `initialize`, and a SIGTERM
   * sent then would stand in for the server's own exit (see {@link exitWithin}).
   */
  close(): Promise<void> {
    this.#child?.stdin?.end();
    return Promise.resolve();
  }

  /** Ends stdin, then SIGTERM to the group, SIGKILL after a grace; resolves once the server has exited. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child?.pid) return;
    const pid = child.pid;
    child.stdin?.end();
    if (this.#exit === undefined) currentPlatform().signalGroup(pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, TERM_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    // Whatever is left of the group (the leader, or a grandchild that outlived it) goes now.
    currentPlatform().signalGroup(pid, 'SIGKILL');
    await this.#exited;
  }
}
