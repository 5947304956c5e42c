/**
 * One started Agent: what `start()` builds, in order, and what `close()` takes down. Loaded by `start()` (an
 * `import()`), so `import 'agy-sdk'` compiles none of it: telemetry, provider mode's gateway, the MCP checks,
 * the cassette recorder, the backend (through its factory), the conversation and its stages.
 *
 *   tracing → host → provider gateway → MCP checks → backend → conversation (stages) → backend start →
 *   sessionStart hooks → triggers
 */
import type { AgyConnection } from '../connection/agy/index.js';
import type { Connection } from '../connection/connection.js';
import type { ConnectionHost, HostNeeds } from '../connection/host.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from '../connection/tool-server/hook-timeout.js';
import { OWN_TOOL_SERVER, TOOL_SERVER_NAME } from '../connection/tool-server/server-name.js';
import { type Content, contentParts } from '../content/content.js';
import { Conversation } from '../conversation/conversation.js';
import { ClosedError, UnsupportedError } from '../errors.js';
import type { ProviderBridge } from '../gateway/provider-bridge.js';
import type { Hook } from '../hooks/kinds.js';
import type { AgentTracing } from '../telemetry/tracing.js';
import type { AgentParts } from './agent-parts.js';
import type { AgentConfig } from './config.js';
import type { McpServerMonitor } from './mcp-server-monitor.js';
import { createRecorder } from './recorder.js';
import type { AgentTriggers } from './triggers.js';
import { agentStages } from './turn-stages.js';

/** What a session is built from: the Agent's parts, and the few things only the Agent knows. */
export interface SessionParts extends AgentParts {
  /** The Agent's config (a copy). */
  config: AgentConfig;
  /** The Agent's triggers, started last. */
  triggers: AgentTriggers;
  /** True once `close()` was called: the start stops at its next step, closing what it built. */
  closing: () => boolean;
}

/** `gen_ai.provider.name` of an upstream kind. */
function providerName(kind: NonNullable<AgentConfig['provider']>['kind']): string {
  return kind === 'anthropic' ? 'anthropic' : 'openai';
}

/** The running parts of one started Agent; each is set as soon as it exists, so `close()` sees it. */
export class AgentSession {
  readonly #p: SessionParts;
  /** Spans and metrics, when `@opentelemetry/api` and a provider are there; undefined means off (no calls). */
  tracing: AgentTracing | undefined;
  /** Provider mode's in-process gateway; closed after the connection. */
  provider: ProviderBridge | undefined;
  /** The user's MCP servers' start checks and states; none without servers or on a custom connection. */
  mcp: McpServerMonitor | undefined;
  /** What the backend was told to ask for at start (agy installs its hook relays from it). */
  startNeeds: HostNeeds | undefined;
  /** The backend. */
  connection: Connection | undefined;
  /** The agy backend, when this agent built one (not for ACP or a custom `connection`). */
  agy: AgyConnection | undefined;
  /** The conversation over the backend, with the agent's stages. */
  conversation: Conversation<Content> | undefined;
  /** The cassette this session is recorded into. */
  cassetteFile: string | undefined;

  /** @param parts What the session is built from; nothing starts until `open()`. */
  constructor(parts: SessionParts) {
    this.#p = parts;
  }

  /** Throws `ClosedError` when close() was called while the start was on its way. */
  #stillStarting(): void {
    if (this.#p.closing()) throw new ClosedError('the agent was closed while starting');
  }

  /** Builds and starts everything, in the order of the map above. */
  async open(): Promise<void> {
    const p = this.#p;
    const tracing = await this.#startTracing();
    // The control plane is the host the backend calls back through (it implements `ConnectionHost`).
    const plain: ConnectionHost = p.control;
    const host = tracing ? tracing.wrapHost(plain) : plain;
    const provider = p.config.provider ? await this.#startProvider(p.config.provider) : undefined;
    this.mcp = await this.#mcpMonitor(provider);
    // The checks run beside the backend's own start; close() stops them.
    this.mcp?.start();
    this.startNeeds = p.control.needs();
    const connection = await this.#connect(host, provider);
    if (p.closing()) {
      // close() ran while the session was being built: it could not see this connection, so close it here.
      await connection.close();
      this.#stillStarting();
    }
    this.connection = connection;
    p.usage.attach(connection);
    this.conversation = Conversation.create<Content>({
      connection,
      historyLimit: p.config.historyLimit,
      stages: agentStages({
        ...p,
        connection,
        attachments: p.groups.attachments,
        reminder: p.config.reminder,
        tracing,
        provider,
        mcp: this.mcp,
      }),
      usage: p.usage,
      parse: contentParts,
      observer: tracing,
    });
    // A required server's failed check fails the start without waiting for the backend.
    await Promise.all([connection.start(), this.mcp?.requireReady()]);
    this.#stillStarting();
    tracing?.sessionStarted(connection.conversationId);
    await p.control.sessionStart(connection.conversationId);
    this.#stillStarting();
    await p.triggers.start(p.config.triggers, () => this.#stillStarting());
  }

  /**
   * On agy, a tool hook registered after start needs the hook relay agy was started with; one without it is
   * refused (`UnsupportedError`) rather than never called.
   */
  checkLateHook(hook: Hook): void {
    const needs = this.startNeeds;
    if (!needs || !this.agy) return;
    const missing =
      (hook.kind === 'preToolCall' && !needs.toolGate) ||
      ((hook.kind === 'postToolCall' || hook.kind === 'onToolError') && !needs.toolResults) ||
      (hook.kind === 'stop' && !needs.stop);
    if (missing)
      throw new UnsupportedError(
        'registerHook',
        `a ${hook.kind} hook registered after start() is not reached on agy: its hook relay was not installed at start (register it before start(), or in config.hooks)`,
      );
  }

  /** Closes the backend (a start in flight then fails fast at its next step). */
  async closeBackend(): Promise<void> {
    await this.#p.triggers.stop();
    await this.connection?.close();
  }

  /** Closes what is left once no start is in flight: the backend, the MCP checks, then the gateway. */
  async close(): Promise<void> {
    await this.closeBackend();
    await this.mcp?.close();
    // After agy is gone: nothing calls the gateway any more, and nothing is left listening.
    await this.provider?.close();
  }

  async #startTracing(): Promise<AgentTracing | undefined> {
    const { config, usage, logger } = this.#p;
    const { createTracing } = await import('../telemetry/create-tracing.js');
    this.tracing = await createTracing(config.telemetry, {
      ownToolServers: [OWN_TOOL_SERVER, TOOL_SERVER_NAME],
      providerName: config.provider ? providerName(config.provider.kind) : 'gcp.gemini',
      model: () => usage.model,
      agentName: 'agy',
      processesStarted: () => this.agy?.stats.processesStarted,
      priceUpstream: (model, u) => usage.costOf(model, u),
      logger,
    });
    this.tracing?.sessionStarting();
    return this.tracing;
  }

  /** Starts provider mode's gateway; close() stops it, also when the start fails later. */
  async #startProvider(provider: NonNullable<AgentConfig['provider']>): Promise<ProviderBridge> {
    const { startProviderBridge } = await import('../gateway/provider-bridge.js');
    const bridge = await startProviderBridge(provider, this.#p.logger, this.tracing?.upstreamObserver());
    this.provider = bridge;
    if (this.#p.closing()) {
      await bridge.close();
      this.#stillStarting();
    }
    return bridge;
  }

  /**
   * The start checks of the user's MCP servers, on the agy and ACP backends (a custom connection does not use
   * `mcpServers`). They see the environment and working directory the backend gives its servers.
   */
  async #mcpMonitor(provider: ProviderBridge | undefined): Promise<McpServerMonitor | undefined> {
    const { config, groups } = this.#p;
    const servers = config.mcpServers ?? {};
    if (config.connection || Object.keys(servers).length === 0) return undefined;
    const [{ McpServerMonitor }, { DEFAULT_MCP_CHECK_TIMEOUT_MS }] = await Promise.all([
      import('./mcp-server-monitor.js'),
      import('../connection/mcp-check/check-server.js'),
    ]);
    const backendEnv = config.backend?.kind === 'acp' ? config.backend.env : undefined;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({
      ...process.env,
      ...config.env,
      ...groups.additions.env,
      ...backendEnv,
      ...provider?.env,
    }))
      if (v !== undefined) env[k] = v;
    return new McpServerMonitor(servers, {
      env,
      cwd: this.#cwd(),
      timeoutMs: config.startTimeoutMs ?? DEFAULT_MCP_CHECK_TIMEOUT_MS,
      logger: this.#p.logger,
    });
  }

  #cwd(): string {
    return this.#p.config.cwd ?? this.#p.workspaces[0] ?? process.cwd();
  }

  /** The backend: the config's own `connection`, else ACP's or agy's factory, each loaded now. */
  async #connect(host: ConnectionHost, provider: ProviderBridge | undefined): Promise<Connection> {
    const p = this.#p;
    const { config, groups } = p;
    if (config.connection) return config.connection(host);
    const tools = this.tracing && config.tools ? this.tracing.wrapTools(config.tools) : config.tools;
    const common = { cwd: this.#cwd(), workspaces: p.workspaces, tools, logger: p.logger };
    const backend = config.backend;
    if (backend?.kind === 'acp') {
      const { loadAcpBackend } = await import('./load-acp.js');
      const { createAcpConnection } = await loadAcpBackend();
      const env = { ...config.env, ...groups.additions.env, ...backend.env, ...provider?.env };
      const tap = await this.#recorder('acp', env, provider);
      return createAcpConnection(
        {
          // The validated group, forwarded whole; the rest is what this run derives.
          ...groups.acp,
          ...common,
          backend,
          env,
          attachments: groups.attachments,
          permissionTimeoutMs: p.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
          tap,
        },
        host,
      );
    }
    const env = { ...config.env, ...groups.additions.env, ...provider?.env };
    const [{ createAgyConnection }, tap] = await Promise.all([
      import('../connection/agy/index.js'),
      this.#recorder('agy', env, provider),
    ]);
    this.agy = await createAgyConnection(
      {
        // The validated groups, forwarded whole; provider mode and the ask-user time adjust the session's.
        session: { ...groups.session, hookTimeoutMs: p.hookTimeoutMs },
        launch: groups.launch,
        watchdog: groups.watchdog,
        ...common,
        env,
        jsonSchema: p.schema?.jsonSchema,
        hooks: config.agyHooks ?? [],
        dangerouslySkipPermissions: config.dangerouslySkipPermissions,
        tap,
        provider,
      },
      host,
    );
    return this.agy;
  }

  async #recorder(backend: 'agy' | 'acp', env: Record<string, string | undefined>, provider: unknown) {
    const { config, workspaces, logger } = this.#p;
    const recorder = await createRecorder({ config, workspaces, backend, env, provider: !!provider, logger });
    this.cassetteFile = recorder?.file;
    return recorder;
  }
}
