/**
 * Layer 1: the Agent. It wires parts it does not implement: its config's parts (`agent-parts.ts`: the control
 * plane, the budget, the usage ledger), the session `start()` builds (`session.ts`, loaded by `import()` so that
 * `import 'agy-sdk'` stays cheap: the backend through its factory, the conversation and its stages), its triggers
 * (`triggers.ts`). `await using agent = new Agent(config)` closes everything on scope exit.
 */
import type { ConnectionStats, SessionRuntime } from '../connection/agy/index.js';
import type { Connection, ConnectionInfo } from '../connection/connection.js';
import { OWN_TOOL_SERVER } from '../connection/tool-server/server-name.js';
import type { Content } from '../content/content.js';
import type { ChatResponse } from '../conversation/chat-response.js';
import type { Conversation } from '../conversation/conversation.js';
import { ClosedError, ConfigError } from '../errors.js';
import type { Hook } from '../hooks/kinds.js';
import type { AgentCapabilities } from '../model/capabilities.js';
import type { McpServerState } from '../model/mcp-server-state.js';
import type { ResponseSchemaInput } from '../model/response-schema.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { Trigger } from '../triggers/types.js';
import { type AgentParts, agentParts, servedNameOf } from './agent-parts.js';
import { type ChatOptions, type TurnOutput, turnOf } from './chat-options.js';
import type { AgentConfig } from './config.js';
import type { AgentSession } from './session.js';
import { deliverSteer, type SteerWhen } from './steering.js';
import { AgentTriggers } from './triggers.js';

export {
  type ChatOptions,
  type CheckedChatOptions,
  checkChatOptions,
  type TurnOutput,
} from './chat-options.js';

type AgentState = 'new' | 'starting' | 'started' | 'closing' | 'closed';

/**
 * An agent on Google Antigravity: owns the configuration, the backend (agy, unless `connection` says
 * otherwise) and the conversation. Nothing starts until `start()` or the first `chat()`;
 * `await using agent = new Agent(config)` closes everything on scope exit.
 */
export class Agent<S extends ResponseSchemaInput | undefined = undefined> implements AsyncDisposable {
  readonly #config: AgentConfig;
  readonly #parts: AgentParts;
  readonly #triggers: AgentTriggers;
  #state: AgentState = 'new';
  #starting: Promise<void> | undefined;
  /** The bare start run (without the close-on-failure wrapper), which close() waits for. */
  #startRun: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** What `start()` built; each part is set as soon as it exists, so close() sees it. */
  #session: AgentSession | undefined;

  /**
   * Validates the config (throws `ConfigError` naming the field); nothing starts until `start()`. A zod
   * `responseSchema` types every turn's `structuredOutput()` (`Agent<typeof Schema>`).
   *
   * @typeParam S - The agent's `responseSchema`, inferred from the config.
   */
  constructor(config: AgentConfig & { responseSchema?: S } = {}) {
    this.#parts = agentParts(config, {
      conversationId: () => this.conversationId,
      isIdle: () => this.#session?.conversation?.isIdle ?? true,
      send: async (message) => {
        this.#requireConversation().chat(message);
      },
    });
    this.#config = { ...config };
    this.#triggers = new AgentTriggers(async (text) => {
      this.#requireConversation().chat(text);
    }, this.#parts.logger);
  }

  /** Starts agy and waits for its `init`. Idempotent; concurrent calls share one start. */
  start(): Promise<void> {
    if (this.#closingNow()) return Promise.reject(new ClosedError());
    if (!this.#starting) {
      this.#startRun = this.#start();
      this.#starting = this.#startRun.catch(async (err) => {
        await this.close();
        throw err;
      });
    }
    return this.#starting;
  }

  #closingNow(): boolean {
    return this.#state === 'closing' || this.#state === 'closed';
  }

  async #start(): Promise<void> {
    this.#state = 'starting';
    const { AgentSession } = await import('./session.js');
    if (this.#closingNow()) throw new ClosedError('the agent was closed while starting');
    this.#session = new AgentSession({
      ...this.#parts,
      config: this.#config,
      triggers: this.#triggers,
      closing: () => this.#closingNow(),
    });
    await this.#session.open();
    if (this.#state === 'starting') this.#state = 'started';
  }

  /**
   * The user's MCP servers (`AgentConfig.mcpServers`) by name, each with its status (`checking`, `ready`,
   * `failed`, `disabled`), why it failed, the tail of its stderr and its tools: the SDK's own start check of
   * each server, run at `start()` (neither backend reports its MCP clients; see {@link McpServerState}). Empty
   * before `start()`, without servers, and on a custom `connection`. A snapshot: read it again for news.
   */
  get mcpServers(): ReadonlyMap<string, McpServerState> {
    return this.#session?.mcp?.states ?? new Map();
  }

  /**
   * Starts the agent if needed and resolves once every MCP server's start check has finished, with
   * {@link mcpServers} then: for a program that wants to know before its first prompt (the first turn's
   * `notices` tell it otherwise).
   */
  async whenMcpServersChecked(): Promise<ReadonlyMap<string, McpServerState>> {
    await this.start();
    return (await this.#session?.mcp?.settled()) ?? new Map();
  }

  /** The cassette this session is recorded into (`record`, `AGY_SDK_RECORD`), once started. */
  get cassetteFile(): string | undefined {
    return this.#session?.cassetteFile;
  }

  /**
   * Adds a hook (Python `register_hook`). Before `start()` it joins `config.hooks`; after it, it applies from
   * the next call it handles. Returns a function that removes it. On agy, a tool hook registered after
   * `start()` needs the hook relay agy was started with: a `preToolCall` hook needs a policy, a budget or a
   * `preToolCall` hook at start, and `postToolCall`/`onToolError`/`stop` hooks one of their kind; otherwise it
   * is refused (`UnsupportedError`) rather than never called.
   */
  registerHook(hook: Hook): () => void {
    if (this.#closingNow()) throw new ClosedError();
    this.#session?.checkLateHook(hook);
    this.#parts.control.runner.register(hook);
    return () => {
      this.#parts.control.runner.unregister(hook);
    };
  }

  /**
   * Adds a trigger (Python `register_trigger`). Before `start()` it joins `config.triggers`; after it, it starts
   * at once. Returns a function that stops and removes it (resolving once it stopped).
   */
  registerTrigger(trigger: Trigger): () => Promise<void> {
    if (this.#closingNow()) throw new ClosedError();
    return this.#triggers.register(trigger, this.#state === 'started');
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
    // The turn, built and checked once, and carried down with it to the backend (its stages read its schema).
    const turn = turnOf(prompt, options, this.#config.backend?.kind ?? 'agy');
    await this.start();
    const response = this.#requireConversation().queueTurn(turn);
    // The type argument only types `structuredOutput()`: the value is validated against this same schema.
    return response as ChatResponse<TurnOutput<S, T>>;
  }

  /** Interrupts the running turn (it ends `interrupted`); the conversation stays usable. */
  async interrupt(): Promise<void> {
    await this.#session?.conversation?.interrupt();
  }

  /**
   * Switches the model for later turns. Waits until queued turns have ended, then restarts agy on the same
   * conversation with `--model`.
   */
  async setModel(model: string): Promise<void> {
    if (typeof model !== 'string' || model.trim() === '')
      throw new ConfigError('model', 'must be a non-empty string');
    await this.start();
    const connection = this.#session?.connection as Connection;
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
    return this.#parts.toolNames;
  }

  /**
   * The name agy sees for one of this agent's tools (given as the definition or its author's name). Throws
   * `ConfigError` (field `tools`) for a tool this agent does not serve.
   */
  servedName(tool: ToolDefinition | string): string {
    return servedNameOf(this.#parts.toolNames, this.#config.tools, tool);
  }

  /** The conversation (after `start()`). */
  get conversation(): Conversation<Content> {
    return this.#requireConversation();
  }

  /** The conversation id, once agy reported it. */
  get conversationId(): string | undefined {
    return this.#session?.connection?.conversationId;
  }

  /** Facts about the running agy (version, model, tools, pid), after `start()`. */
  get info(): ConnectionInfo | undefined {
    return this.#session?.connection?.info;
  }

  /**
   * The agy version (`agy --version`); null when it could not be probed. The probe runs after agy's `init`, so
   * the first start per binary returns before it answers (null until then); later starts know it at once.
   */
  get agyVersion(): string | null | undefined {
    return this.#session?.connection?.info.version;
  }

  /**
   * The agy version once `agy --version` has answered: at once when {@link agyVersion} is known, else when the
   * probe that follows a binary's first start finishes. Null when it could not be probed (or the agent closed
   * first); on another backend, the version it reported at start; undefined before `start()`.
   */
  async probedAgyVersion(): Promise<string | null | undefined> {
    const agy = this.#session?.agy;
    if (agy) return agy.probedVersion();
    return this.#session?.connection?.info.version;
  }

  /** The running backend process's pid (agy's, or the ACP agent's). */
  get pid(): number | undefined {
    return this.#session?.connection?.pid;
  }

  /**
   * What the backend can do (after `start()`): agy's fixed flags, or what the ACP agent advertised on
   * `initialize` and `session/new`. Undefined for a custom `connection` that reports none.
   */
  get capabilities(): AgentCapabilities | undefined {
    return this.#session?.connection?.capabilities;
  }

  /** The session directory path, while started. */
  get sessionDir(): string | undefined {
    return this.#session?.agy?.runtime.dir.path;
  }

  /** @internal The session runtime (listener, files). */
  get runtime(): SessionRuntime | undefined {
    return this.#session?.agy?.runtime;
  }

  /** Transport counters (lines, bad lines, unknown events, processes started). */
  get stats(): ConnectionStats | undefined {
    return this.#session?.agy?.stats;
  }

  /** @internal The Layer-3 connection. */
  get connection(): Connection | undefined {
    return this.#session?.connection;
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
      this.#session?.conversation?.markClosed();
      try {
        await this.#triggers.stop();
        await this.#session?.closeBackend();
        // A start in flight fails fast once its process is closed; wait for it, so nothing it built survives.
        await this.#startRun?.catch(() => {});
        await this.#session?.close();
        if (started) await this.#parts.control.sessionEnd();
      } finally {
        this.#state = 'closed';
        this.#session?.tracing?.sessionEnded();
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
    return deliverSteer(
      this.#requireConversation(),
      this.#parts.control.steering,
      text,
      when,
      (t): Content => t,
    );
  }

  /** Closes the agent, so `await using agent = …` cleans up when the scope ends; same as `close()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #requireConversation(): Conversation<Content> {
    if (this.#closingNow()) throw new ClosedError();
    const conversation = this.#session?.conversation;
    if (!conversation) throw new ClosedError('the agent is not started; call start() first');
    return conversation;
  }
}
