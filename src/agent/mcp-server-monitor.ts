/**
 * The state of the user's MCP servers (`agent.mcpServers`) and what the user is told about it: each enabled
 * server gets the SDK's start check (`connection/mcp-check/check-server.ts`) at `start()`, in the background,
 * beside the backend's own start; `required` servers are waited for, and a failed one fails `start()` with
 * `McpServerStartError`. Any other failure becomes one notice on the first turn that ends after it is known
 * (and one warning in the log), not repeated on later turns unless the state changes.
 */

import type { McpServerConfig } from '../connection/agy/index.js';
import { checkMcpServer, type McpCheckResult } from '../connection/mcp-check/check-server.js';
import { McpServerStartError } from '../errors.js';
import { describeError, type Logger } from '../logger.js';
import type { McpServerState, McpServerStatus } from '../model/mcp-server-state.js';

/** The most stderr a notice quotes, in characters (the state keeps more). */
const NOTICE_STDERR_CHARS = 1_000;

/** What the checks run with, besides each server's own config. */
export interface McpMonitorOptions {
  /** The backend's environment for its servers (the process's, with `AgentConfig.env` applied). */
  env: Record<string, string>;
  /** The backend's working directory. */
  cwd: string;
  /** The time each check gets, in ms. */
  timeoutMs: number;
  /** Where each failure is also logged, once. */
  logger: Logger;
}

/** The user's MCP servers of one agent, from their start checks to the notices about them. */
export class McpServerMonitor {
  readonly #servers: Readonly<Record<string, McpServerConfig>>;
  readonly #options: McpMonitorOptions;
  readonly #states = new Map<string, McpServerState>();
  /** The status last told in a notice, per server. */
  readonly #told = new Map<string, McpServerStatus>();
  readonly #checks = new Map<string, Promise<McpCheckResult>>();
  readonly #abort = new AbortController();

  constructor(servers: Readonly<Record<string, McpServerConfig>>, options: McpMonitorOptions) {
    this.#servers = servers;
    this.#options = options;
    for (const [name, server] of Object.entries(servers)) {
      this.#states.set(name, {
        name,
        transport: 'command' in server ? 'stdio' : 'http',
        status: server.disabled ? 'disabled' : server.startCheck === false ? 'unchecked' : 'checking',
        required: server.required === true,
      });
    }
  }

  /** Every configured server's state, by name (a snapshot). */
  get states(): ReadonlyMap<string, McpServerState> {
    return new Map(this.#states);
  }

  /** Starts every enabled server's check; returns at once. Call once. */
  start(): void {
    const { env, cwd, timeoutMs } = this.#options;
    for (const [name, server] of Object.entries(this.#servers)) {
      if (server.disabled || server.startCheck === false) continue;
      const check = checkMcpServer(name, server, {
        env,
        cwd,
        timeoutMs,
        signal: this.#abort.signal,
      })
        .catch(
          (error: unknown): McpCheckResult => ({
            state: { ...this.#states.get(name)!, status: 'failed', error: describeError(error) },
          }),
        )
        .then((result) => {
          // A check cut short by close() says nothing about the server.
          if (!this.#abort.signal.aborted) this.#record(result.state);
          return result;
        });
      this.#checks.set(name, check);
    }
  }

  #record(state: McpServerState): void {
    this.#states.set(state.name, state);
    if (state.status === 'failed') this.#options.logger.warn(noticeText(state));
  }

  /** Resolves once every check has finished (at once when there are none), with the states then. */
  async settled(): Promise<ReadonlyMap<string, McpServerState>> {
    await Promise.all(this.#checks.values());
    return this.states;
  }

  /** Waits for the `required` servers' checks; the first failed one (in config order) is thrown. */
  async requireReady(): Promise<void> {
    for (const [name, server] of Object.entries(this.#servers)) {
      const check = server.required ? this.#checks.get(name) : undefined;
      if (!check) continue;
      const { state, exit } = await check;
      if (state.status !== 'failed') continue;
      throw new McpServerStartError(name, state.error ?? 'the start check failed', {
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stderrTail: state.stderrTail ?? '',
      });
    }
  }

  /** The notices a turn ending now carries: each failure not yet told (then marked told). */
  takeNotices(): string[] {
    const notices: string[] = [];
    for (const state of this.#states.values()) {
      if (this.#told.get(state.name) === state.status) continue;
      this.#told.set(state.name, state.status);
      if (state.status === 'failed') notices.push(noticeText(state));
    }
    return notices;
  }

  /** Aborts the checks still running and waits until their processes are gone. */
  async close(): Promise<void> {
    this.#abort.abort(new Error('the agent is closing'));
    await Promise.all(this.#checks.values());
  }
}

/** `MCP server "files" failed to start: …; its tools are unavailable (stderr: …)`. */
function noticeText(state: McpServerState): string {
  const stderr = state.stderrTail?.slice(-NOTICE_STDERR_CHARS);
  return (
    `MCP server "${state.name}" failed to start: ${state.error ?? 'the start check failed'}; ` +
    `its tools are unavailable${stderr ? ` (stderr: ${stderr})` : ''}`
  );
}
