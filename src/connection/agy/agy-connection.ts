/**
 * The agy backend: one `Connection` that owns everything agy-specific — the session directory and its files,
 * the loopback listener (MCP serving, hook relay), shadow HOME, and the supervised stream-json process. The
 * Agent builds it through `createAgyConnection` and talks to it only through `Connection`; the backend calls
 * back through the one `ConnectionHost`.
 */
import type { Logger } from '../../logger.js';
import type { TurnResult } from '../../model/turn-result.js';
import type { AgyHookRegistration } from '../../protocol/hook-wire.js';
import type { ToolDefinition } from '../../tools/tool.js';
import type { Connection, ConnectionInfo, TurnRequest, TurnSink } from '../connection.js';
import type { ConnectionHost } from '../host.js';
import { AgyHookHandlers } from './hook-handlers.js';
import {
  PLUGIN_NAME,
  SessionRuntime,
  type SessionRuntimeOptions,
  TOOL_SERVER_NAME,
} from './session/session-runtime.js';
import { buildAgyEnv } from './stream-json/launch.js';
import {
  type ConnectionStats,
  StreamJsonConnection,
  type StreamJsonConnectionOptions,
} from './stream-json/stream-json-connection.js';

/** Default stall watchdog: a turn with no sign of life from agy for 30 minutes ends `timeout`. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;

/** agy's name for the agent's own tool server: plugin servers are namespaced `<plugin>_<server>`. */
export const OWN_TOOL_SERVER = `${PLUGIN_NAME}_${TOOL_SERVER_NAME}`;

/** The session's files, listener and hooks: what `SessionRuntime` builds, minus what the host supplies. */
type SessionSettings = Omit<
  SessionRuntimeOptions,
  | 'env'
  | 'logger'
  | 'hooks'
  | 'tools'
  | 'toolContext'
  | 'toolObserver'
  | 'beforeToolCall'
  | 'afterToolCall'
  | 'onHookRequest'
  | 'onHookAnswer'
  | 'prevalidated'
>;

/** The agy process: what `StreamJsonConnection` runs with, minus what the session supplies. */
type ProcessSettings = Omit<
  StreamJsonConnectionOptions,
  'env' | 'cwd' | 'addDirs' | 'jsonSchemaFile' | 'resolveToolName' | 'logger' | 'skipPermissions'
>;

/** Everything the agy backend is built from (validated by the Agent before). */
export interface AgyConnectionOptions extends SessionSettings, ProcessSettings {
  /** Environment overrides for agy. */
  env?: Record<string, string | undefined> | undefined;
  /** agy's working directory. */
  cwd: string;
  /** The user's workspaces (`--add-dir` each, before the session directory). */
  workspaces: readonly string[];
  /** The agent's own tools, served over MCP. */
  tools?: readonly ToolDefinition[] | undefined;
  /** The user's raw `agyHooks`; the backend appends the SDK's own (the agy hook adapter) after them. */
  hooks: readonly AgyHookRegistration[];
  /** Pass `--dangerously-skip-permissions`. */
  dangerouslySkipPermissions?: boolean | undefined;
  logger: Logger;
}

/** The agy backend behind `Connection`. */
export class AgyConnection implements Connection {
  /** The session runtime (directory, listener, files). */
  readonly runtime: SessionRuntime;
  readonly #stream: StreamJsonConnection;

  private constructor(runtime: SessionRuntime, stream: StreamJsonConnection) {
    this.runtime = runtime;
    this.#stream = stream;
  }

  /** Builds the session (files, listener, shadow HOME); agy itself starts with `start()`. */
  static async create(o: AgyConnectionOptions, host: ConnectionHost): Promise<AgyConnection> {
    // Set once the stream exists: hook and tool traffic before that has no turn to keep alive.
    let stream: StreamJsonConnection | undefined;
    const keepAlive = () => stream?.noteActivity();
    // agy's hook payloads → the host's typed calls (the agy hook adapter).
    const adapter = new AgyHookHandlers(host, { hasOwnTools: (o.tools?.length ?? 0) > 0 });
    const runtime = await SessionRuntime.create({
      // The Agent validated these once, up front (validate-config.ts).
      prevalidated: true,
      dataDir: o.dataDir,
      systemInstructions: o.systemInstructions,
      notes: o.notes,
      jsonSchema: o.jsonSchema,
      tools: o.tools,
      toolTransport: o.toolTransport,
      mcpServers: o.mcpServers,
      hooks: [...o.hooks, ...adapter.registrations()],
      beforeToolCall: host.gateToolCall,
      afterToolCall: host.afterToolCall,
      hookPlacement: o.hookPlacement,
      hookTimeoutMs: o.hookTimeoutMs,
      onHookRequest: adapter.onHookRequest,
      onHookAnswer: (event, input, answer) => {
        keepAlive();
        adapter.onHookAnswer(event, input, answer);
      },
      // A tool of ours running on agy's behalf is a sign of life, although agy's stdout is quiet.
      toolObserver: { onStart: keepAlive, onEnd: keepAlive },
      hookRelay: o.hookRelay,
      isolation: o.isolation,
      linkNativeAuth: o.linkNativeAuth,
      settingsOverrides: o.settingsOverrides,
      skillsPaths: o.skillsPaths,
      subagents: o.subagents,
      env: buildAgyEnv(o.env),
      logger: o.logger,
      toolContext: host.toolContext,
    });
    stream = new StreamJsonConnection({
      agyPath: o.agyPath,
      env: { ...o.env, ...runtime.env },
      cwd: o.cwd,
      addDirs: [...o.workspaces, runtime.dir.path],
      model: o.model,
      effort: o.effort,
      conversationId: o.conversationId,
      jsonSchemaFile: runtime.jsonSchemaFile,
      skipPermissions: o.dangerouslySkipPermissions,
      extraArgs: o.extraArgs,
      startTimeoutMs: o.startTimeoutMs,
      idleTimeoutMs: o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      turnTimeoutMs: o.turnTimeoutMs,
      interruptGraceMs: o.interruptGraceMs,
      closeGraceMs: o.closeGraceMs,
      maxLineBytes: o.maxLineBytes,
      onBadLine: o.onBadLine,
      onStderr: o.onStderr,
      // Our own tools are served under provider-safe names: show them under the names given to `tool()`.
      resolveToolName: (agyServer, servedName) =>
        agyServer === OWN_TOOL_SERVER
          ? runtime.listener?.catalog(TOOL_SERVER_NAME)?.names.resolve(servedName)?.originalName
          : undefined,
      logger: o.logger,
    });
    return new AgyConnection(runtime, stream);
  }

  get conversationId(): string | undefined {
    return this.#stream.conversationId;
  }

  get info(): ConnectionInfo {
    return this.#stream.info;
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
    try {
      await this.#stream.close();
    } finally {
      await this.runtime.close();
    }
  }
}
