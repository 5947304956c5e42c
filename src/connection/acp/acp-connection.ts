/**
 * The ACP backend: one `Connection` to an agent that speaks the Agent Client Protocol on its stdin/stdout
 * (Gemini CLI's `gemini --acp`, Antigravity's `agy_acp_server`), built on the official SDK's client side
 * (`@agentclientprotocol/sdk`). It owns the supervised process (the same no-orphan supervisor as agy), a private
 * session directory (attachments, the shadow HOME), the loopback listener serving the agent's own `tool()`s over
 * MCP, and the client's answers: permission requests through the host's policies and `askUser`, and file
 * reads and writes confined to the workspaces. Facts: docs/reference/acp.md.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ClientConnection,
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from '@agentclientprotocol/sdk';
import {
  ClosedError,
  ProcessExitError,
  StartError,
  UnsupportedError,
  UsageError,
  WatchdogTimeoutError,
} from '../../errors.js';
import { createHookToolCall } from '../../hooks/args.js';
import { callContained } from '../../internal/contain.js';
import type { Logger } from '../../logger.js';
import type { AgentCapabilities } from '../../model/capabilities.js';
import type { Step, ToolCall, Usage, WireObject } from '../../model/step.js';
import type { TurnResult, TurnStatus } from '../../model/turn-result.js';
import { addUsage } from '../../model/usage.js';
import type {
  AcpContentBlock,
  AcpInitializeResponse,
  AcpMcpServer,
  AcpNewSessionResponse,
  AcpPromptResponse,
  AcpRequestPermissionRequest,
  AcpRequestPermissionResponse,
  AcpSessionNotification,
} from '../../protocol/acp.js';
import type { ToolDefinition } from '../../tools/tool.js';
import { GEMINI_CLI_MCP_PREFIX } from '../../tools/tool-aliases.js';
import { AgyProcess, type ExitInfo } from '../agy/process/agy-process.js';
import { SessionListener } from '../agy/session/listener.js';
import type { McpServerConfig } from '../agy/session/mcp-config.js';
import { defaultDataDir, SessionDir } from '../agy/session/session-dir.js';
import { TOOL_SERVER_NAME } from '../agy/session/session-runtime.js';
import type { Connection, ConnectionInfo, TurnMedia, TurnRequest, TurnSink } from '../connection.js';
import type { ConnectionHost, ToolCallVerdict } from '../host.js';
import { capabilitiesOf } from './capabilities.js';
import type { AcpPreset } from './config.js';
import { WorkspaceFileSystem } from './fs-service.js';
import {
  AcpTurnSteps,
  classifyRequestError,
  classifyStop,
  type ResolvedTool,
  usageFromMeta,
} from './normalize.js';
import { CANCELLED, chooseOption } from './permissions.js';
import { GEMINI_CLI_ENV, geminiCliSettings, resolveCommand } from './presets.js';
import {
  msUntilMinuteTurned,
  noteSessionStarted,
  SESSION_NOT_LOADABLE,
  sessionStartMinute,
  waitOrAbort,
} from './session-load.js';
import { StdoutLines } from './stdout-lines.js';

/** The MCP server name the agent knows the agent's own tools by (the same as on agy). */
export const ACP_OWN_TOOL_SERVER = 'agy-sdk_tools';
/** Default time for `initialize` and `session/new` (Gemini CLI takes 7–8 s to initialize on 2 cores). */
export const DEFAULT_ACP_START_TIMEOUT_MS = 60_000;
/** Default stall watchdog of a turn: no sign of life from the agent for 30 minutes ends it `timeout`. */
export const DEFAULT_ACP_IDLE_TIMEOUT_MS = 30 * 60_000;
/** Default time a permission request may wait for the policies and `askUser` before it is denied. */
export const DEFAULT_ACP_PERMISSION_TIMEOUT_MS = 30_000;

/** Everything the ACP backend is built from (validated by the Agent). */
export interface AcpConnectionOptions {
  /** The agent's executable: a path or a name on PATH. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** The preset, for its setup (Gemini CLI's settings in a shadow HOME). */
  preset?: AcpPreset | undefined;
  /** The agent's environment overrides (over `process.env`); `undefined` removes a variable. */
  env?: Record<string, string | undefined> | undefined;
  /** The session's working directory (`session/new` `cwd`). */
  cwd: string;
  /** The workspaces: file reads and writes are served inside them only. */
  workspaces: readonly string[];
  /** Parent of the private session directory. */
  dataDir?: string | undefined;
  /** `shadow-home`: the agent runs with a private HOME the SDK sets up. */
  isolation?: 'none' | 'shadow-home' | undefined;
  /** With shadow-home: merged over the preset's settings (Gemini CLI's `settings.json`). */
  settingsOverrides?: Record<string, unknown> | undefined;
  /** The agent's own tools, served over MCP on the loopback listener. */
  tools?: readonly ToolDefinition[] | undefined;
  /** The user's MCP servers. */
  mcpServers?: Record<string, McpServerConfig> | undefined;
  /** Resume this session (`session/load`). */
  conversationId?: string | undefined;
  /** Switch to this model after the session starts (`session/set_model`). */
  model?: string | undefined;
  /** Time for `initialize` and for `session/new`/`session/load`, each. */
  startTimeoutMs?: number | undefined;
  /** Stall watchdog; `0` is off. */
  idleTimeoutMs?: number | undefined;
  /** Whole-turn limit; `0` or undefined is off. */
  turnTimeoutMs?: number | undefined;
  /** After `session/cancel`, how long before the process is killed. Default 5 s. */
  interruptGraceMs?: number | undefined;
  /** On close: time after stdin EOF before the group is killed. Default 2 s. */
  closeGraceMs?: number | undefined;
  /** Largest JSON-RPC message accepted from the agent. */
  maxLineBytes?: number | undefined;
  /** How long a permission request may wait for the host's answer before it is denied. */
  permissionTimeoutMs?: number | undefined;
  /** Every line the agent writes to stderr. */
  onStderr?: ((line: string) => void) | undefined;
  /** Where the backend logs. */
  logger: Logger;
}

/** One running turn. */
interface AcpTurn {
  readonly steps: AcpTurnSteps;
  readonly sink: TurnSink;
  readonly started: number;
  denials: number;
  stopAsked: 'interrupted' | 'canceled' | undefined;
  timeout: WatchdogTimeoutError | undefined;
  /** Ends the wait for the prompt without its answer (process killed after a cancel or the watchdog). */
  abandon: () => void;
  readonly abandoned: Promise<void>;
  /** Resolves when `runTurn` has returned. */
  readonly ended: Promise<void>;
  lastEvent: string | undefined;
  /** Tool calls whose end was reported to the host. */
  readonly endedCalls: Set<string>;
}

/** The running agent process and its protocol connection. */
interface Agent {
  readonly process: AgyProcess;
  readonly rpc: ClientConnection;
  readonly lines: StdoutLines;
}

const wire = (value: unknown): WireObject => value as WireObject;

/** `p`, or `undefined` once `ms` passed (the timer is always cleared). */
async function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p.then((value) => ({ value })),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ACP backend behind `Connection`. */
export class AcpConnection implements Connection {
  readonly #o: AcpConnectionOptions;
  readonly #host: ConnectionHost;
  readonly #logger: Logger;
  readonly #dir: SessionDir;
  readonly #listener: SessionListener | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #binary: string;
  readonly #fs: WorkspaceFileSystem;
  #agent: Agent | undefined;
  #starting: Promise<ConnectionInfo> | undefined;
  #init: AcpInitializeResponse | undefined;
  #session: (AcpNewSessionResponse & { models?: unknown }) | undefined;
  #sessionId: string | undefined;
  #capabilities: AgentCapabilities | undefined;
  #model: string | undefined;
  #turn: AcpTurn | undefined;
  #nextStep = 0;
  #total: Usage | null = null;
  #closed = false;
  /** When the last `session/update` arrived (ms), turn or not. */
  #lastUpdateAt = 0;
  /** Aborted by close(): waits in the start path end at once. */
  readonly #closeSignal = new AbortController();
  #closing: Promise<void> | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #turnTimer: NodeJS.Timeout | undefined;

  private constructor(
    o: AcpConnectionOptions,
    host: ConnectionHost,
    dir: SessionDir,
    listener: SessionListener | undefined,
    env: NodeJS.ProcessEnv,
    binary: string,
  ) {
    this.#o = o;
    this.#host = host;
    this.#logger = o.logger;
    this.#dir = dir;
    this.#listener = listener;
    this.#env = env;
    this.#binary = binary;
    this.#fs = new WorkspaceFileSystem(o.workspaces, o.cwd);
    this.#model = o.model;
  }

  /**
   * Builds the session (directory, listener, the preset's setup) and starts the agent at once: `initialize`
   * runs while the caller goes on (Gemini CLI needs seconds); `start()` waits for it.
   */
  static async create(o: AcpConnectionOptions, host: ConnectionHost): Promise<AcpConnection> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(o.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    if (o.preset === 'gemini-cli') Object.assign(env, GEMINI_CLI_ENV);
    const binary = resolveCommand(o.command, env);
    const dir = await SessionDir.create({ dataDir: o.dataDir });
    let listener: SessionListener | undefined;
    try {
      // Set once the connection exists: an own-tool call is a sign of life although stdout is quiet.
      let self: AcpConnection | undefined;
      const keepAlive = () => {
        if (self) self.#noteActivity('own tool call');
      };
      if ((o.tools?.length ?? 0) > 0) {
        listener = await SessionListener.start({
          mcpServers: { [TOOL_SERVER_NAME]: o.tools ?? [] },
          beforeCall: host.gateToolCall,
          afterCall: host.afterToolCall,
          toolContext: host.toolContext,
          observer: { onStart: keepAlive, onEnd: keepAlive },
          logger: o.logger,
        });
      }
      await AcpConnection.#setupHome(o, env);
      self = new AcpConnection(o, host, dir, listener, env, binary);
      const started = self.#start();
      self.#starting = started;
      // Started eagerly; start() hands the outcome to its caller.
      started.catch(() => {});
      return self;
    } catch (err) {
      await listener?.close();
      await dir.remove();
      throw err;
    }
  }

  /**
   * With shadow-home: a private HOME, with Gemini CLI's own settings there. Unlike the session directory it
   * outlives the agent (the agent keeps its saved sessions in it, so `conversationId` can resume them): one per
   * settings, under the data directory, 0700/0600. The user's files are never touched.
   */
  static async #setupHome(o: AcpConnectionOptions, env: NodeJS.ProcessEnv): Promise<void> {
    if (o.isolation !== 'shadow-home') return;
    const settings = JSON.stringify(geminiCliSettings(env, o.settingsOverrides), null, 2);
    const key = createHash('sha256').update(`${o.command}\0${settings}`).digest('hex').slice(0, 16);
    const home = join(o.dataDir ?? defaultDataDir(env), 'acp-homes', key);
    await mkdir(join(home, '.gemini'), { recursive: true, mode: 0o700 });
    await chmod(home, 0o700);
    await writeFile(join(home, '.gemini', 'settings.json'), settings, { mode: 0o600 });
    env.HOME = home;
  }

  get conversationId(): string | undefined {
    return this.#sessionId;
  }

  get info(): ConnectionInfo {
    return {
      version: this.#init?.agentInfo?.version ?? null,
      conversationId: this.#sessionId,
      model: this.#model ?? currentModel(this.#session),
      tools: [],
      permissionMode: undefined,
      cwd: this.#o.cwd,
      pid: this.#agent?.process.pid,
    };
  }

  /** What the agent advertised on `initialize` and `session/new`, as the SDK's flags (after `start()`). */
  get capabilities(): AgentCapabilities | undefined {
    return this.#capabilities;
  }

  get isIdle(): boolean {
    return this.#turn === undefined;
  }

  /** The agent's pid, while it runs. */
  get pid(): number | undefined {
    return this.#agent?.process.pid;
  }

  /** Lines the agent wrote on stdout that were not JSON (dropped and logged). */
  get droppedLines(): number {
    return this.#agent?.lines.dropped ?? 0;
  }

  start(): Promise<ConnectionInfo> {
    if (this.#closed) return Promise.reject(new ClosedError());
    this.#starting ??= this.#start();
    return this.#starting;
  }

  attachmentsDir(): Promise<string> {
    return this.#dir.subdir('attachments');
  }

  /** Spawns the agent, `initialize`, then `session/new` (or `session/load` to resume) and the model switch. */
  async #start(): Promise<ConnectionInfo> {
    this.#logger.info(`starting ACP agent ${this.#o.command}; initialize…`);
    const agent = this.#spawn();
    try {
      const init = await this.#startRequest(agent, 'initialize', () =>
        agent.rpc.agent.request('initialize', {
          protocolVersion: PROTOCOL_VERSION,
          // Gemini CLI 0.61 cannot tell a missing file from an error on a proxied read, which breaks writing new
          // files (docs/reference/acp.md#fs-proxy): with it, only writes go through the SDK.
          clientCapabilities: {
            fs: { readTextFile: this.#o.preset !== 'gemini-cli', writeTextFile: true },
            terminal: false,
          },
          clientInfo: { name: 'agy-sdk', version: '0' },
        }),
      );
      this.#init = init;
      this.#logger.info(
        `ACP agent ${init.agentInfo?.name ?? this.#o.command} initialized (protocol ${init.protocolVersion})`,
      );
      await this.#openSession(agent, this.#sessionId ?? this.#o.conversationId);
      if (this.#o.model !== undefined && this.#sessionId !== undefined)
        await this.#setModel(agent, this.#o.model);
      return this.info;
    } catch (err) {
      await this.#stopAgent(agent);
      throw err;
    }
  }

  #mcpServers(): AcpMcpServer[] {
    const http = this.#init?.agentCapabilities?.mcpCapabilities?.http === true;
    const out: AcpMcpServer[] = [];
    if (this.#listener) {
      // The listener's URL carries its per-session token; it travels on the agent's stdin, never in argv.
      if (!http)
        throw new StartError(
          "the ACP agent does not advertise HTTP MCP servers; the agent's own tools need them",
          {
            exitCode: null,
            signal: null,
            stderrTail: this.#agent?.process.stderrTail ?? '',
          },
        );
      out.push({
        type: 'http',
        name: ACP_OWN_TOOL_SERVER,
        url: this.#listener.mcpUrl(TOOL_SERVER_NAME),
        headers: [],
      });
    }
    for (const [name, server] of Object.entries(this.#o.mcpServers ?? {})) {
      if (server.disabled) continue;
      if ('command' in server && typeof server.command === 'string') {
        out.push({
          name,
          command: server.command,
          args: [...(server.args ?? [])],
          env: Object.entries(server.env ?? {}).map(([k, v]) => ({ name: k, value: v })),
        });
      } else if ('url' in server) {
        if (!http)
          throw new StartError(`mcpServers.${name}: the ACP agent does not advertise HTTP MCP servers`, {
            exitCode: null,
            signal: null,
            stderrTail: '',
          });
        out.push({
          type: 'http',
          name,
          url: server.url,
          headers: Object.entries(server.headers ?? {}).map(([k, v]) => ({ name: k, value: v })),
        });
      }
    }
    return out;
  }

  async #openSession(agent: Agent, resume: string | undefined): Promise<void> {
    const mcpServers = this.#mcpServers();
    const cwd = this.#o.cwd;
    if (resume !== undefined) {
      if (this.#init?.agentCapabilities?.loadSession !== true)
        throw new UnsupportedError(
          'conversationId',
          'the ACP agent does not advertise loadSession, so a session cannot be resumed',
        );
      // Gemini CLI cannot load a session in the minute it started, and a failed try spoils it: wait first.
      const gemini = this.#o.preset === 'gemini-cli' || this.#init?.agentInfo?.name === 'gemini-cli';
      const minute = gemini ? await sessionStartMinute(resume, this.#env.HOME) : undefined;
      const wait = minute === undefined ? 0 : msUntilMinuteTurned(minute, Date.now());
      if (wait > 0) {
        this.#logger.info(`session/load waits ${wait} ms for the minute the session started in to turn`);
        await waitOrAbort(wait, this.#closeSignal.signal);
        if (this.#closed) throw new ClosedError('closed while waiting to load the session');
      }
      const loaded = await this.#startRequest(agent, 'session/load', () =>
        agent.rpc.agent.request('session/load', { sessionId: resume, cwd, mcpServers }),
      ).catch((err: unknown) => {
        if (err instanceof StartError && SESSION_NOT_LOADABLE.test(`${err.message} ${detailsOf(err.cause)}`))
          throw new StartError(
            `session/load: the agent cannot load session ${resume}: it does not know it in this cwd and HOME, or it ` +
              'was tried in the wall-clock minute the session started (Gemini CLI then refuses it for good; the SDK ' +
              "waits for that minute to turn when it can see the session's start)",
            err,
            { cause: err },
          );
        throw err;
      });
      // The answer counts as the replay's start: quiet is measured from it.
      this.#lastUpdateAt = Date.now();
      await this.#replaySettled();
      this.#session = { sessionId: resume, ...(loaded as object) } as AcpNewSessionResponse;
      this.#sessionId = resume;
    } else {
      const session = await this.#startRequest(agent, 'session/new', () =>
        agent.rpc.agent.request('session/new', { cwd, mcpServers }),
      );
      noteSessionStarted(session.sessionId);
      this.#session = session;
      this.#sessionId = session.sessionId;
    }
    this.#capabilities = capabilitiesOf(this.#init!, this.#session);
  }

  /**
   * Gemini CLI replays a loaded session's history as updates mostly *after* answering `session/load`
   * (docs/reference/acp.md#session-load); the first prompt must not take that replay for its own answer. Waits
   * until the updates have been quiet for a moment (bounded).
   */
  async #replaySettled(quietMs = 300, maxMs = 10_000): Promise<void> {
    const until = Date.now() + maxMs;
    while (Date.now() < until && !this.#closed) {
      const quietFor = Date.now() - this.#lastUpdateAt;
      if (quietFor >= quietMs) return;
      await waitOrAbort(quietMs - quietFor, this.#closeSignal.signal);
    }
  }

  async #setModel(agent: Agent, model: string): Promise<void> {
    if (!this.#capabilities?.setModel)
      throw new UnsupportedError(
        'setModel',
        'the ACP agent advertises no session models (session/set_model)',
      );
    await this.#startRequest(agent, 'session/set_model', () =>
      agent.rpc.agent.request('session/set_model', { sessionId: this.#sessionId, modelId: model }),
    );
    this.#model = model;
  }

  /** A start-time request, bounded by `startTimeoutMs` and by the process's exit; failures carry the stderr tail. */
  async #startRequest<T>(agent: Agent, what: string, send: () => Promise<T>): Promise<T> {
    const limit = this.#o.startTimeoutMs ?? DEFAULT_ACP_START_TIMEOUT_MS;
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
    if (raced === undefined)
      throw new StartError(`the ACP agent did not answer ${what} within ${limit} ms`, diag());
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

  /** Starts the process and wires the protocol to it (no request sent yet). */
  #spawn(): Agent {
    const lines = new StdoutLines(this.#logger);
    lines.onLine = () => this.#noteActivity(undefined);
    const proc = new AgyProcess({
      binary: this.#binary,
      args: [...this.#o.args],
      env: this.#env,
      cwd: this.#o.cwd,
      onStdout: (chunk) => lines.push(chunk),
      onStdoutEnd: () => lines.end(),
      onStderrLine: (line) => callContained(this.#logger, 'onStderr', this.#o.onStderr, line),
    });
    const writable = new WritableStream<Uint8Array>({
      write: (chunk) => proc.write(Buffer.from(chunk).toString('utf8')),
    });
    const stream = ndJsonStream(writable, lines.readable, {
      ...(this.#o.maxLineBytes !== undefined && { maxMessageBytes: this.#o.maxLineBytes }),
    });
    const rpc = client({ name: 'agy-sdk' })
      .onNotification('session/update', ({ params }) => this.#onUpdate(params))
      .onRequest('session/request_permission', ({ params, signal }) => this.#onPermission(params, signal))
      .onRequest('fs/read_text_file', ({ params }) => {
        this.#noteActivity('fs/read_text_file');
        return this.#fs.read(params);
      })
      .onRequest('fs/write_text_file', ({ params }) => {
        this.#noteActivity('fs/write_text_file');
        return this.#fs.write(params);
      })
      .connect(stream);
    const agent: Agent = { process: proc, rpc, lines };
    this.#agent = agent;
    // The agent died: nothing more will answer; the running turn learns it from `exited`.
    void proc.exited.then(() => rpc.close(new Error('the ACP agent exited')));
    return agent;
  }

  // ---- Turns ----

  async runTurn(request: TurnRequest, sink: TurnSink): Promise<TurnResult> {
    if (this.#closed) throw new ClosedError();
    if (this.#turn) throw new UsageError('runTurn: a turn is already running');
    const started = Date.now();
    let abandon!: () => void;
    const abandoned = new Promise<void>((resolve) => {
      abandon = resolve;
    });
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const placeholder = new AcpTurnSteps(
      this.#sessionId ?? '',
      (n, t) => this.#resolveTool(n, t),
      this.#nextStep,
    );
    const turn: AcpTurn = {
      steps: placeholder,
      sink,
      started,
      denials: 0,
      stopAsked: undefined,
      timeout: undefined,
      abandon,
      abandoned,
      ended,
      lastEvent: undefined,
      endedCalls: new Set(),
    };
    this.#turn = turn;
    try {
      let agent: Agent;
      try {
        agent = await this.#ensureAgent();
      } catch (err) {
        return this.#result(
          turn,
          { status: startStatus(err), message: errorMessage(err), error: asSdkError(err) },
          null,
        );
      }
      (turn as { steps: AcpTurnSteps }).steps = new AcpTurnSteps(
        this.#sessionId ?? '',
        (n, t) => this.#resolveTool(n, t),
        this.#nextStep,
      );
      if (turn.stopAsked)
        return this.#result(
          turn,
          { status: turn.stopAsked, message: `${turn.stopAsked} before it was sent` },
          null,
        );
      this.#armWatchdog(turn, request.timeoutMs);
      const prompt = this.#promptBlocks(request);
      const answer = agent.rpc.agent.request('session/prompt', { sessionId: this.#sessionId!, prompt }).then(
        (value) => ({ kind: 'result' as const, value }),
        (error: unknown) => ({ kind: 'error' as const, error }),
      );
      const exited = agent.process.exited.then((exit) => ({ kind: 'exit' as const, exit }));
      const outcome = await Promise.race([
        answer,
        exited,
        abandoned.then(() => ({ kind: 'abandoned' as const })),
      ]);
      this.#disarmWatchdog();
      // A dead agent's pending prompt is rejected as its pipes close, just before the exit is known.
      if (outcome.kind === 'error' && !turn.stopAsked) {
        const exit = await within(agent.process.exited, 1_000);
        if (exit) return this.#finishTurn(turn, agent, { kind: 'exit', exit: exit.value });
      }
      return this.#finishTurn(turn, agent, outcome);
    } finally {
      this.#disarmWatchdog();
      this.#nextStep = turn.steps.nextIndex;
      this.#turn = undefined;
      end();
    }
  }

  #finishTurn(
    turn: AcpTurn,
    agent: Agent,
    outcome:
      | { kind: 'result'; value: AcpPromptResponse }
      | { kind: 'error'; error: unknown }
      | { kind: 'exit'; exit: ExitInfo }
      | { kind: 'abandoned' },
  ): TurnResult {
    if (turn.timeout) {
      this.#flush(turn, null, {});
      return this.#result(
        turn,
        { status: 'timeout', message: turn.timeout.message, error: turn.timeout },
        null,
      );
    }
    switch (outcome.kind) {
      case 'result': {
        const usage = usageFromMeta(outcome.value._meta);
        this.#flush(turn, usage, wire(outcome.value));
        const verdict = classifyStop(outcome.value.stopReason, {
          text: turn.steps.text,
          denials: turn.denials,
          stopAsked: turn.stopAsked,
        });
        return this.#result(
          turn,
          { status: verdict.status, message: verdict.message },
          wire(outcome.value),
          usage,
        );
      }
      case 'error': {
        this.#flush(turn, null, {});
        if (turn.stopAsked)
          return this.#result(
            turn,
            { status: turn.stopAsked, message: `the turn was ${turn.stopAsked}` },
            null,
          );
        const code = outcome.error instanceof RequestError ? outcome.error.code : undefined;
        const message = errorMessage(outcome.error);
        const verdict = classifyRequestError(code, message);
        return this.#result(
          turn,
          { status: verdict.status, message: `the ACP agent answered the prompt with an error: ${message}` },
          null,
        );
      }
      case 'exit': {
        this.#flush(turn, null, {});
        const { code, signal } = outcome.exit;
        const error = new ProcessExitError(
          `the ACP agent exited during the turn (code ${code}, signal ${signal})`,
          {
            exitCode: code,
            signal,
            stderrTail: agent.process.stderrTail,
          },
        );
        // The session survives only on disk: the next turn starts a fresh process and loads it, where it can.
        this.#agent = undefined;
        const status: TurnStatus = turn.stopAsked ?? 'error';
        return this.#result(turn, { status, message: error.message, error }, null, undefined, outcome.exit);
      }
      case 'abandoned': {
        this.#flush(turn, null, {});
        const status: TurnStatus = turn.stopAsked ?? 'error';
        return this.#result(
          turn,
          {
            status,
            message: `the turn was ${status}; the agent did not answer the cancel in time and was stopped`,
          },
          null,
        );
      }
    }
  }

  /** Delivers the turn's last steps (the open model step closes, with the usage). */
  #flush(turn: AcpTurn, usage: Usage | null, raw: WireObject): void {
    for (const step of turn.steps.finish(usage, raw)) this.#emit(turn, step);
  }

  #result(
    turn: AcpTurn,
    v: { status: TurnStatus; message: string; error?: TurnResult['error'] },
    raw: WireObject | null,
    usage: Usage | null = null,
    exit?: ExitInfo,
  ): TurnResult {
    if (usage)
      this.#total = addUsage(
        this.#total ? { ...this.#total } : { ...usage, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        usage,
      );
    return {
      status: v.status,
      text: turn.steps.text,
      usage,
      totalUsage: this.#total ? { ...this.#total } : null,
      deniedActions: [],
      toolCalls: turn.steps.toolCalls,
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      stderrTail: this.#agent?.process.stderrTail ?? '',
      result: raw,
      structuredOutput: undefined,
      conversationId: this.#sessionId,
      durationMs: Date.now() - turn.started,
      notices: [],
      errorMessage: v.status === 'success' ? '' : v.message,
      ...(v.error !== undefined && { error: v.error }),
    };
  }

  #emit(turn: AcpTurn, step: Step): void {
    try {
      turn.sink.onStep(step);
    } catch (err) {
      this.#logger.error('a step consumer threw; the step was dropped', err);
    }
  }

  /**
   * The agent process, started (again) when it is not running: a crashed agent's session is loaded back. A
   * failed restart is not final: it fails its turn, and the next turn tries again.
   */
  async #ensureAgent(): Promise<Agent> {
    this.#starting ??= this.#start();
    try {
      await this.#starting;
    } catch (err) {
      if (this.#sessionId === undefined) throw err;
    }
    if (this.#agent && !this.#agent.process.exitInfo) return this.#agent;
    this.#logger.warn('the ACP agent is not running; starting it again and loading the session');
    this.#starting = this.#start();
    await this.#starting;
    return this.#agent!;
  }

  /** Prompt blocks: text, and media natively where `promptCapabilities` allows (else their file's text block). */
  #promptBlocks(request: TurnRequest): AcpContentBlock[] {
    const media = new Map<string, TurnMedia>((request.media ?? []).map((m) => [m.ref, m]));
    const caps = this.#capabilities;
    return request.text.map((text): AcpContentBlock => {
      const m = media.get(text);
      if (m && m.kind === 'image' && caps?.promptImages)
        return {
          type: 'image',
          mimeType: m.mimeType,
          data: Buffer.from(m.data).toString('base64'),
          uri: `file://${m.file}`,
        };
      if (m && m.kind === 'audio' && caps?.promptAudio)
        return { type: 'audio', mimeType: m.mimeType, data: Buffer.from(m.data).toString('base64') };
      if (m && m.kind === 'document' && caps?.promptEmbeddedContext) {
        const uri = `file://${m.file}`;
        return m.mimeType.startsWith('text/')
          ? {
              type: 'resource',
              resource: { uri, mimeType: m.mimeType, text: Buffer.from(m.data).toString('utf8') },
            }
          : {
              type: 'resource',
              resource: { uri, mimeType: m.mimeType, blob: Buffer.from(m.data).toString('base64') },
            };
      }
      return { type: 'text', text };
    });
  }

  // ---- Agent → client ----

  #onUpdate(params: AcpSessionNotification): void {
    this.#lastUpdateAt = Date.now();
    const turn = this.#turn;
    // Updates outside a turn (a loaded session's replay, command lists) carry nothing for a turn.
    if (!turn || params.sessionId !== this.#sessionId) return;
    turn.lastEvent = params.update.sessionUpdate;
    for (const step of turn.steps.update(params.update)) {
      this.#emit(turn, step);
      const call = step.tool;
      if (call && (call.state === 'DONE' || call.state === 'ERROR') && !turn.endedCalls.has(call.id)) {
        turn.endedCalls.add(call.id);
        this.#toolEnded(call);
      }
    }
  }

  /**
   * `postToolCall` / `onToolError` for a tool the agent ran itself (the SDK's own tools get theirs in-process).
   * Reported once per call; a failing hook is logged, never thrown into the protocol handler.
   */
  #toolEnded(call: ToolCall): void {
    if (call.mcpServer === ACP_OWN_TOOL_SERVER || call.denied || !this.#host.needs().toolResults) return;
    const hookCall = createHookToolCall({
      id: call.id,
      name: call.name,
      args: call.args,
      server: call.mcpServer,
      stepIndex: call.stepIndex,
    });
    const outcome = call.error ? { error: call.error.message } : { output: call.output };
    this.#host.toolCallEnded(hookCall, outcome).catch((err: unknown) => {
      this.#logger.error('a postToolCall / onToolError hook failed', err);
    });
  }

  /** Gemini CLI names MCP tools `mcp_<server>_<tool>`; the known server names say where the tool part starts. */
  #resolveTool(wireName: string | undefined, title: string | undefined): ResolvedTool {
    const name = wireName ?? title ?? 'unknown';
    if (name.startsWith(GEMINI_CLI_MCP_PREFIX)) {
      const rest = name.slice(GEMINI_CLI_MCP_PREFIX.length);
      const servers = [
        ...(this.#listener ? [ACP_OWN_TOOL_SERVER] : []),
        ...Object.keys(this.#o.mcpServers ?? {}),
      ].sort((a, b) => b.length - a.length);
      for (const server of servers) {
        if (!rest.startsWith(`${server}_`)) continue;
        const tool = rest.slice(server.length + 1);
        const own =
          server === ACP_OWN_TOOL_SERVER
            ? this.#listener?.catalog(TOOL_SERVER_NAME)?.names.resolve(tool)?.originalName
            : undefined;
        return { name: own ?? tool, server, wireName: name };
      }
    }
    return { name, wireName: name };
  }

  async #onPermission(
    params: AcpRequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<AcpRequestPermissionResponse> {
    this.#noteActivity('session/request_permission');
    const turn = this.#turn;
    const tc = params.toolCall;
    if (!turn || params.sessionId !== this.#sessionId) {
      // No turn of ours is running: nobody asked for this call; it may not run.
      return chooseOption(params.options, false).response;
    }
    const step = turn.steps.requested(tc.toolCallId, tc, wire(params));
    this.#emit(turn, step);
    const call = step.tool!;
    const hookCall = createHookToolCall({
      id: call.id,
      name: call.name,
      args: call.args,
      server: call.mcpServer,
      stepIndex: call.stepIndex,
    });
    const own = call.mcpServer === ACP_OWN_TOOL_SERVER;
    const key = {};
    this.#host.toolCallRequested(key, hookCall);
    let verdict = await this.#decide(hookCall, own, signal);
    if (verdict.allow && verdict.args !== undefined && !own)
      verdict = {
        allow: false,
        reason: 'modified arguments cannot be given back to an ACP agent; the call was denied',
      };
    if (verdict.allow && call.mcpServer !== undefined) {
      const disabled = this.#o.mcpServers?.[call.mcpServer]?.disabledTools;
      if (disabled?.includes(call.name))
        verdict = {
          allow: false,
          reason: `tool '${call.name}' is in disabledTools of MCP server '${call.mcpServer}'`,
        };
    }
    const answer = chooseOption(params.options, verdict.allow);
    const acted: ToolCallVerdict = answer.allowed
      ? verdict
      : { allow: false, reason: verdict.allow ? 'the agent offered no once-only approval' : verdict.reason };
    this.#host.toolCallAnswered(key, hookCall, acted);
    if (!acted.allow) {
      turn.denials++;
      const denied = turn.steps.denied(tc.toolCallId, acted.reason, wire(params));
      if (denied) this.#emit(turn, denied);
    }
    this.#noteActivity(undefined);
    return signal.aborted ? CANCELLED : answer.response;
  }

  /** The host's verdict, bounded: no answer in `permissionTimeoutMs` (or a throw) denies (fail closed). */
  async #decide(
    call: Parameters<ConnectionHost['beforeToolCall']>[0],
    own: boolean,
    signal: AbortSignal,
  ): Promise<ToolCallVerdict> {
    const limit = this.#o.permissionTimeoutMs ?? DEFAULT_ACP_PERMISSION_TIMEOUT_MS;
    const aborted = new Promise<ToolCallVerdict>((resolve) => {
      if (signal.aborted) resolve({ allow: false, reason: 'the prompt was cancelled' });
      signal.addEventListener('abort', () => resolve({ allow: false, reason: 'the prompt was cancelled' }), {
        once: true,
      });
    });
    try {
      const answered = await within(
        Promise.race([this.#host.beforeToolCall(call, { gatedInProcess: own }), aborted]),
        limit,
      );
      return answered?.value ?? { allow: false, reason: `no decision within ${limit} ms (fail closed)` };
    } catch (err) {
      this.#logger.error('the tool-call decision threw; the call is denied', err);
      return { allow: false, reason: `the decision failed: ${errorMessage(err)}` };
    }
  }

  // ---- Watchdog ----

  #armWatchdog(turn: AcpTurn, turnTimeoutMs: number | undefined): void {
    const turnLimit = turnTimeoutMs ?? this.#o.turnTimeoutMs ?? 0;
    if (turnLimit > 0) this.#turnTimer = setTimeout(() => this.#fire(turn, 'turn', turnLimit), turnLimit);
    this.#noteActivity(undefined);
  }

  #disarmWatchdog(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#turnTimer);
    this.#idleTimer = undefined;
    this.#turnTimer = undefined;
  }

  /** A sign of life from the agent (a line, a request, an own-tool call): the stall watchdog starts over. */
  #noteActivity(what: string | undefined): void {
    const turn = this.#turn;
    if (!turn) return;
    if (what) turn.lastEvent = what;
    const limit = this.#o.idleTimeoutMs ?? DEFAULT_ACP_IDLE_TIMEOUT_MS;
    clearTimeout(this.#idleTimer);
    if (limit > 0) this.#idleTimer = setTimeout(() => this.#fire(turn, 'idle', limit), limit);
  }

  #fire(turn: AcpTurn, kind: 'idle' | 'turn', limit: number): void {
    if (this.#turn !== turn || turn.timeout) return;
    this.#disarmWatchdog();
    turn.timeout = new WatchdogTimeoutError(
      kind,
      limit,
      Date.now() - turn.started,
      turn.lastEvent,
      this.#agent?.process.stderrTail ?? '',
    );
    void this.#cancelTurn(turn);
  }

  // ---- Interrupt, model, close ----

  /** `session/cancel`: the turn ends `interrupted`/`canceled`, the session and process stay. */
  async interrupt(reason: 'interrupted' | 'canceled' = 'interrupted'): Promise<void> {
    const turn = this.#turn;
    if (!turn) return;
    turn.stopAsked ??= reason;
    await this.#cancelTurn(turn);
  }

  /** Sends `session/cancel`; if the prompt does not end within the grace, the process is stopped. */
  async #cancelTurn(turn: AcpTurn): Promise<void> {
    const agent = this.#agent;
    if (!agent || this.#sessionId === undefined) return;
    await agent.rpc.agent.notify('session/cancel', { sessionId: this.#sessionId }).catch(() => {});
    const grace = this.#o.interruptGraceMs ?? 5_000;
    if (await within(turn.ended, grace)) return;
    if (this.#turn !== turn) return;
    this.#logger.warn(`the ACP agent did not end the turn within ${grace} ms of session/cancel; stopping it`);
    this.#agent = undefined;
    turn.abandon();
    await this.#stopAgent(agent);
  }

  async setModel(model: string): Promise<void> {
    if (this.#turn) throw new UsageError('setModel: wait until the turn ends');
    const agent = await this.#ensureAgent();
    await this.#setModel(agent, model);
  }

  /** Stops the agent (stdin EOF, grace, then the whole group), the listener, and removes the session directory. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#closeSignal.abort();
      const turn = this.#turn;
      if (turn) {
        turn.stopAsked ??= 'canceled';
        turn.abandon();
      }
      this.#disarmWatchdog();
      try {
        if (this.#agent) await this.#stopAgent(this.#agent);
        await this.#starting?.catch(() => {});
        if (this.#agent) await this.#stopAgent(this.#agent);
      } finally {
        try {
          await this.#listener?.close();
        } finally {
          await this.#dir.remove();
        }
      }
    })();
    return this.#closing;
  }

  /**
   * stdin EOF ends Gemini CLI's launcher and its child; SIGTERM to the launcher alone is ignored, so the
   * supervisor then signals the whole group and kills what is left (docs/reference/acp.md#process-tree).
   */
  async #stopAgent(agent: Agent): Promise<void> {
    agent.rpc.close();
    await agent.process.close({ graceMs: this.#o.closeGraceMs ?? 2_000, termGraceMs: 200 });
    if (this.#agent === agent) this.#agent = undefined;
  }
}

function currentModel(session: { models?: unknown } | undefined): string | undefined {
  const models = session?.models;
  if (typeof models === 'object' && models !== null && 'currentModelId' in models) {
    const id = (models as { currentModelId?: unknown }).currentModelId;
    return typeof id === 'string' ? id : undefined;
  }
  return undefined;
}

/** A JSON-RPC error's `data.details` (Gemini CLI puts the reason there), or ''. */
function detailsOf(err: unknown): string {
  const data = (err as { data?: unknown } | undefined)?.data;
  return typeof data === 'object' && data !== null ? JSON.stringify(data) : String(data ?? '');
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err)
    return String((err as { message: unknown }).message);
  return String(err);
}

function asSdkError(err: unknown): TurnResult['error'] {
  return err instanceof StartError || err instanceof UnsupportedError || err instanceof ClosedError
    ? err
    : undefined;
}

function startStatus(err: unknown): TurnStatus {
  return err instanceof StartError ? err.status : 'error';
}
