/**
 * The agy session around the process: the session directory and its files, the loopback listener (MCP serving,
 * hook relay), shadow HOME, the hook adapter, and the PreInvocation steering gate. Built before agy starts; what
 * it hands the process side is the `AgyProcessOptions` it implies.
 */
import type { Logger } from '../../logger.js';
import type { ToolDefinition } from '../../model/tool.js';
import type { AgyHookRegistration } from '../../protocol/hook-wire.js';
import type { ConnectionHost } from '../host.js';
import { OWN_TOOL_SERVER, TOOL_SERVER_NAME } from '../tool-server/server-name.js';
import { containedTap, type WireTap } from '../wire-tap.js';
import { AgyHookHandlers } from './hook-handlers.js';
import { SessionRuntime, type SessionRuntimeOptions } from './session/session-runtime.js';
import type { AGY_LAUNCH_FIELDS, AGY_SESSION_FIELDS, AGY_WATCHDOG_FIELDS } from './settings.js';
import { buildAgyEnv } from './stream-json/command-line.js';
import type { AgyProcessOptions } from './stream-json/process-options.js';

/** Default stall watchdog: a turn with no sign of life from agy for 30 minutes ends `timeout`. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;

/** The session group, typed by `SessionRuntimeOptions`: forwarded whole to the session runtime. */
export type AgySessionSettings = Pick<SessionRuntimeOptions, (typeof AGY_SESSION_FIELDS)[number]>;

/** The launch group, typed by `AgyProcessOptions`: forwarded whole to the agy process. */
export type AgyLaunchSettings = Pick<AgyProcessOptions, (typeof AGY_LAUNCH_FIELDS)[number]>;

/** The watchdog group, typed by `AgyProcessOptions`: forwarded whole to the agy process. */
export type AgyWatchdogSettings = Pick<AgyProcessOptions, (typeof AGY_WATCHDOG_FIELDS)[number]>;

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

/** What the session needs of the connection built on it (bound once that exists). */
export interface SessionLink {
  /** A hook or one of our tools ran on agy's behalf: a sign of life for the watchdog. */
  noteActivity(): void;
  /** agy's version once probed. */
  probedVersion(): Promise<string | null>;
  /** The version probe was abandoned (the connection is closing). */
  readonly versionProbeAbandoned: boolean;
}

/** A built session: what the connection closes, and the process options it implies. */
export interface AgySession {
  /** The session runtime (directory, listener, files). */
  runtime: SessionRuntime;
  /** The contained recorder, if any. */
  tap: WireTap | undefined;
  /** Stops following the host's steering queue (the PreInvocation gate). */
  unwatchSteering: (() => void) | undefined;
  /** Lets the host's supervisor go (it stays from `create` to `close`). */
  releaseSupervisor: () => Promise<void>;
}

/** Builds the session; `link()` names the connection once it exists (traffic before that keeps nothing alive). */
export async function buildAgySession(
  o: AgyConnectionOptions,
  host: ConnectionHost,
  link: () => SessionLink | undefined,
  releaseSupervisor: () => Promise<void>,
): Promise<{ session: AgySession; process: AgyProcessOptions }> {
  const keepAlive = () => link()?.noteActivity();
  const tap = o.tap && containedTap(o.tap, (what, error) => o.logger.error(`${what} threw`, error));
  // agy's hook payloads → the host's typed calls: the one object the listener's hook endpoint calls.
  const adapter = new AgyHookHandlers(host, {
    hasOwnTools: (o.tools?.length ?? 0) > 0,
    agyHooks: o.hooks,
    logger: o.logger,
    tap,
    onAnswer: keepAlive,
    // Hook calls come from a started agy, whose version probe is under way or answered.
    agyVersion: () => link()?.probedVersion() ?? Promise.resolve(null),
    versionProbeAbandoned: () => link()?.versionProbeAbandoned ?? false,
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
  tap?.secrets({ token: runtime.listener?.token, sessionDir: runtime.dir.path });
  const session = {
    runtime,
    tap,
    releaseSupervisor,
    unwatchSteering: watchSteering(runtime, host, o.logger),
  };
  return { session, process: processOptions(o, runtime, tap) };
}

/** The process side's options: the launch and watchdog groups, with what the session adds. */
function processOptions(
  o: AgyConnectionOptions,
  runtime: SessionRuntime,
  tap: WireTap | undefined,
): AgyProcessOptions {
  return {
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
  };
}

/**
 * agy runs PreInvocation before every model call; it calls the listener only while a 'next-step' message waits
 * (a message queued while the gate cannot open still goes out, with the next prompt).
 */
function watchSteering(
  runtime: SessionRuntime,
  host: ConnectionHost,
  logger: Logger,
): (() => void) | undefined {
  if (!runtime.preInvocationGated) return undefined;
  return host.watchSteering?.((pending) => {
    try {
      runtime.setPreInvocationGate(pending);
    } catch (err) {
      logger.warn(
        pending
          ? "could not open the PreInvocation gate: a 'next-step' message waits for the next prompt"
          : 'could not close the PreInvocation gate: each model call keeps asking for steering',
        err,
      );
    }
  });
}
