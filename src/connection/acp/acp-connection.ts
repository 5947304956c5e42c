/**
 * The ACP backend: one `Connection` to an agent that speaks the Agent Client Protocol on its stdin/stdout
 * (Gemini CLI's `gemini --acp`, Antigravity's `agy_acp_server`), built on the official SDK's client side
 * (`@agentclientprotocol/sdk`). It owns a private session directory (attachments) and the loopback listener
 * serving the agent's own `tool()`s over MCP, and composes the rest: the agent's process and session
 * (`acp-session.ts`), the turn (`acp-turn.ts`) and its watchdog (`watchdog.ts`), permission requests through the
 * host's policies and `askUser` (`permission-handler.ts`), and file reads and writes confined to the workspaces
 * (`fs-service.ts`). Facts: docs/reference/acp.md.
 */
import { ClosedError, StartError, UnsupportedError, UsageError } from '../../errors.js';
import { within } from '../../internal/timing.js';
import type { AgentCapabilities } from '../../model/capabilities.js';
import type { Usage } from '../../model/step.js';
import type { TurnResult, TurnStatus } from '../../model/turn-result.js';
import { addUsage } from '../../model/usage.js';
import type { AcpSessionNotification } from '../../protocol/acp.js';
import type { Connection, ConnectionInfo, TurnRequest, TurnSink } from '../connection.js';
import type { ConnectionHost } from '../host.js';
import { SessionListener } from '../tool-server/listener.js';
import { TOOL_SERVER_NAME } from '../tool-server/server-name.js';
import { SessionDir } from '../tool-server/session-dir.js';
import { type AcpAgent, agentEnv, setupHome, setupSystemPrompt } from './acp-process.js';
import { AcpSession } from './acp-session.js';
import { AcpTurn, type TurnResultContext } from './acp-turn.js';
import { WorkspaceFileSystem } from './fs-service.js';
import { AcpTurnSteps, type ToolResolver } from './normalize.js';
import { type AcpConnectionOptions, DEFAULT_ACP_IDLE_TIMEOUT_MS } from './options.js';
import { PermissionHandler } from './permission-handler.js';
import { resolveCommand } from './presets.js';
import { promptBlocks } from './prompt-blocks.js';
import { errorMessage } from './rpc-errors.js';
import { reportToolEnded } from './tool-hooks.js';
import { toolResolver } from './tool-names.js';
import { TurnWatchdog } from './watchdog.js';

/** The ACP backend behind `Connection`. */
export class AcpConnection implements Connection {
  readonly #o: AcpConnectionOptions;
  readonly #host: ConnectionHost;
  readonly #dir: SessionDir;
  readonly #listener: SessionListener | undefined;
  readonly #session: AcpSession;
  readonly #permissions: PermissionHandler;
  readonly #watchdog: TurnWatchdog;
  readonly #resolveTool: ToolResolver;
  /** What a turn's result reads from the connection. */
  readonly #resultContext: TurnResultContext;
  #turn: AcpTurn | undefined;
  #nextStep = 0;
  #total: Usage | null = null;
  #closed = false;
  #closing: Promise<void> | undefined;

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
    this.#dir = dir;
    this.#listener = listener;
    this.#resolveTool = toolResolver(listener, Object.keys(o.mcpServers ?? {}));
    this.#watchdog = new TurnWatchdog({
      idleTimeoutMs: o.idleTimeoutMs ?? DEFAULT_ACP_IDLE_TIMEOUT_MS,
      current: () => this.#turn,
      stderrTail: () => this.#session.stderrTail,
      cancel: (turn) => void this.#cancelTurn(turn),
    });
    this.#permissions = new PermissionHandler({
      host,
      logger: o.logger,
      permissionTimeoutMs: o.permissionTimeoutMs,
      mcpServers: o.mcpServers,
      turnOf: (sessionId) => (sessionId === this.#session.sessionId ? this.#turn : undefined),
      activity: (what) => this.#watchdog.activity(what),
    });
    this.#session = new AcpSession(o, {
      binary,
      env,
      listener,
      handlers: {
        onUpdate: (params) => this.#onUpdate(params),
        onPermission: (params, signal) => this.#permissions.answer(params, signal),
        onActivity: (what) => this.#watchdog.activity(what),
        fs: new WorkspaceFileSystem(o.workspaces, o.cwd, { attachments: o.attachments }),
      },
      info: () => this.info,
    });
    this.#resultContext = {
      conversationId: () => this.#session.sessionId,
      stderrTail: () => this.#session.stderrTail,
      addUsage: (usage) => this.#addUsage(usage),
      agentExited: () => this.#session.forget(),
    };
  }

  /**
   * Builds the session (directory, listener, the preset's setup) and starts the agent at once: `initialize`
   * runs while the caller goes on (Gemini CLI needs seconds); `start()` waits for it.
   */
  static async create(o: AcpConnectionOptions, host: ConnectionHost): Promise<AcpConnection> {
    const env = agentEnv(o);
    const binary = resolveCommand(o.command, env);
    const dir = await SessionDir.create({ dataDir: o.dataDir });
    let listener: SessionListener | undefined;
    try {
      // Set once the connection exists: an own-tool call is a sign of life although stdout is quiet.
      let self: AcpConnection | undefined;
      const keepAlive = () => {
        if (self) self.#watchdog.activity('own tool call');
      };
      if ((o.tools?.length ?? 0) > 0) {
        listener = await SessionListener.start({
          mcpServers: { [TOOL_SERVER_NAME]: o.tools ?? [] },
          ownTools: { host, observer: { onStart: keepAlive, onEnd: keepAlive } },
          logger: o.logger,
          onMcpExchange: o.tap?.mcp,
        });
      }
      await setupHome(o, env);
      // The listener's URL (with its token) goes to the agent in session/new: scrubbed from the cassette.
      o.tap?.secrets({ token: listener?.token, sessionDir: dir.path });
      await setupSystemPrompt(o, dir.path, env);
      self = new AcpConnection(o, host, dir, listener, env, binary);
      // Started eagerly; start() hands the outcome to its caller.
      self.#session.start().catch(() => {});
      return self;
    } catch (err) {
      await listener?.close();
      await dir.remove();
      throw err;
    }
  }

  get conversationId(): string | undefined {
    return this.#session.sessionId;
  }

  get info(): ConnectionInfo {
    return {
      version: this.#session.init?.agentInfo?.version ?? null,
      conversationId: this.#session.sessionId,
      model: this.#session.model,
      tools: [],
      permissionMode: undefined,
      cwd: this.#o.cwd,
      pid: this.#session.agent?.process.pid,
    };
  }

  /** What the agent advertised on `initialize` and `session/new`, as the SDK's flags (after `start()`). */
  get capabilities(): AgentCapabilities | undefined {
    return this.#session.capabilities;
  }

  get isIdle(): boolean {
    return this.#turn === undefined;
  }

  /** The agent's pid, while it runs. */
  get pid(): number | undefined {
    return this.#session.agent?.process.pid;
  }

  /** Lines the agent wrote on stdout that were not messages this client takes (dropped and logged). */
  get droppedLines(): number {
    return this.#session.agent?.lines.dropped ?? 0;
  }

  start(): Promise<ConnectionInfo> {
    if (this.#closed) return Promise.reject(new ClosedError());
    return this.#session.start();
  }

  attachmentsDir(): Promise<string> {
    return this.#dir.subdir('attachments');
  }

  // ---- Turns ----

  async runTurn(request: TurnRequest, sink: TurnSink): Promise<TurnResult> {
    if (this.#closed) throw new ClosedError();
    if (this.#turn) throw new UsageError('runTurn: a turn is already running');
    const turn = new AcpTurn(this.#newSteps(), sink, this.#o.logger);
    this.#turn = turn;
    try {
      let agent: AcpAgent;
      try {
        agent = await this.#session.ensureAgent();
      } catch (err) {
        return turn.result(
          this.#resultContext,
          { status: startStatus(err), message: errorMessage(err), error: asSdkError(err) },
          null,
        );
      }
      // The session id is known only now (the placeholder's steps were made before the agent ran).
      turn.steps = this.#newSteps();
      if (turn.stopAsked)
        return turn.result(
          this.#resultContext,
          { status: turn.stopAsked, message: `${turn.stopAsked} before it was sent` },
          null,
        );
      this.#watchdog.arm(turn, request.timeoutMs ?? this.#o.turnTimeoutMs ?? 0);
      const prompt = promptBlocks(request, this.#session.capabilities);
      const answer = agent.rpc.agent
        .request('session/prompt', { sessionId: this.#session.sessionId!, prompt })
        .then(
          (value) => ({ kind: 'result' as const, value }),
          (error: unknown) => ({ kind: 'error' as const, error }),
        );
      const exited = agent.process.exited.then((exit) => ({ kind: 'exit' as const, exit }));
      const outcome = await Promise.race([
        answer,
        exited,
        turn.abandoned.then(() => ({ kind: 'abandoned' as const })),
      ]);
      this.#watchdog.disarm();
      // A dead agent's pending prompt is rejected as its pipes close, just before the exit is known.
      if (outcome.kind === 'error' && !turn.stopAsked) {
        const exit = await within(agent.process.exited, 1_000);
        if (exit) return turn.finish(this.#resultContext, agent, { kind: 'exit', exit: exit.value });
      }
      return turn.finish(this.#resultContext, agent, outcome);
    } finally {
      this.#watchdog.disarm();
      this.#nextStep = turn.steps.nextIndex;
      this.#turn = undefined;
      turn.end();
    }
  }

  #newSteps(): AcpTurnSteps {
    return new AcpTurnSteps(this.#session.sessionId ?? '', this.#resolveTool, this.#nextStep);
  }

  /** Adds a turn's usage to the connection's total; returns the total so far (a copy), or null. */
  #addUsage(usage: Usage | null): Usage | null {
    if (usage)
      this.#total = addUsage(
        this.#total ? { ...this.#total } : { ...usage, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        usage,
      );
    return this.#total ? { ...this.#total } : null;
  }

  #onUpdate(params: AcpSessionNotification): void {
    this.#session.noteUpdate();
    const turn = this.#turn;
    // Updates outside a turn (a loaded session's replay, command lists) carry nothing for a turn.
    if (!turn || params.sessionId !== this.#session.sessionId) return;
    turn.update(params.update, (call) => reportToolEnded(this.#host, this.#o.logger, call));
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
    const agent = this.#session.agent;
    const sessionId = this.#session.sessionId;
    if (!agent || sessionId === undefined) return;
    await agent.rpc.agent.notify('session/cancel', { sessionId }).catch(() => {});
    const grace = this.#o.interruptGraceMs ?? 5_000;
    if (await within(turn.ended, grace)) return;
    if (this.#turn !== turn) return;
    this.#o.logger.warn(
      `the ACP agent did not end the turn within ${grace} ms of session/cancel; stopping it`,
    );
    this.#session.forget();
    turn.abandon();
    await this.#session.stopAgent(agent);
  }

  async setModel(model: string): Promise<void> {
    if (this.#turn) throw new UsageError('setModel: wait until the turn ends');
    const agent = await this.#session.ensureAgent();
    await this.#session.setModel(agent, model);
  }

  /** Stops the agent (stdin EOF, grace, then the whole group), the listener, and removes the session directory. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#session.markClosed();
      const turn = this.#turn;
      if (turn) {
        turn.stopAsked ??= 'canceled';
        turn.abandon();
      }
      this.#watchdog.disarm();
      try {
        await this.#session.stop();
      } finally {
        try {
          await this.#listener?.close();
        } finally {
          try {
            await this.#dir.remove();
          } finally {
            await this.#o.tap?.close();
          }
        }
      }
    })();
    return this.#closing;
  }
}

function asSdkError(err: unknown): TurnResult['error'] {
  return err instanceof StartError || err instanceof UnsupportedError || err instanceof ClosedError
    ? err
    : undefined;
}

function startStatus(err: unknown): TurnStatus {
  return err instanceof StartError ? err.status : 'error';
}
