/**
 * Layer 1: the Agent. Owns configuration and lifecycle: the session directory, the connection (an agy
 * process), and the conversation. `await using agent = new Agent(config)` closes everything on scope exit.
 */
import type { Connection, ConnectionInfo } from '../connection/connection.js';
import { buildAgyEnv } from '../connection/stream-json/launch.js';
import {
  type ConnectionStats,
  StreamJsonConnection,
} from '../connection/stream-json/stream-json-connection.js';
import { type Content, contentParts } from '../content/content.js';
import { materialize } from '../content/materialize.js';
import type { ChatResponse } from '../conversation/chat-response.js';
import { Conversation } from '../conversation/conversation.js';
import type { TurnResult } from '../conversation/turn-result.js';
import { ClosedError, ConfigError } from '../errors.js';
import { defaultLogger, type Logger } from '../runtime/listener-logger.js';
import { alwaysOnRule, renderInstructions } from '../runtime/rules.js';
import { SessionRuntime } from '../runtime/session-runtime.js';
import { ResponseSchema } from '../structured/response-schema.js';
import type { AgentConfig } from './config.js';
import { validateConfig } from './validate-config.js';

type AgentState = 'new' | 'starting' | 'started' | 'closing' | 'closed';

export class Agent implements AsyncDisposable {
  readonly #config: AgentConfig;
  readonly #workspaces: string[];
  readonly #schema: ResponseSchema | undefined;
  #state: AgentState = 'new';
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #runtime: SessionRuntime | undefined;
  readonly #logger: Logger;
  #connection: StreamJsonConnection | undefined;
  #conversation: Conversation<Content> | undefined;

  /** Validates the config (throws `ConfigError` naming the field); nothing starts until `start()`. */
  constructor(config: AgentConfig = {}) {
    const { workspaces } = validateConfig(config);
    this.#config = { ...config };
    this.#workspaces = workspaces;
    this.#schema =
      config.responseSchema !== undefined ? ResponseSchema.from(config.responseSchema) : undefined;
    if (config.systemInstructions !== undefined) {
      alwaysOnRule(
        'systemInstructions',
        'agy-sdk system instructions',
        renderInstructions(config.systemInstructions),
      );
    }
    SessionRuntime.validate({
      notes: config.notes,
      mcpServers: config.mcpServers,
      hooks: config.agyHooks,
      hookPlacement: config.hookPlacement,
      isolation: config.isolation,
      linkNativeAuth: config.linkNativeAuth,
      settingsOverrides: config.settingsOverrides,
      skillsPaths: config.skillsPaths,
      subagents: config.subagents,
    });
    if (config.reminder !== undefined && typeof config.reminder !== 'string') {
      throw new ConfigError('reminder', 'must be a string');
    }
    this.#logger = config.logger ?? defaultLogger;
  }

  /** Starts agy and waits for its `init`. Idempotent; concurrent calls share one start. */
  start(): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') return Promise.reject(new ClosedError());
    this.#starting ??= this.#start().catch(async (err) => {
      await this.close();
      throw err;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    this.#state = 'starting';
    const config = this.#config;
    const env = buildAgyEnv(config.env);
    const runtime = await SessionRuntime.create({
      dataDir: config.dataDir,
      systemInstructions: config.systemInstructions,
      notes: config.notes,
      jsonSchema: this.#schema?.jsonSchema,
      tools: config.tools,
      toolTransport: config.toolTransport,
      mcpServers: config.mcpServers,
      hooks: config.agyHooks,
      hookPlacement: config.hookPlacement,
      hookTimeoutMs: config.hookTimeoutMs,
      hookRelay: config.hookRelay,
      isolation: config.isolation,
      linkNativeAuth: config.linkNativeAuth,
      settingsOverrides: config.settingsOverrides,
      skillsPaths: config.skillsPaths,
      subagents: config.subagents,
      env,
      logger: this.#logger,
      toolContext: {
        conversationId: () => this.conversationId,
        send: async (message) => {
          this.#requireConversation().chat(message);
        },
      },
    });
    this.#runtime = runtime;
    const connection = new StreamJsonConnection({
      agyPath: config.agyPath,
      env: { ...config.env, ...runtime.env },
      cwd: config.cwd ?? this.#workspaces[0] ?? process.cwd(),
      addDirs: [...this.#workspaces, runtime.dir.path],
      model: config.model,
      effort: config.effort,
      conversationId: config.conversationId,
      jsonSchemaFile: runtime.jsonSchemaFile,
      skipPermissions: config.dangerouslySkipPermissions,
      extraArgs: config.extraArgs,
      startTimeoutMs: config.startTimeoutMs,
      idleTimeoutMs: config.idleTimeoutMs,
      turnTimeoutMs: config.turnTimeoutMs,
      interruptGraceMs: config.interruptGraceMs,
      closeGraceMs: config.closeGraceMs,
      maxLineBytes: config.maxLineBytes,
      onBadLine: config.onBadLine,
      onStderr: config.onStderr,
    });
    this.#connection = connection;
    const reminder = config.reminder;
    this.#conversation = new Conversation<Content>({
      connection,
      historyLimit: config.historyLimit,
      pipeline: {
        prepare: async (prompt) => {
          const text = await materialize(contentParts(prompt), () => runtime.attachmentsDir());
          if (reminder) text.unshift(`<system-reminder>\n${reminder}\n</system-reminder>`);
          return { text };
        },
        finalize: (result) => this.#finalize(result),
      },
    });
    await connection.start();
    if (this.#state === 'starting') this.#state = 'started';
  }

  #finalize(result: TurnResult): TurnResult {
    if (!this.#schema || result.status !== 'success') return result;
    const checked = this.#schema.check(result.result?.structured_output);
    if (checked.ok) return { ...result, structuredOutput: checked.value };
    return { ...result, status: 'error', errorMessage: checked.error.message, error: checked.error };
  }

  /**
   * Sends a prompt and returns its streamed response. Starts the agent if needed. A `chat` sent while a turn
   * runs is queued and runs next, in call order. Rejects with `ContentError` for an empty or malformed prompt.
   */
  async chat(prompt: Content): Promise<ChatResponse> {
    contentParts(prompt);
    await this.start();
    return this.#requireConversation().chat(prompt);
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

  /** The agy version (`agy --version`), after `start()`; null when it could not be probed. */
  get agyVersion(): string | null | undefined {
    return this.#connection?.info.version;
  }

  /** The running agy process's pid. */
  get pid(): number | undefined {
    return this.#connection?.pid;
  }

  /** The session directory path, while started. */
  get sessionDir(): string | undefined {
    return this.#runtime?.dir.path;
  }

  /** @internal The session runtime (listener, files). */
  get runtime(): SessionRuntime | undefined {
    return this.#runtime;
  }

  /** Transport counters (lines, bad lines, unknown events, processes started). */
  get stats(): ConnectionStats | undefined {
    return this.#connection?.stats;
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
      this.#state = 'closing';
      this.#conversation?.markClosed();
      try {
        await this.#connection?.close();
      } finally {
        await this.#runtime?.close();
        this.#state = 'closed';
      }
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #requireConversation(): Conversation<Content> {
    if (this.#state === 'closing' || this.#state === 'closed') throw new ClosedError();
    if (!this.#conversation) throw new ClosedError('the agent is not started; call start() first');
    return this.#conversation;
  }
}
