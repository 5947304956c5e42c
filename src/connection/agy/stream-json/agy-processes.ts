/**
 * The agy process of one conversation over time: the current one, its restarts (after an interrupt, a timeout,
 * a crash, a model or schema switch: a fresh process with `--conversation <same id>`), what each `init` said
 * (conversation, model, tools, the resume check), and their bounded close.
 */
import { ClosedError, ConversationNotFoundError } from '../../../errors.js';
import type { Logger } from '../../../logger.js';
import type { ConnectionInfo } from '../../connection.js';
import type { AgyEvent } from './agy-event.js';
import { AgyProcess } from './agy-process.js';
import { resolveAgyBinary } from './binary.js';
import { buildAgyArgs, buildAgyEnv } from './command-line.js';
import type { AgyProcessOptions } from './process-options.js';
import type { ResumeCheck } from './turn-outcome.js';

const NOT_FOUND_WARNING = /^warning: conversation "[^"]*" not found/;

/** The processes of one agy conversation (one at a time) and what their `init`s said. */
export class AgyProcesses {
  readonly #opts: AgyProcessOptions;
  readonly #logger: Logger;
  readonly #maxLineBytes: number;
  /** Reads one process's events (the connection's switch); started at each spawn. */
  readonly #consume: (p: AgyProcess) => void;
  /** The agy binary, once resolved. */
  binary: string | undefined;
  /** agy's environment, once built. */
  env: NodeJS.ProcessEnv | undefined;
  /** The model the next process starts with (`setModel`). */
  model: string | undefined;
  /** The conversation: asked for, then as agy's `init` and `result`s name it. */
  conversationId: string | undefined;
  /** True once this connection has run (or resumed) a conversation, so result-only usage is not trusted. */
  resumed: boolean;
  /** What the latest `init` said, with the probed version. */
  info: ConnectionInfo = {
    version: null,
    conversationId: undefined,
    model: undefined,
    tools: [],
    permissionMode: undefined,
    cwd: undefined,
    pid: undefined,
  };
  /** The running process, if any. */
  current: AgyProcess | undefined;
  /** The `--json-schema` file the next process starts with: the launch one, or the running turn's own. */
  schemaFile: string | undefined;
  /** The `--json-schema` file `current` was started with. */
  #currentSchemaFile: string | undefined;
  /** A restart in progress. */
  #restarting: Promise<void> | undefined;
  /** Per process: the conversation its launch asked for, then what agy opened. */
  readonly #asked = new WeakMap<AgyProcess, string>();
  readonly #resumeChecks = new WeakMap<AgyProcess, ResumeCheck>();
  /** No process is started any more. */
  closed = false;

  constructor(
    opts: AgyProcessOptions,
    logger: Logger,
    maxLineBytes: number,
    consume: (p: AgyProcess) => void,
  ) {
    this.#opts = opts;
    this.#logger = logger;
    this.#maxLineBytes = maxLineBytes;
    this.#consume = consume;
    this.model = opts.model;
    this.schemaFile = opts.jsonSchemaFile;
    this.conversationId = opts.conversationId;
    this.resumed = opts.conversationId !== undefined;
  }

  /** Resolves agy's environment and binary (once). */
  resolve(): { binary: string; env: NodeJS.ProcessEnv } {
    this.env ??= buildAgyEnv(this.#opts.env);
    this.binary ??= resolveAgyBinary({ agyPath: this.#opts.agyPath, env: this.env });
    return { binary: this.binary, env: this.env };
  }

  /** The resume check of `p`'s launch, if it asked for a conversation. */
  resumeCheck(p: AgyProcess | undefined): ResumeCheck | undefined {
    return p ? this.#resumeChecks.get(p) : undefined;
  }

  /** Starts a process with the current model, conversation and schema; its events go to the consumer. */
  spawn(): AgyProcess {
    const o = this.#opts;
    const args = buildAgyArgs({
      addDirs: o.addDirs,
      model: this.model,
      effort: o.effort,
      mode: o.mode,
      sandbox: o.sandbox,
      conversationId: this.conversationId,
      jsonSchemaFile: this.schemaFile,
      skipPermissions: o.skipPermissions,
      extraArgs: o.extraArgs,
    });
    this.#currentSchemaFile = this.schemaFile;
    o.tap?.spawn(args, this.binary!);
    const p = new AgyProcess({
      binary: this.binary!,
      args,
      env: this.env!,
      cwd: o.cwd,
      maxLineBytes: this.#maxLineBytes,
      startTimeoutMs: o.startTimeoutMs ?? 60_000,
      startWork: o.startWork,
    });
    if (this.conversationId !== undefined) this.#asked.set(p, this.conversationId);
    this.current = p;
    this.#consume(p);
    return p;
  }

  /** Records what `p`'s `init` said: the conversation (and whether it is the one asked for), model, tools. */
  onInit(p: AgyProcess, init: Extract<AgyEvent, { type: 'init' }>['init']): void {
    const asked = this.#asked.get(p);
    if (asked !== undefined && init.conversationId !== undefined) {
      const warning = p.start.preInitStderr.map((l) => l.trim()).find((l) => NOT_FOUND_WARNING.test(l));
      this.#resumeChecks.set(p, {
        asked,
        opened: init.conversationId,
        warning,
        reported: false,
        checked: false,
      });
    }
    if (init.conversationId) this.conversationId = init.conversationId;
    this.info = {
      ...this.info,
      conversationId: this.conversationId,
      model: init.model ?? this.model,
      tools: init.tools,
      permissionMode: init.permissionMode,
      agent: init.agent,
      cwd: init.cwd,
      pid: p.proc.pid,
    };
  }

  /** `p` exited: a dead process is no longer the current one. */
  onExit(p: AgyProcess): void {
    if (this.current === p) this.current = undefined;
  }

  /** The running process, started (or restarted) as this turn needs it and past its `init`. */
  async ensure(start: () => Promise<unknown>): Promise<AgyProcess> {
    // A failed restart is not final: its process is gone, so this turn simply starts a fresh one.
    if (this.#restarting) await this.#restarting.catch(() => {});
    if (this.closed) throw new ClosedError();
    if (this.current && this.#currentSchemaFile !== this.schemaFile)
      await this.track(this.replace(this.current));
    if (!this.current) {
      if (!this.binary) {
        await start();
        return this.current!;
      }
      this.spawn();
    }
    const p = this.current!;
    await p.start.ready;
    await this.checkResumed(p);
    return p;
  }

  /**
   * agy 1.3.1 answers `--conversation X` for an id it does not know with `warning: conversation "X" not found`
   * on stderr and a new conversation in `init` (agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script):
   * warned about once per launch; under `resume: 'require'` the process is stopped and the start fails.
   */
  async checkResumed(p: AgyProcess): Promise<void> {
    const check = this.#resumeChecks.get(p);
    if (!check || check.asked === check.opened || check.checked) return;
    check.checked = true;
    this.#logger.warn(
      `agy did not resume conversation "${check.asked}"${check.warning ? ` (${check.warning})` : ''}; it started a new conversation "${check.opened}"`,
    );
    if (this.#opts.resume !== 'require') return;
    if (this.current === p) this.current = undefined;
    this.conversationId = check.asked;
    this.info = { ...this.info, conversationId: check.asked };
    await p.proc.close(this.closeTimings());
    throw new ConversationNotFoundError(check.asked, check.opened, {
      exitCode: null,
      signal: null,
      stderrTail: p.proc.stderrTail,
    });
  }

  /** Closes `old` (bounded) and starts a fresh process on the same conversation. */
  async replace(old: AgyProcess): Promise<void> {
    if (this.current === old) this.current = undefined;
    this.#opts.tap?.stdinClosed();
    await old.proc.close(this.closeTimings());
    if (this.closed) return;
    if (this.conversationId) this.resumed = true;
    await this.spawn().start.ready;
  }

  /** A process that was interrupted, timed out or died is replaced before the next turn. */
  restartLater(old: AgyProcess): void {
    if (this.closed) return;
    void this.track(this.replace(old));
  }

  /** Records a restart in progress, and forgets it once settled (a failure surfaces on the next turn). */
  track(restart: Promise<void>): Promise<void> {
    this.#restarting = restart;
    const clear = () => {
      if (this.#restarting === restart) this.#restarting = undefined;
    };
    restart.then(clear, clear);
    return restart;
  }

  /** Waits for a restart in progress (its failure is the next turn's). */
  async settled(): Promise<void> {
    await this.#restarting?.catch(() => {});
  }

  /**
   * Closes the current process first: a restart waiting for its `init` then fails fast instead of holding close
   * for up to startTimeoutMs, and `replace` never spawns once `closed` is set.
   */
  async closeAll(): Promise<void> {
    this.closed = true;
    const p = this.current;
    this.current = undefined;
    if (p) {
      this.#opts.tap?.stdinClosed();
      await p.proc.close(this.closeTimings());
    }
    await this.settled();
    const late = this.current as AgyProcess | undefined;
    if (late) {
      this.#opts.tap?.stdinClosed();
      await late.proc.close(this.closeTimings());
    }
  }

  /** The bounded close: stdin EOF, SIGTERM after `closeGraceMs`, SIGKILL of the group after `termGraceMs`. */
  closeTimings() {
    return { graceMs: this.#opts.closeGraceMs ?? 3000, termGraceMs: this.#opts.termGraceMs ?? 2000 };
  }
}
