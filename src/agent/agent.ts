/**
 * Layer 1: the Agent. Owns configuration and lifecycle: the session directory, the connection (an agy
 * process), and the conversation. `await using agent = new Agent(config)` closes everything on scope exit.
 */

// The backends, the provider bridge, telemetry, the cassette recorder and the MCP checks are loaded when a
// config uses them (`import()` in the start path), never with the package: `import 'agy-sdk'` stays cheap.
import type { AcpBackendConfig, AcpConnection } from '../connection/acp/index.js';
import { loadAcpBackend } from '../connection/acp/load.js';
import type { AgyConnection, ConnectionStats, SessionRuntime } from '../connection/agy/index.js';
import type { Connection, ConnectionInfo } from '../connection/connection.js';
import type { ConnectionHost, HostNeeds } from '../connection/host.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from '../connection/tool-server/hook-timeout.js';
import { OWN_TOOL_SERVER, TOOL_SERVER_NAME } from '../connection/tool-server/server-name.js';
import { containedTap, type WireTap } from '../connection/wire-tap.js';
import type { AttachmentFiles } from '../content/attachment-files.js';
import { type Content, type ContentPart, contentParts } from '../content/content.js';
import { isSlashCommand, type SlashCommand } from '../content/slash-command.js';
import { BudgetTracker } from '../conversation/budget.js';
import type { ChatResponse } from '../conversation/chat-response.js';
import { Conversation, type ConversationPipeline } from '../conversation/conversation.js';
import { composeFinish, composePrepare, composeSteps } from '../conversation/pipeline.js';
import type { TurnInput } from '../conversation/turn-input.js';
import { ClosedError, ConfigError, ContentError, UnsupportedError } from '../errors.js';
import type { ProviderBridge } from '../gateway/provider-bridge.js';
import type { Hook } from '../hooks/kinds.js';
import { checkDuration } from '../internal/duration.js';
import { checkedLogger, type Logger } from '../logger.js';
import type { AgentCapabilities } from '../model/capabilities.js';
import type { McpServerState } from '../model/mcp-server-state.js';
import { costAt, priceOf, withCost } from '../model/pricing.js';
import type { Usage } from '../model/step.js';
import type { TurnResult } from '../model/turn-result.js';
import { DEFAULT_ASK_USER_TIMEOUT_MS } from '../policy/ask-user/ask.js';
import { flattenPolicies } from '../policy/evaluate.js';
import type { AgentTracing } from '../telemetry/tracing.js';
import type { CassetteRecorder } from '../testing/cassette/recorder.js';
import { servedToolNames } from '../tools/names.js';
import type { ToolDefinition } from '../tools/tool.js';
import { TriggerRunner } from '../triggers/runner.js';
import type { Trigger } from '../triggers/types.js';
import type { AgentConfig } from './config.js';
import { ControlPlane } from './control-plane.js';
import type { McpServerMonitor } from './mcp-server-monitor.js';
import { type InferResponseSchema, ResponseSchema, type ResponseSchemaInput } from './response-schema.js';
import { deliverSteer, type SteerWhen } from './steering.js';
import {
  budgetStartStage,
  budgetStepStage,
  controlStepStage,
  finishStage,
  materializeStage,
  mcpNoticeStage,
  pendingSteersStage,
  preTurnStage,
  providerUsageStage,
  providerUsageStartStage,
  reminderStage,
  transportWarningStage,
} from './turn-stages.js';
import { type ValidatedConfig, validateConfig } from './validate-config.js';

/**
 * A turn's structured output type: its own `responseSchema`'s (`T`), else the agent's (`S`); `unknown` for a
 * JSON Schema or none.
 */
export type TurnOutput<S, T> = [T] extends [undefined] ? InferResponseSchema<S> : InferResponseSchema<T>;

/** Options of one `chat` turn. */
export interface ChatOptions {
  /**
   * Aborting it cancels this turn: a queued turn never runs, a running one is interrupted. Either way it
   * ends `canceled` and the session stays usable. An already aborted signal cancels the turn at once.
   */
  signal?: AbortSignal | undefined;
  /** A time limit for this turn only, in ms (overrides `AgentConfig.turnTimeoutMs`); past it the turn ends `timeout`. */
  turnTimeoutMs?: number | undefined;
  /**
   * A zod schema or JSON Schema for this turn's structured output only (overrides `AgentConfig.responseSchema`;
   * later turns go back to it). On agy this turn runs in a process relaunched with `--json-schema` on the same
   * conversation, and the next turn without one relaunches again.
   */
  responseSchema?: ResponseSchemaInput | undefined;
}

/** One turn's options, checked. */
export interface CheckedChatOptions {
  signal: AbortSignal | undefined;
  turnTimeoutMs: number | undefined;
  schema: ResponseSchema | undefined;
}

/** Checks one turn's options (throws `ConfigError` naming the field); the pool checks them before it picks an agent. */
export function checkChatOptions(options: ChatOptions): CheckedChatOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'must be an object');
  const { signal, turnTimeoutMs, responseSchema } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new ConfigError('options.signal', 'must be an AbortSignal');
  checkDuration('options.turnTimeoutMs', turnTimeoutMs, { integer: true });
  let schema: ResponseSchema | undefined;
  try {
    schema = responseSchema === undefined ? undefined : ResponseSchema.from(responseSchema);
  } catch (err) {
    if (err instanceof ConfigError)
      throw new ConfigError(`options.${err.field}`, err.message.slice(err.field.length + 2));
    throw err;
  }
  return { signal, turnTimeoutMs, schema };
}

/** Whether two schemas send agy the same JSON Schema (then no relaunch is needed). */
function sameSchema(a: ResponseSchema, b: ResponseSchema | undefined): boolean {
  return b !== undefined && JSON.stringify(a.jsonSchema) === JSON.stringify(b.jsonSchema);
}

/** The slash command a turn runs instead of a model turn: a prompt of that one part. */
function commandOf(parts: readonly ContentPart[]): SlashCommand | undefined {
  const [only] = parts;
  return parts.length === 1 && isSlashCommand(only) ? only : undefined;
}

/** The backend's attachments directory; a backend without one cannot take media parts. */
function attachmentsDir(connection: Connection): Promise<string> {
  if (!connection.attachmentsDir)
    return Promise.reject(
      new ContentError('this connection cannot take media parts (no attachments directory)'),
    );
  return connection.attachmentsDir();
}

type AgentState = 'new' | 'starting' | 'started' | 'closing' | 'closed';

/** `gen_ai.provider.name` of an upstream kind. */
function providerName(kind: NonNullable<AgentConfig['provider']>['kind']): string {
  return kind === 'anthropic' ? 'anthropic' : 'openai';
}

/**
 * An agent on Google Antigravity: owns the configuration, the backend (agy, unless `connection` says
 * otherwise) and the conversation. Nothing starts until `start()` or the first `chat()`;
 * `await using agent = new Agent(config)` closes everything on scope exit.
 */
export class Agent<S extends ResponseSchemaInput | undefined = undefined> implements AsyncDisposable {
  readonly #config: AgentConfig;
  readonly #workspaces: string[];
  /** The validated groups: agy's (session, launch, watchdog) and ACP's, each forwarded whole to its backend. */
  readonly #groups: Pick<ValidatedConfig, 'session' | 'launch' | 'watchdog' | 'acp' | 'additions'>;
  /** The attachment files written for this agent's turns, which the workspace confinement admits to reads. */
  readonly #attachments: AttachmentFiles;
  readonly #schema: ResponseSchema | undefined;
  #state: AgentState = 'new';
  #starting: Promise<void> | undefined;
  /** The bare start run (without the close-on-failure wrapper), which close() waits for. */
  #startRun: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  readonly #logger: Logger;
  readonly #control: ControlPlane;
  readonly #hookTimeoutMs: number | undefined;
  readonly #budget: BudgetTracker | undefined;
  readonly #toolNames: ReadonlyMap<string, string>;
  #triggers: TriggerRunner | undefined;
  /** Triggers given to `registerTrigger()` before `start()` (each gets its runner when the agent starts). */
  readonly #pendingTriggers: Array<{ trigger: Trigger; runner?: TriggerRunner }> = [];
  /** Triggers registered after `start()`: one runner each, stopped by their remover or by close(). */
  readonly #lateTriggers = new Map<TriggerRunner, Promise<void>>();
  /** What the backend was told to ask for at start (agy installs its hook relays from it). */
  #startNeeds: HostNeeds | undefined;
  #connection: Connection | undefined;
  /**
   * The agy backend, when this agent built one (not for ACP or a custom `connection`): its session runtime and
   * transport counters are agy's own, and its hook relays are fixed at start.
   */
  #agy: AgyConnection | undefined;
  /** Provider mode's in-process gateway; closed after the connection. */
  #provider: ProviderBridge | undefined;
  #conversation: Conversation<Content> | undefined;
  /** Spans and metrics, when `@opentelemetry/api` and a provider are there; undefined means off (no calls). */
  #tracing: AgentTracing | undefined;
  /** Models this agent's turns were priced at (a cumulative total over several has no single price). */
  readonly #pricedModels = new Set<string>();
  #cassetteFile: string | undefined;
  /** The user's MCP servers' start checks and states; none without servers or on a custom connection. */
  #mcp: McpServerMonitor | undefined;

  /**
   * Validates the config (throws `ConfigError` naming the field); nothing starts until `start()`. A zod
   * `responseSchema` types every turn's `structuredOutput()` (`Agent<typeof Schema>`).
   *
   * @typeParam S - The agent's `responseSchema`, inferred from the config.
   */
  constructor(config: AgentConfig & { responseSchema?: S } = {}) {
    const validated = validateConfig(config);
    const { workspaces, policies, hooks } = validated;
    this.#groups = validated;
    this.#attachments = validated.attachments;
    this.#config = { ...config };
    this.#workspaces = workspaces;
    this.#schema =
      config.responseSchema !== undefined ? ResponseSchema.from(config.responseSchema) : undefined;
    this.#logger = checkedLogger(config.logger);
    this.#control = new ControlPlane({
      hooks,
      policies,
      mcpServers: config.mcpServers ?? {},
      askUserTimeoutMs: config.askUserTimeoutMs,
      steering: config.steering ?? true,
      maxToolCalls:
        config.budget?.maxToolCalls !== undefined
          ? { limit: config.budget.maxToolCalls, scope: config.budget.scope ?? 'turn' }
          : undefined,
      toolContext: {
        conversationId: () => this.conversationId,
        isIdle: () => this.#conversation?.isIdle ?? true,
        send: async (message) => {
          this.#requireConversation().chat(message);
        },
      },
      logger: this.#logger,
    });
    // A human's answer must arrive before the relay's fail-closed fallback: give hooks the ask-user time.
    const asksUser = flattenPolicies(policies).some((p) => p.decision === 'ask_user');
    this.#hookTimeoutMs = asksUser
      ? Math.max(
          config.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
          (config.askUserTimeoutMs ?? DEFAULT_ASK_USER_TIMEOUT_MS) + 5_000,
        )
      : config.hookTimeoutMs;
    if (config.budget?.scope === 'lifetime' && config.conversationId !== undefined)
      throw new UnsupportedError(
        'budget.scope',
        "'lifetime' counts from the conversation's first step, and the SDK sees no spend from before this agent resumed it (agy reports none); use 'conversation' (from now on)",
      );
    if (config.budget?.maxCostUsd !== undefined) {
      const model = config.provider?.model ?? config.model;
      if (!priceOf(model, config.pricing))
        throw new ConfigError(
          'budget.maxCostUsd',
          `no price is known for model ${model ?? "(agy's default; set `model`)"}: add it to \`pricing\` (or a '*' entry)`,
        );
    }
    this.#budget = config.budget
      ? new BudgetTracker(config.budget, (usage) => costAt(this.#price(), usage))
      : undefined;
    this.#toolNames = servedToolNames(
      TOOL_SERVER_NAME,
      (config.tools ?? []).map((t) => t.name),
    );
  }

  /** Starts agy and waits for its `init`. Idempotent; concurrent calls share one start. */
  start(): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') return Promise.reject(new ClosedError());
    if (!this.#starting) {
      this.#startRun = this.#start();
      this.#starting = this.#startRun.catch(async (err) => {
        await this.close();
        throw err;
      });
    }
    return this.#starting;
  }

  /** Throws `ClosedError` when close() was called while start() was on its way. */
  #checkNotClosing(): void {
    if (this.#state === 'closing' || this.#state === 'closed')
      throw new ClosedError('the agent was closed while starting');
  }

  async #start(): Promise<void> {
    this.#state = 'starting';
    const config = this.#config;
    const { createTracing } = await import('../telemetry/create-tracing.js');
    const tracing = await createTracing(config.telemetry, {
      ownToolServers: [OWN_TOOL_SERVER, TOOL_SERVER_NAME],
      providerName: config.provider ? providerName(config.provider.kind) : 'gcp.gemini',
      model: () => this.#pricedModel(),
      agentName: 'agy',
      processesStarted: () => this.stats?.processesStarted,
      priceUpstream: (model, usage) => costAt(priceOf(model, config.pricing), usage),
      logger: this.#logger,
    });
    this.#tracing = tracing;
    tracing?.sessionStarting();
    const host: ConnectionHost = tracing ? tracing.wrapHost(this.#control) : this.#control;
    const tools = tracing && config.tools ? tracing.wrapTools(config.tools) : config.tools;
    const provider = config.provider ? await this.#startProvider(config.provider) : undefined;
    this.#mcp = await this.#mcpMonitor(provider);
    // The checks run beside the backend's own start; close() stops them.
    this.#mcp?.start();
    this.#startNeeds = this.#control.needs();
    const backend = config.backend;
    let agy: AgyConnection | undefined;
    let connection: Connection;
    if (config.connection) connection = await config.connection(host);
    else if (backend?.kind === 'acp') connection = await this.#createAcp(backend, host, provider, tools);
    else {
      agy = await this.#createAgy(host, provider, tools);
      connection = agy;
    }
    if (this.#state !== 'starting') {
      // close() ran while the session was being built: it could not see this connection, so close it here.
      await connection.close();
      this.#checkNotClosing();
    }
    this.#connection = connection;
    this.#agy = agy;
    this.#conversation = Conversation.create<Content>({
      connection,
      historyLimit: config.historyLimit,
      pipeline: this.#pipeline(connection),
      parse: contentParts,
      observer: tracing,
    });
    // A required server's failed check fails the start without waiting for the backend.
    await Promise.all([connection.start(), this.#mcp?.requireReady()]);
    this.#checkNotClosing();
    tracing?.sessionStarted(connection.conversationId);
    await this.#control.sessionStart(connection.conversationId);
    this.#checkNotClosing();
    if (config.triggers?.length) {
      this.#triggers = this.#triggerRunner(config.triggers);
      await this.#triggers.start();
    }
    this.#checkNotClosing();
    // Taken with no await before the state changes, so none registered meanwhile is missed.
    for (const entry of this.#pendingTriggers.splice(0)) {
      entry.runner = this.#startLate(entry.trigger);
    }
    if (this.#state === 'starting') this.#state = 'started';
  }

  /**
   * The start checks of the user's MCP servers, on the agy and ACP backends (a custom connection does not use
   * `mcpServers`). They see the environment and working directory the backend gives its servers.
   */
  async #mcpMonitor(provider: ProviderBridge | undefined): Promise<McpServerMonitor | undefined> {
    const config = this.#config;
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
      ...this.#groups.additions.env,
      ...backendEnv,
      ...provider?.env,
    }))
      if (v !== undefined) env[k] = v;
    return new McpServerMonitor(servers, {
      env,
      cwd: config.cwd ?? this.#workspaces[0] ?? process.cwd(),
      timeoutMs: config.startTimeoutMs ?? DEFAULT_MCP_CHECK_TIMEOUT_MS,
      logger: this.#logger,
    });
  }

  /**
   * The cassette recorder, when `record` or `AGY_SDK_RECORD` asks for one (loaded then). It is told every
   * credential the session holds: the environment the backend gives the agent, the MCP servers' `env` and
   * `headers`, the gateway's upstream key and headers.
   */
  async #recorder(
    backend: 'agy' | 'acp',
    env: Record<string, string | undefined>,
    provider: ProviderBridge | undefined,
  ): Promise<CassetteRecorder | undefined> {
    const config = this.#config;
    const envDir = process.env.AGY_SDK_RECORD;
    const record = config.record ?? (envDir ? { dir: envDir } : undefined);
    if (!record) return undefined;
    const upstream = provider ? config.provider : undefined;
    const { CassetteRecorder } = await import('../testing/cassette/recorder.js');
    const recorder = new CassetteRecorder(
      record,
      {
        workspaces: this.#workspaces,
        cwd: config.cwd,
        dataDir: config.dataDir,
        env: { ...process.env, ...env },
        mcpServers: config.mcpServers,
        credentials: upstream && {
          'provider-api-key': upstream.apiKey,
          ...Object.fromEntries(Object.entries(upstream.headers ?? {}).map(([k, v]) => [`provider-${k}`, v])),
        },
        backend,
      },
      (error) => this.#logger.error('writing the cassette failed', error),
      (warning) => this.#logger.warn(warning),
    );
    this.#cassetteFile = recorder.file;
    return recorder;
  }

  /** The recorder for the ACP backend, contained like the agy backend's (a throwing tap is only logged). */
  async #acpTap(
    env: Record<string, string | undefined>,
    provider: ProviderBridge | undefined,
  ): Promise<WireTap | undefined> {
    const recorder = await this.#recorder('acp', env, provider);
    return recorder && containedTap(recorder, (what, error) => this.#logger.error(`${what} threw`, error));
  }

  /**
   * The user's MCP servers (`AgentConfig.mcpServers`) by name, each with its status (`checking`, `ready`,
   * `failed`, `disabled`), why it failed, the tail of its stderr and its tools: the SDK's own start check of
   * each server, run at `start()` (neither backend reports its MCP clients; see {@link McpServerState}). Empty
   * before `start()`, without servers, and on a custom `connection`. A snapshot: read it again for news.
   */
  get mcpServers(): ReadonlyMap<string, McpServerState> {
    return this.#mcp?.states ?? new Map();
  }

  /**
   * Starts the agent if needed and resolves once every MCP server's start check has finished, with
   * {@link mcpServers} then: for a program that wants to know before its first prompt (the first turn's
   * `notices` tell it otherwise).
   */
  async whenMcpServersChecked(): Promise<ReadonlyMap<string, McpServerState>> {
    await this.start();
    return (await this.#mcp?.settled()) ?? new Map();
  }

  /** The cassette this session is recorded into (`record`, `AGY_SDK_RECORD`), once started. */
  get cassetteFile(): string | undefined {
    return this.#cassetteFile;
  }

  #triggerRunner(triggers: Trigger[]): TriggerRunner {
    return new TriggerRunner(triggers, {
      send: async (text) => {
        this.#requireConversation().chat(text);
      },
      logger: this.#logger,
    });
  }

  /**
   * Adds a hook (Python `register_hook`). Before `start()` it joins `config.hooks`; after it, it applies from
   * the next call it handles. Returns a function that removes it. On agy, a tool hook registered after
   * `start()` needs the hook relay agy was started with: a `preToolCall` hook needs a policy, a budget or a
   * `preToolCall` hook at start, and `postToolCall`/`onToolError`/`stop` hooks one of their kind; otherwise it
   * is refused (`UnsupportedError`) rather than never called.
   */
  registerHook(hook: Hook): () => void {
    if (this.#state === 'closing' || this.#state === 'closed') throw new ClosedError();
    const needs = this.#startNeeds;
    if (needs && this.#agy) {
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
    this.#control.runner.register(hook);
    return () => {
      this.#control.runner.unregister(hook);
    };
  }

  /**
   * Adds a trigger (Python `register_trigger`). Before `start()` it joins `config.triggers`; after it, it starts
   * at once. Returns a function that stops and removes it (resolving once it stopped).
   */
  registerTrigger(trigger: Trigger): () => Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') throw new ClosedError();
    // Validated now, as config.triggers are at construction.
    const probe = this.#triggerRunner([trigger]);
    if (this.#state !== 'started') {
      const entry: { trigger: Trigger; runner?: TriggerRunner } = { trigger };
      this.#pendingTriggers.push(entry);
      return async () => {
        const index = this.#pendingTriggers.indexOf(entry);
        if (index !== -1) this.#pendingTriggers.splice(index, 1);
        if (entry.runner) await this.#stopLate(entry.runner);
      };
    }
    const runner = this.#startLate(trigger, probe);
    return () => this.#stopLate(runner);
  }

  /** Starts one registered trigger in its own runner (start failures are the runner's to log). */
  #startLate(trigger: Trigger, runner = this.#triggerRunner([trigger])): TriggerRunner {
    const started = runner.start().catch((err: unknown) => {
      this.#logger.error(`a registered trigger could not start: ${(err as Error)?.message ?? String(err)}`);
    });
    this.#lateTriggers.set(runner, started);
    return runner;
  }

  /** Stops one registered trigger, after its start (a stop before it would find nothing to stop). */
  async #stopLate(runner: TriggerRunner): Promise<void> {
    await this.#lateTriggers.get(runner);
    await runner.stop();
    this.#lateTriggers.delete(runner);
  }

  /** The agy backend, from the validated groups; provider mode and the ask-user time adjust the session's. */
  async #createAgy(
    host: ConnectionHost,
    provider: ProviderBridge | undefined,
    tools: AgentConfig['tools'],
  ): Promise<AgyConnection> {
    const config = this.#config;
    const env = { ...config.env, ...this.#groups.additions.env, ...provider?.env };
    const [{ AgyConnection }, tap] = await Promise.all([
      import('../connection/agy/index.js'),
      this.#recorder('agy', env, provider),
    ]);
    return AgyConnection.create(
      {
        // The validated groups, forwarded whole; provider mode and the ask-user time adjust the session's.
        session: {
          ...this.#groups.session,
          hookTimeoutMs: this.#hookTimeoutMs,
          ...(provider && {
            // agy reads modelProvider from its (shadow) settings and talks to the gateway with its token.
            isolation: 'shadow-home' as const,
            settingsOverrides: { ...this.#groups.session.settingsOverrides, ...provider.settingsOverrides },
          }),
        },
        launch: this.#groups.launch,
        watchdog: this.#groups.watchdog,
        env,
        cwd: config.cwd ?? this.#workspaces[0] ?? process.cwd(),
        workspaces: this.#workspaces,
        jsonSchema: this.#schema?.jsonSchema,
        tools,
        hooks: config.agyHooks ?? [],
        dangerouslySkipPermissions: config.dangerouslySkipPermissions,
        logger: this.#logger,
        tap,
      },
      host,
    );
  }

  /**
   * The ACP backend. Provider mode points the agent at the gateway exactly as for agy: `GOOGLE_GEMINI_BASE_URL`
   * and the gateway's per-run token as `GEMINI_API_KEY`, under a shadow HOME.
   */
  async #createAcp(
    backend: AcpBackendConfig,
    host: ConnectionHost,
    provider: ProviderBridge | undefined,
    tools: AgentConfig['tools'],
  ): Promise<AcpConnection> {
    const config = this.#config;
    const { AcpConnection, acpCommandLine } = await loadAcpBackend();
    const { command, args } = acpCommandLine(backend);
    const env = { ...config.env, ...this.#groups.additions.env, ...backend.env, ...provider?.env };
    const tap = await this.#acpTap(env, provider);
    return AcpConnection.create(
      {
        // The validated group, forwarded whole; the rest is what this run derives.
        ...this.#groups.acp,
        command,
        args,
        preset: backend.preset,
        env,
        cwd: config.cwd ?? this.#workspaces[0] ?? process.cwd(),
        workspaces: this.#workspaces,
        attachments: this.#attachments,
        tools,
        permissionTimeoutMs: this.#hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
        logger: this.#logger,
        tap,
      },
      host,
    );
  }

  /** Starts provider mode's gateway; close() stops it, also when start() fails later. */
  async #startProvider(provider: NonNullable<AgentConfig['provider']>): Promise<ProviderBridge> {
    const { startProviderBridge } = await import('../gateway/provider-bridge.js');
    const bridge = await startProviderBridge(provider, this.#logger, this.#tracing?.upstreamObserver());
    this.#provider = bridge;
    if (this.#state !== 'starting') {
      await bridge.close();
      this.#checkNotClosing();
    }
    return bridge;
  }

  /** The turn pipeline: the named stages of `turn-stages.ts`, in order. */
  #pipeline(connection: Connection): ConversationPipeline {
    const control = this.#control;
    const budget = this.#budget;
    const reminder = this.#config.reminder;
    const provider = this.#provider;
    const tracing = this.#tracing;
    const prepare = composePrepare<ContentPart>([
      materializeStage(() => attachmentsDir(connection), this.#attachments),
      pendingSteersStage(() => control.steering.take()),
      preTurnStage(
        tracing
          ? (text, parts) => tracing.hook('preTurn', () => control.beginTurn(text, parts))
          : (text, parts) => control.beginTurn(text, parts),
      ),
      ...(budget ? [budgetStartStage(budget)] : []),
      ...(reminder ? [reminderStage(reminder)] : []),
      ...(provider ? [providerUsageStartStage(provider)] : []),
    ]);
    return {
      prepare: async ({ parts, schema: own }) => {
        // A slash command is not a model turn: no prepare stages, agy answers it in a print-mode run.
        const command = commandOf(parts);
        if (command) return { text: [], command: { name: command.name, args: command.args } };
        const draft = await prepare({ parts, text: [] });
        // The agent's own schema went in at launch; only a different one travels with the turn.
        const media = draft.media?.length ? { media: draft.media } : {};
        return own && !sameSchema(own, this.#schema)
          ? { text: draft.text, ...media, jsonSchema: own.jsonSchema }
          : { text: draft.text, ...media };
      },
      onStep: composeSteps([
        controlStepStage((step) => control.onStep(step)),
        transportWarningStage(this.#logger),
        ...(budget ? [budgetStepStage(budget)] : []),
      ]),
      finalize: composeFinish([
        ...(this.#mcp ? [mcpNoticeStage(() => this.#mcp?.takeNotices() ?? [])] : []),
        finishStage('structured-output', (result, input) => this.#finalize(result, input)),
        finishStage(
          'control-plane',
          tracing
            ? (result) => tracing.hook('postTurn', () => control.endTurn(result))
            : (result) => control.endTurn(result),
        ),
        ...(provider ? [providerUsageStage(provider)] : []),
        finishStage('cost', (result) => this.#priceResult(result)),
      ]),
    };
  }

  /** The model usage is priced at: the provider's (what is billed) in provider mode, else the backend's. */
  #pricedModel(): string | undefined {
    return this.#config.provider?.model ?? this.#connection?.info.model ?? this.#config.model;
  }

  #price(): ReturnType<typeof priceOf> {
    return priceOf(this.#pricedModel(), this.#config.pricing);
  }

  /** Every usage of the result gets its cost (`null` when unknown), and the result the model it was priced at. */
  #priceResult(result: TurnResult): TurnResult {
    const model = this.#pricedModel();
    const price = this.#price();
    const priced = (usage: Usage): Usage => withCost(usage, costAt(price, usage));
    const out: TurnResult = { ...result };
    if (model !== undefined) {
      out.model = model;
      this.#pricedModels.add(model);
    }
    if (result.usage) out.usage = priced(result.usage);
    // Subagents run on the parent's model unless told otherwise; agy does not say which they used.
    if (result.subagentUsage)
      out.subagentUsage = Object.fromEntries(
        Object.entries(result.subagentUsage).map(([id, u]) => [id, priced(u)]),
      );
    // agy's cumulative total spans every process of the conversation: one price only if one model ran.
    if (result.totalUsage)
      out.totalUsage = withCost(
        result.totalUsage,
        this.#pricedModels.size <= 1 ? costAt(price, result.totalUsage) : null,
      );
    if (result.providerUsage) {
      const [only, ...more] = result.providerUsage.models;
      const cost =
        only !== undefined && more.length === 0
          ? costAt(priceOf(only, this.#config.pricing), result.providerUsage)
          : null;
      out.providerUsage = {
        ...result.providerUsage,
        cacheWriteTokens: result.providerUsage.cacheWriteTokens ?? 0,
        costUsd: cost,
      };
    }
    return out;
  }

  /** Validates the turn's structured output against its schema: its own, else the agent's (none for a command). */
  #finalize(result: TurnResult, input: TurnInput): TurnResult {
    // The connection hands over agy's structured output unvalidated; only a validated value reaches the user.
    const schema = commandOf(input.parts) ? undefined : (input.schema ?? this.#schema);
    if (!schema || result.status !== 'success')
      return result.structuredOutput === undefined ? result : { ...result, structuredOutput: undefined };
    const checked = schema.check(result.structuredOutput);
    if (checked.ok) return { ...result, structuredOutput: checked.value };
    return {
      ...result,
      status: 'error',
      structuredOutput: undefined,
      errorMessage: checked.error.message,
      error: checked.error,
    };
  }

  /**
   * Sends a prompt and returns its streamed response. Starts the agent if needed. A `chat` sent while a turn
   * runs is queued and runs next, in call order. Rejects with `ContentError` for an empty or malformed prompt.
   * With a zod `responseSchema` (the turn's, else the agent's), the response's `structuredOutput()` is typed
   * by it.
   *
   * @typeParam T - The turn's `responseSchema`, inferred from the options.
   */
  async chat<T extends ResponseSchemaInput | undefined = undefined>(
    prompt: Content,
    options: ChatOptions & { responseSchema?: T } = {},
  ): Promise<ChatResponse<TurnOutput<S, T>>> {
    const parts = contentParts(prompt);
    if (this.#config.backend?.kind === 'acp' && parts.some(isSlashCommand))
      throw new UnsupportedError('SlashCommand', "agy's print-mode slash commands need the agy backend");
    const { signal, turnTimeoutMs, schema } = checkChatOptions(options);
    await this.start();
    // The turn's input, built once and carried down with it (its stages read the schema from it).
    const response = this.#requireConversation().queueTurn({
      parts,
      schema,
      timeoutMs: turnTimeoutMs,
      signal,
    });
    // The type argument only types `structuredOutput()`: the value is validated against this same schema.
    return response as ChatResponse<TurnOutput<S, T>>;
  }

  /** Interrupts the running turn (it ends `interrupted`); the conversation stays usable. */
  async interrupt(): Promise<void> {
    await this.#conversation?.interrupt();
  }

  /**
   * Switches the model for later turns. Waits until queued turns have ended, then restarts agy on the same
   * conversation with `--model`.
   */
  async setModel(model: string): Promise<void> {
    if (typeof model !== 'string' || model.trim() === '')
      throw new ConfigError('model', 'must be a non-empty string');
    await this.start();
    const connection = this.#connection!;
    await this.#requireConversation().whenIdle(() => connection.setModel(model));
  }

  /**
   * The MCP server name agy knows the agent's own tools by (`agy-sdk_tools`): what a simulator scenario's
   * `mcpTool.server` names, and the server part of agy's `call_mcp_tool` steps.
   */
  get toolServerName(): string {
    return OWN_TOOL_SERVER;
  }

  /**
   * Each of `config.tools` by its author's name → the name it is served under to agy. Names are made
   * provider-safe (`[A-Za-z0-9_-]`, ≤ 64 characters) and a clash gets a hash suffix, so a served name can
   * differ from the one in `tool({ name })`; scenarios and policies must use the served one. Known from
   * construction on (no start needed).
   */
  get toolNames(): ReadonlyMap<string, string> {
    return this.#toolNames;
  }

  /**
   * The name agy sees for one of this agent's tools (given as the definition or its author's name). Throws
   * `ConfigError` (field `tools`) for a tool this agent does not serve.
   */
  servedName(tool: ToolDefinition | string): string {
    const name = typeof tool === 'string' ? tool : tool?.name;
    const served = typeof name === 'string' ? this.#toolNames.get(name) : undefined;
    const own = typeof tool === 'string' || (this.#config.tools ?? []).includes(tool);
    if (served === undefined || !own) {
      throw new ConfigError('tools', `${JSON.stringify(name)} is not one of this agent's tools`);
    }
    return served;
  }

  /** The conversation (after `start()`). */
  get conversation(): Conversation<Content> {
    return this.#requireConversation();
  }

  /** The conversation id, once agy reported it. */
  get conversationId(): string | undefined {
    return this.#connection?.conversationId;
  }

  /** Facts about the running agy (version, model, tools, pid), after `start()`. */
  get info(): ConnectionInfo | undefined {
    return this.#connection?.info;
  }

  /**
   * The agy version (`agy --version`); null when it could not be probed. The probe runs after agy's `init`, so
   * the first start per binary returns before it answers (null until then); later starts know it at once.
   */
  get agyVersion(): string | null | undefined {
    return this.#connection?.info.version;
  }

  /**
   * The agy version once `agy --version` has answered: at once when {@link agyVersion} is known, else when the
   * probe that follows a binary's first start finishes. Null when it could not be probed (or the agent closed
   * first); on another backend, the version it reported at start; undefined before `start()`.
   */
  async probedAgyVersion(): Promise<string | null | undefined> {
    if (this.#agy) return this.#agy.probedVersion();
    return this.#connection?.info.version;
  }

  /** The running backend process's pid (agy's, or the ACP agent's). */
  get pid(): number | undefined {
    return this.#connection?.pid;
  }

  /**
   * What the backend can do (after `start()`): agy's fixed flags, or what the ACP agent advertised on
   * `initialize` and `session/new`. Undefined for a custom `connection` that reports none.
   */
  get capabilities(): AgentCapabilities | undefined {
    return this.#connection?.capabilities;
  }

  /** The session directory path, while started. */
  get sessionDir(): string | undefined {
    return this.#agy?.runtime.dir.path;
  }

  /** @internal The session runtime (listener, files). */
  get runtime(): SessionRuntime | undefined {
    return this.#agy?.runtime;
  }

  /** Transport counters (lines, bad lines, unknown events, processes started). */
  get stats(): ConnectionStats | undefined {
    return this.#agy?.stats;
  }

  /** @internal The Layer-3 connection. */
  get connection(): Connection | undefined {
    return this.#connection;
  }

  /** True between a successful `start()` and `close()`. */
  get isStarted(): boolean {
    return this.#state === 'started';
  }

  /**
   * Closes agy (stdin EOF, grace, SIGTERM, SIGKILL to the whole group; bounded) and removes the session
   * directory. Queued turns end `canceled`. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const started = this.#state === 'started';
      this.#state = 'closing';
      this.#conversation?.markClosed();
      try {
        await this.#triggers?.stop();
        await Promise.all([...this.#lateTriggers.keys()].map((r) => this.#stopLate(r)));
        await this.#connection?.close();
        // A start in flight fails fast once its process is closed; wait for it, so nothing it built survives.
        await this.#startRun?.catch(() => {});
        await this.#triggers?.stop();
        await this.#connection?.close();
        await this.#mcp?.close();
        // After agy is gone: nothing calls the gateway any more, and nothing is left listening.
        await this.#provider?.close();
        if (started) await this.#control.sessionEnd();
      } finally {
        this.#state = 'closed';
        this.#tracing?.sessionEnded();
      }
    })();
    return this.#closing;
  }

  /**
   * Steers the agent, with defined delivery:
   * - `'next-turn'` (default): queued after the current turn (and anything already queued), as its own turn.
   * - `'now'`: interrupts the running turn and re-prompts on the same conversation at once, ahead of the queue;
   *   steering messages still waiting for a model call are included before `text`.
   * - `'next-step'`: injected as a user message at the next model call of the running turn (agy's
   *   `PreInvocation` `injectSteps`). If the turn makes no further model call, it is delivered with the next
   *   turn's prompt. With no turn running it behaves like `'next-turn'`.
   * Returns the response of the turn it starts, or undefined for `'next-step'` during a turn.
   */
  async steer(text: string, opts: { when?: SteerWhen } = {}): Promise<ChatResponse | undefined> {
    if (typeof text !== 'string' || text.trim() === '')
      throw new ConfigError('text', 'a steering message must be a non-empty string');
    const when = opts.when ?? 'next-turn';
    await this.start();
    return deliverSteer(this.#requireConversation(), this.#control.steering, text, when, (t): Content => t);
  }

  /** Closes the agent, so `await using agent = …` cleans up when the scope ends; same as `close()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #requireConversation(): Conversation<Content> {
    if (this.#state === 'closing' || this.#state === 'closed') throw new ClosedError();
    if (!this.#conversation) throw new ClosedError('the agent is not started; call start() first');
    return this.#conversation;
  }
}
