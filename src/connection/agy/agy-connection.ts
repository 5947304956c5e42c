/**
 * The agy backend: one `Connection` that owns everything agy-specific — the session directory and its files,
 * the loopback listener (MCP serving, hook relay), shadow HOME, and the supervised stream-json process. The
 * Agent builds it through `createAgyConnection` and talks to it only through `Connection`; the backend calls
 * back through the one `ConnectionHost`.
 */
import type { Logger } from '../../logger.js';
import type { AgentCapabilities } from '../../model/capabilities.js';
import type { ToolDefinition } from '../../model/tool.js';
import type { TurnResult } from '../../model/turn-result.js';
import type { AgyHookRegistration } from '../../protocol/hook-wire.js';
import type { Connection, ConnectionInfo, TurnRequest, TurnSink } from '../connection.js';
import type { ConnectionHost } from '../host.js';
import { hostSupervisor } from '../process/host-supervisor.js';
import { OWN_TOOL_SERVER, TOOL_SERVER_NAME } from '../tool-server/server-name.js';
import { containedTap, type WireTap } from '../wire-tap.js';
import { AGY_CAPABILITIES } from './capabilities.js';
import { AgyHookHandlers } from './hook-handlers.js';
import { SessionRuntime, type SessionRuntimeOptions } from './session/session-runtime.js';
import type { AGY_LAUNCH_FIELDS, AGY_SESSION_FIELDS, AGY_WATCHDOG_FIELDS } from './settings.js';
import { buildAgyEnv } from './stream-json/command-line.js';
import {
  type ConnectionStats,
  StreamJsonConnection,
  type StreamJsonConnectionOptions,
} from './stream-json/stream-json-connection.js';

/** Default stall watchdog: a turn with no sign of life from agy for 30 minutes ends `timeout`. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;

/** The session group, typed by `SessionRuntimeOptions`: forwarded whole to the session runtime. */
export type AgySessionSettings = Pick<SessionRuntimeOptions, (typeof AGY_SESSION_FIELDS)[number]>;

/** The launch group, typed by `StreamJsonConnectionOptions`: forwarded whole to the agy process. */
export type AgyLaunchSettings = Pick<StreamJsonConnectionOptions, (typeof AGY_LAUNCH_FIELDS)[number]>;

/** The watchdog group, typed by `StreamJsonConnectionOptions`: forwarded whole to the agy process. */
export type AgyWatchdogSettings = Pick<StreamJsonConnectionOptions, (typeof AGY_WATCHDOG_FIELDS)[number]>;

/** Everything the agy backend is built from: the validated config groups, and what the Agent adds. */
export interface AgyConnectionOptions {
  /** The session's files, listener and hooks (validated by the Agent). */
  session: AgySessionSettings;
  /** The agy process's launch (validated by the Agent). */
  launch: AgyLaunchSettings;
  /** Time limits; `idleTimeoutMs` defaults to {@link DEFAULT_IDLE_TIMEOUT_MS}. */
  watchdog: AgyWatchdogSettings;
  /** Environment overrides for agy. */
  env?: Record<string, string | undefined> | undefined;
  /** agy's working directory. */
  cwd: string;
  /** The user's workspaces (`--add-dir` each, before the session directory). */
  workspaces: readonly string[];
  /** The JSON Schema for `--json-schema`, if the agent has a response schema. */
  jsonSchema?: Record<string, unknown> | undefined;
  /** The agent's own tools, served over MCP. */
  tools?: readonly ToolDefinition[] | undefined;
  /** The user's raw `agyHooks`; the backend appends the SDK's own (the agy hook adapter) after them. */
  hooks: readonly AgyHookRegistration[];
  /** Pass `--dangerously-skip-permissions`. */
  dangerouslySkipPermissions?: boolean | undefined;
  /** Where the backend logs. */
  logger: Logger;
  /** A recorder that sees the session's pipes and listener traffic (`AgentConfig.record`). */
  tap?: WireTap | undefined;
}

/** The agy backend behind `Connection`. */
export class AgyConnection implements Connection {
  /** The session runtime (directory, listener, files). */
  readonly runtime: SessionRuntime;
  readonly #stream: StreamJsonConnection;
  readonly #tap: WireTap | undefined;
  /** Lets the host's supervisor go (it stays from `create` to `close`). */
  readonly #releaseSupervisor: () => Promise<void>;
  /** Stops following the host's steering queue (the PreInvocation gate). */
  readonly #unwatchSteering: (() => void) | undefined;

  private constructor(
    runtime: SessionRuntime,
    stream: StreamJsonConnection,
    tap: WireTap | undefined,
    releaseSupervisor: () => Promise<void>,
    unwatchSteering: (() => void) | undefined,
  ) {
    this.runtime = runtime;
    this.#stream = stream;
    this.#tap = tap;
    this.#releaseSupervisor = releaseSupervisor;
    this.#unwatchSteering = unwatchSteering;
  }

  /** Builds the session (files, listener, shadow HOME); agy itself starts with `start()`. */
  static async create(o: AgyConnectionOptions, host: ConnectionHost): Promise<AgyConnection> {
    // The host's supervisor, once its first agy has started it, stays until this session ends (process/host-supervisor.ts).
    const releaseSupervisor = hostSupervisor.hold();
    try {
      return await AgyConnection.#create(o, host, releaseSupervisor);
    } catch (err) {
      await releaseSupervisor();
      throw err;
    }
  }

  static async #create(
    o: AgyConnectionOptions,
    host: ConnectionHost,
    releaseSupervisor: () => Promise<void>,
  ): Promise<AgyConnection> {
    // Set once the stream exists: hook and tool traffic before that has no turn to keep alive.
    let stream: StreamJsonConnection | undefined;
    const keepAlive = () => stream?.noteActivity();
    const tap = o.tap && containedTap(o.tap, (what, error) => o.logger.error(`${what} threw`, error));
    // agy's hook payloads → the host's typed calls: the one object the listener's hook endpoint calls.
    const adapter = new AgyHookHandlers(host, {
      hasOwnTools: (o.tools?.length ?? 0) > 0,
      agyHooks: o.hooks,
      logger: o.logger,
      tap,
      onAnswer: keepAlive,
      // Hook calls come from a started agy, whose version probe is under way or answered.
      agyVersion: () => stream?.probedVersion() ?? Promise.resolve(null),
      versionProbeAbandoned: () => stream?.versionProbeAbandoned ?? false,
    });
    const runtime = await SessionRuntime.create({
      ...o.session,
      // The Agent validated the groups once, up front (validate-config.ts).
      prevalidated: true,
      jsonSchema: o.jsonSchema,
      tools: o.tools,
      hooks: adapter.registrations(),
      hookEndpoint: adapter,
      gatePreInvocation: adapter.preInvocationIsSteeringOnly,
      onMcpExchange: tap?.mcp,
      // A tool of ours running on agy's behalf is a sign of life, although agy's stdout is quiet.
      ownTools: { host, observer: { onStart: keepAlive, onEnd: keepAlive } },
      env: buildAgyEnv(o.env),
      logger: o.logger,
    });
    stream = new StreamJsonConnection({
      ...o.launch,
      ...o.watchdog,
      idleTimeoutMs: o.watchdog.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      env: { ...o.env, ...runtime.env },
      cwd: o.cwd,
      addDirs: [...o.workspaces, runtime.dir.path],
      jsonSchemaFile: runtime.jsonSchemaFile,
      writeJsonSchema: (schema) => runtime.turnSchemaFile(schema),
      skipPermissions: o.dangerouslySkipPermissions,
      // Our own tools are served under provider-safe names: show them under the names given to `tool()`.
      resolveToolName: (agyServer, servedName) =>
        agyServer === OWN_TOOL_SERVER
          ? runtime.listener?.catalog(TOOL_SERVER_NAME)?.names.resolve(servedName)?.originalName
          : undefined,
      // agy lists our tools right after its `init`: the start's pacing waits for that too (spawn-queue.ts).
      startWork:
        runtime.listener?.catalog(TOOL_SERVER_NAME) !== undefined
          ? () => runtime.listener!.nextToolsList(TOOL_SERVER_NAME)
          : undefined,
      logger: o.logger,
      tap,
    });
    tap?.secrets({ token: runtime.listener?.token, sessionDir: runtime.dir.path });
    // agy runs PreInvocation before every model call; it calls the listener only while a 'next-step' message
    // waits (a message queued while the gate cannot open still goes out, with the next prompt).
    const unwatchSteering = runtime.preInvocationGated
      ? host.watchSteering?.((pending) => {
          try {
            runtime.setPreInvocationGate(pending);
          } catch (err) {
            o.logger.warn(
              pending
                ? "could not open the PreInvocation gate: a 'next-step' message waits for the next prompt"
                : 'could not close the PreInvocation gate: each model call keeps asking for steering',
              err,
            );
          }
        })
      : undefined;
    return new AgyConnection(runtime, stream, tap, releaseSupervisor, unwatchSteering);
  }

  get conversationId(): string | undefined {
    return this.#stream.conversationId;
  }

  get info(): ConnectionInfo {
    return this.#stream.info;
  }

  /** agy's version once the version probe answered (see `StreamJsonConnection.probedVersion`). */
  probedVersion(): Promise<string | null> {
    return this.#stream.probedVersion();
  }

  get isIdle(): boolean {
    return this.#stream.isIdle;
  }

  /** The running agy process's pid, if any. */
  get pid(): number | undefined {
    return this.#stream.pid;
  }

  /** Transport counters (lines, bad lines, unknown events, processes started). */
  get stats(): ConnectionStats {
    return this.#stream.stats;
  }

  /** agy's fixed flags, with the version once probed. */
  get capabilities(): AgentCapabilities {
    return { ...AGY_CAPABILITIES, agentVersion: this.info.version ?? undefined };
  }

  start(): Promise<ConnectionInfo> {
    return this.#stream.start();
  }

  runTurn(request: TurnRequest, sink: TurnSink): Promise<TurnResult> {
    return this.#stream.runTurn(request, sink);
  }

  interrupt(reason?: 'interrupted' | 'canceled'): Promise<void> {
    return this.#stream.interrupt(reason);
  }

  setModel(model: string): Promise<void> {
    return this.#stream.setModel(model);
  }

  attachmentsDir(): Promise<string> {
    return this.runtime.attachmentsDir();
  }

  /** Stops agy (bounded), then removes the session directory and closes the listener. Idempotent. */
  async close(): Promise<void> {
    this.#unwatchSteering?.();
    try {
      await this.#stream.close();
    } finally {
      try {
        await this.runtime.close();
        await this.#tap?.close();
      } finally {
        // The last session's close stops the supervisor before it returns.
        await this.#releaseSupervisor();
      }
    }
  }
}
