/**
 * The agent's session: the process it runs in, `initialize`, then `session/new` (or `session/load` to resume) and
 * the model switch; a crashed agent is started again and its session loaded back. Owns the running agent, what
 * it advertised, and the session id; the turn itself is the connection's.
 */
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { ClosedError, StartError, UnsupportedError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AgentCapabilities } from '../../model/capabilities.js';
import type { AcpInitializeResponse, AcpNewSessionResponse } from '../../protocol/acp.js';
import type { ConnectionInfo } from '../connection.js';
import type { SessionListener } from '../tool-server/listener.js';
import { type AcpAgent, type AcpClientHandlers, spawnAgent, startRequest, stopAgent } from './acp-process.js';
import { capabilitiesOf } from './capabilities.js';
import { acpMcpServers } from './mcp-servers.js';
import { type AcpConnectionOptions, DEFAULT_ACP_START_TIMEOUT_MS } from './options.js';
import { detailsOf } from './rpc-errors.js';
import {
  msUntilMinuteTurned,
  noteSessionStarted,
  SESSION_NOT_LOADABLE,
  sessionStartMinute,
  waitOrAbort,
} from './session-load.js';

/** How the session reaches the rest of the connection. */
export interface AcpSessionDeps {
  /** The agent's executable, resolved on the agent's PATH. */
  readonly binary: string;
  /** The agent's environment (HOME is the shadow one with shadow-home). */
  readonly env: NodeJS.ProcessEnv;
  /** The loopback listener serving the agent's own tools, if any. */
  readonly listener: SessionListener | undefined;
  /** The client's answers to the agent. */
  readonly handlers: AcpClientHandlers;
  /** The connection's info, returned by a finished start. */
  info(): ConnectionInfo;
}

/** The agent process and its ACP session, started eagerly and again after a crash. */
export class AcpSession {
  readonly #o: AcpConnectionOptions;
  readonly #deps: AcpSessionDeps;
  readonly #logger: Logger;
  #agent: AcpAgent | undefined;
  /** The agent `#start` is starting: its start requests stop it when they time out. */
  #startingAgent: AcpAgent | undefined;
  #starting: Promise<ConnectionInfo> | undefined;
  #init: AcpInitializeResponse | undefined;
  #session: (AcpNewSessionResponse & { models?: unknown }) | undefined;
  #sessionId: string | undefined;
  #capabilities: AgentCapabilities | undefined;
  #model: string | undefined;
  #closed = false;
  /** When the last `session/update` arrived (ms), turn or not. */
  #lastUpdateAt = 0;
  /** Aborted by close(): waits in the start path end at once. */
  readonly #closeSignal = new AbortController();

  constructor(o: AcpConnectionOptions, deps: AcpSessionDeps) {
    this.#o = o;
    this.#deps = deps;
    this.#logger = o.logger;
    this.#model = o.model;
  }

  /** The running agent, if any. */
  get agent(): AcpAgent | undefined {
    return this.#agent;
  }

  /** The agent's answer to `initialize`. */
  get init(): AcpInitializeResponse | undefined {
    return this.#init;
  }

  /** The ACP session id, once a session is open. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** What the agent advertised on `initialize` and `session/new`, as the SDK's flags. */
  get capabilities(): AgentCapabilities | undefined {
    return this.#capabilities;
  }

  /** The model switched to, else the session's current one. */
  get model(): string | undefined {
    return this.#model ?? currentModel(this.#session);
  }

  /** True once `close()` began. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The running agent's recent stderr, or ''. */
  get stderrTail(): string {
    return this.#agent?.process.stderrTail ?? '';
  }

  /** A `session/update` arrived (a loaded session's replay is over once they have been quiet a while). */
  noteUpdate(): void {
    this.#lastUpdateAt = Date.now();
  }

  /** Starts the agent unless it is starting or started; the same promise for every caller. */
  start(): Promise<ConnectionInfo> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  /**
   * The agent process, started (again) when it is not running: a crashed agent's session is loaded back. A
   * failed restart is not final: it fails its turn, and the next turn tries again.
   */
  async ensureAgent(): Promise<AcpAgent> {
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

  /** `session/set_model` on the running agent. */
  async setModel(agent: AcpAgent, model: string): Promise<void> {
    if (!this.#capabilities?.setModel)
      throw new UnsupportedError(
        'setModel',
        'the ACP agent advertises no session models (session/set_model)',
      );
    await this.#request(agent, 'session/set_model', () =>
      agent.rpc.agent.request('session/set_model', { sessionId: this.#sessionId, modelId: model }),
    );
    this.#model = model;
  }

  /** The agent is gone (it exited, or it is being stopped): the next turn starts a fresh one. */
  forget(): void {
    this.#agent = undefined;
  }

  /** Stops `agent` (stdin EOF, grace, then the whole group). */
  async stopAgent(agent: AcpAgent): Promise<void> {
    await stopAgent(agent, this.#o.closeGraceMs);
    if (this.#agent === agent) this.#agent = undefined;
  }

  /** Ends waits in the start path at once; nothing starts any more. */
  markClosed(): void {
    this.#closed = true;
    this.#closeSignal.abort();
  }

  /** Stops the agent, also one still starting. */
  async stop(): Promise<void> {
    if (this.#agent) await this.stopAgent(this.#agent);
    await this.#starting?.catch(() => {});
    if (this.#agent) await this.stopAgent(this.#agent);
  }

  /** Spawns the agent, `initialize`, then `session/new` (or `session/load` to resume) and the model switch. */
  async #start(): Promise<ConnectionInfo> {
    this.#logger.info(`starting ACP agent ${this.#o.command}; initialize…`);
    const agent = spawnAgent(this.#o, this.#deps.binary, this.#deps.env, this.#deps.handlers);
    this.#agent = agent;
    this.#startingAgent = agent;
    try {
      const init = await this.#request(agent, 'initialize', () =>
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
        await this.setModel(agent, this.#o.model);
      return this.#deps.info();
    } catch (err) {
      await this.stopAgent(agent);
      throw err;
    } finally {
      this.#startingAgent = undefined;
    }
  }

  async #openSession(agent: AcpAgent, resume: string | undefined): Promise<void> {
    const mcpServers = acpMcpServers(this.#init, this.#deps.listener, this.#o.mcpServers, this.stderrTail);
    const cwd = this.#o.cwd;
    if (resume !== undefined) {
      if (this.#init?.agentCapabilities?.loadSession !== true)
        throw new UnsupportedError(
          'conversationId',
          'the ACP agent does not advertise loadSession, so a session cannot be resumed',
        );
      // Gemini CLI cannot load a session in the minute it started, and a failed try spoils it: wait first.
      const gemini = this.#o.preset === 'gemini-cli' || this.#init?.agentInfo?.name === 'gemini-cli';
      const minute = gemini ? await sessionStartMinute(resume, this.#deps.env.HOME) : undefined;
      const wait = minute === undefined ? 0 : msUntilMinuteTurned(minute, Date.now());
      if (wait > 0) {
        this.#logger.info(`session/load waits ${wait} ms for the minute the session started in to turn`);
        await waitOrAbort(wait, this.#closeSignal.signal);
        if (this.#closed) throw new ClosedError('closed while waiting to load the session');
      }
      const loaded = await this.#request(agent, 'session/load', () =>
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
      const session = await this.#request(agent, 'session/new', () =>
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

  /** A request bounded by the start timeout; one that times out while `agent` starts stops it first. */
  #request<T>(agent: AcpAgent, what: string, send: () => Promise<T>): Promise<T> {
    const limit = this.#o.startTimeoutMs ?? DEFAULT_ACP_START_TIMEOUT_MS;
    const stop = agent === this.#startingAgent ? () => this.stopAgent(agent) : undefined;
    return startRequest(agent, what, limit, send, stop);
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
