/**
 * The agent's process and its protocol connection: the environment (with the shadow HOME), the launch through
 * the same no-orphan supervisor as agy, the JSON-RPC client wired to its pipes, start-time requests bounded by
 * time and by the process's exit, and the bounded stop.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AnyMessage, type ClientConnection, client } from '@agentclientprotocol/sdk';
import { StartError, UnsupportedError } from '../../errors.js';
import { callContained } from '../../internal/contain.js';
import { within } from '../../internal/timing.js';
import type {
  AcpRequestPermissionRequest,
  AcpRequestPermissionResponse,
  AcpSessionNotification,
} from '../../protocol/acp.js';
import { AgentProcess } from '../process/child-process.js';
import { DEFAULT_MAX_LINE_BYTES } from '../process/line-splitter.js';
import { defaultDataDir } from '../tool-server/session-dir.js';
import type { WorkspaceFileSystem } from './fs-service.js';
import type { AcpConnectionOptions } from './options.js';
import { GEMINI_CLI_ENV, geminiCliSettings } from './presets.js';
import { errorMessage } from './rpc-errors.js';
import { StdoutLines } from './stdout-lines.js';

/** The running agent process and its protocol connection. */
export interface AcpAgent {
  /** The supervised process. */
  readonly process: AgentProcess;
  /** The JSON-RPC client on its stdin/stdout. */
  readonly rpc: ClientConnection;
  /** Its stdout, split into lines (non-JSON ones dropped). */
  readonly lines: StdoutLines;
}

/** The client's side of the protocol: what the agent may send us. */
export interface AcpClientHandlers {
  /** A `session/update` notification. */
  onUpdate(params: AcpSessionNotification): void;
  /** A `session/request_permission` request. */
  onPermission(
    params: AcpRequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<AcpRequestPermissionResponse>;
  /** A sign of life (a stdout line, a request); `what` names it where it is worth reporting. */
  onActivity(what: string | undefined): void;
  /** Serves `fs/read_text_file` and `fs/write_text_file`. */
  readonly fs: WorkspaceFileSystem;
}

/** The agent's environment: `process.env` under the overrides, then the preset's fixed variables. */
export function agentEnv(o: AcpConnectionOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(o.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  if (o.preset === 'gemini-cli') Object.assign(env, GEMINI_CLI_ENV);
  return env;
}

/**
 * With shadow-home: a private HOME, with Gemini CLI's own settings there. Unlike the session directory it
 * outlives the agent (the agent keeps its saved sessions in it, so `conversationId` can resume them): one per
 * settings, under the data directory, 0700/0600. The user's files are never touched.
 */
export async function setupHome(o: AcpConnectionOptions, env: NodeJS.ProcessEnv): Promise<void> {
  if (o.isolation !== 'shadow-home') return;
  const settings = JSON.stringify(geminiCliSettings(env, o.settingsOverrides), null, 2);
  const key = createHash('sha256').update(`${o.command}\0${settings}`).digest('hex').slice(0, 16);
  const home = join(o.dataDir ?? defaultDataDir(env), 'acp-homes', key);
  await mkdir(join(home, '.gemini'), { recursive: true, mode: 0o700 });
  await chmod(home, 0o700);
  await writeFile(join(home, '.gemini', 'settings.json'), settings, { mode: 0o600 });
  env.HOME = home;
}

/**
 * `systemPrompt` (instructions that replace the agent's own, Gemini CLI only): written to a private file in the
 * session directory (0600), named by `GEMINI_SYSTEM_MD`, which Gemini CLI reads instead of its built-in prompt.
 */
export async function setupSystemPrompt(
  o: AcpConnectionOptions,
  sessionDir: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (o.systemPrompt === undefined) return;
  const file = join(sessionDir, 'system.md');
  await writeFile(file, o.systemPrompt, { mode: 0o600 });
  env.GEMINI_SYSTEM_MD = file;
}

/** Starts the process and wires the protocol to it (no request sent yet). */
export function spawnAgent(
  o: AcpConnectionOptions,
  binary: string,
  env: NodeJS.ProcessEnv,
  handlers: AcpClientHandlers,
): AcpAgent {
  const logger = o.logger;
  const lines = new StdoutLines(logger, o.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  const tap = o.tap;
  lines.onLine = (message) => {
    tap?.acp?.('in', message);
    handlers.onActivity(undefined);
  };
  tap?.spawn([...o.args], binary);
  const proc = new AgentProcess({
    binary,
    args: [...o.args],
    env,
    cwd: o.cwd,
    onStdout: (chunk) => lines.push(chunk),
    onStdoutEnd: () => lines.end(),
    onStderrLine: (line) => {
      tap?.stderr(line);
      callContained(logger, 'onStderr', o.onStderr, line);
    },
  });
  if (tap) void proc.exited.then((exit) => tap.exit(exit.code, exit.signal));
  // Messages both ways, one JSON line each; stdout is parsed and filtered by `StdoutLines`.
  const writable = new WritableStream<AnyMessage>({
    write: (message) => {
      lines.sent(message);
      tap?.acp?.('out', message);
      return proc.write(`${JSON.stringify(message)}\n`);
    },
  });
  const stream = { readable: lines.readable, writable };
  const rpc = client({ name: 'agy-sdk' })
    .onNotification('session/update', ({ params }) => {
      // Contained: a throw here would reach the SDK, which reports it with console.error, past the logger.
      try {
        handlers.onUpdate(params);
      } catch (error) {
        logger.error(`ACP session/update could not be handled: ${errorMessage(error)}`);
      }
    })
    .onRequest('session/request_permission', ({ params, signal }) => handlers.onPermission(params, signal))
    .onRequest('fs/read_text_file', ({ params }) => {
      handlers.onActivity('fs/read_text_file');
      return handlers.fs.read(params);
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      handlers.onActivity('fs/write_text_file');
      return handlers.fs.write(params);
    })
    .connect(stream);
  // The agent died: nothing more will answer; the running turn learns it from `exited`.
  void proc.exited.then(() => rpc.close(new Error('the ACP agent exited')));
  return { process: proc, rpc, lines };
}

/**
 * A start-time request, bounded by `limit` ms and by the process's exit; failures carry the stderr tail. With
 * `stopOnTimeout`, a timed-out agent is stopped before the error is made, so it carries everything the agent
 * wrote until its end and how it ended, not only what had been read when the time ran out.
 */
export async function startRequest<T>(
  agent: AcpAgent,
  what: string,
  limit: number,
  send: () => Promise<T>,
  stopOnTimeout?: () => Promise<void>,
): Promise<T> {
  const diag = () => ({
    exitCode: agent.process.exitInfo?.code ?? null,
    signal: agent.process.exitInfo?.signal ?? null,
    stderrTail: agent.process.stderrTail,
  });
  await agent.process.spawned.catch((err: unknown) => {
    throw new StartError(`the ACP agent could not be started: ${(err as Error).message}`, diag(), {
      cause: err,
    });
  });
  const answer = send().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const exited = agent.process.exited.then(() => ({ exited: true as const }));
  const raced = await within(Promise.race([answer, exited]), limit);
  if (raced === undefined) {
    await stopOnTimeout?.();
    throw new StartError(`the ACP agent did not answer ${what} within ${limit} ms`, diag());
  }
  const r = raced.value;
  if ('exited' in r) throw new StartError(`the ACP agent exited before answering ${what}`, diag());
  if (!r.ok) {
    if (r.error instanceof UnsupportedError || r.error instanceof StartError) throw r.error;
    throw new StartError(`the ACP agent failed ${what}: ${errorMessage(r.error)}`, diag(), {
      cause: r.error,
    });
  }
  return r.value;
}

/**
 * stdin EOF ends Gemini CLI's launcher and its child; SIGTERM to the launcher alone is ignored, so the
 * supervisor then signals the whole group and kills what is left (docs/reference/acp.md#process-tree).
 */
export async function stopAgent(agent: AcpAgent, closeGraceMs: number | undefined): Promise<void> {
  agent.rpc.close();
  await agent.process.close({ graceMs: closeGraceMs ?? 2_000, termGraceMs: 200 });
}
