/**
 * `agy-sdk chat`: an interactive REPL on one conversation. Lines are prompts, or commands (`/model [m]`,
 * `/usage`, `/history`, `/exit`). Tool approvals go through the public `terminalApproval` handler under the
 * `--confirm` policy; its answers are fed from this REPL's own readline, so two readers never fight over stdin.
 * Ctrl-C interrupts a running turn; at an empty prompt, a Ctrl-C right after another one (or after an
 * interrupt) exits. Lines typed while a turn runs are queued (so piped input works), except while an approval
 * question is open: then the line is the answer.
 */
import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { SlashCommand } from '../connection/index.js';
import { Agent, type AskUserHandler, type PolicyList, policy, terminalApproval } from '../index.js';
import { type AgentFlags, setupAgent } from './agent-setup.js';
import { cliLogger, type LogSink } from './cli-logger.js';
import { reportFailure } from './failure.js';
import { formatUsage, oneLine } from './render/format.js';
import { pickRenderer } from './render/pick.js';
import type { RenderStreams, TurnRenderer } from './render/renderer.js';
import { STARTING_LABEL } from './render/tty.js';
import { renderTurn } from './turn.js';

/** `chat`'s flags. */
export interface ChatFlags extends AgentFlags {
  /** `--confirm <policy>`: which tool calls need a yes at the terminal. */
  confirm?: string;
}

/** `--confirm` values → policies around the terminal approval handler. */
export const CONFIRM_POLICIES: Readonly<Record<string, (ask: AskUserHandler) => PolicyList>> = {
  /** The SDK's default: `run_command` asks, everything else runs. */
  'run-command': (ask) => policy.confirmRunCommand(ask),
  /** Read-only built-in tools run; everything else (MCP tools included) asks. */
  all: (ask) => policy.safeDefaults(ask),
  /** Nothing asks; everything runs. */
  never: () => [policy.allowAll()],
  /** Nothing asks; `run_command` is denied. */
  deny: () => policy.confirmRunCommand(),
};

interface TranscriptEntry {
  prompt: string;
  text: string;
  status: string;
}

/** Runs the REPL until `/exit`, end of input or a double Ctrl-C; resolves to the exit code. */
export async function chatCommand(
  flags: ChatFlags,
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
  streams: RenderStreams = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const confirm = flags.confirm ?? 'run-command';
  const makePolicies = CONFIRM_POLICIES[confirm];
  if (!makePolicies) {
    streams.err.write(
      `agy-sdk: --confirm: must be one of ${Object.keys(CONFIRM_POLICIES).join(', ')}, got "${confirm}"\n`,
    );
    return 2;
  }
  const answers = new PassThrough();
  let openQuestions = 0;
  const approve = terminalApproval({ input: answers, output: streams.out });
  // The renderer of the running turn: its spinner must stop before a question is printed under it.
  const live: { renderer?: TurnRenderer } = {};
  const ask: AskUserHandler = async (call, ctx) => {
    live.renderer?.dispose();
    openQuestions += 1;
    try {
      return await approve(call, ctx);
    } finally {
      openQuestions -= 1;
    }
  };
  // Log lines go to whoever owns the screen: the running turn's renderer, else above the REPL's prompt.
  // Until the REPL runs, the start's spinner owns the screen: log lines go above it.
  const starting = pickRenderer({ json: false, streamText: true }, streams);
  const sink: LogSink = { line: (text) => starting.note(text) };
  starting.wait(STARTING_LABEL);
  let setup: Awaited<ReturnType<typeof setupAgent>>;
  let agent: Agent;
  try {
    setup = await setupAgent(flags, { policies: makePolicies(ask), logger: cliLogger(sink) });
  } catch (error) {
    starting.dispose();
    return reportFailure(error, streams.err);
  }
  try {
    agent = new Agent(setup.config);
    await agent.start();
  } catch (error) {
    starting.dispose();
    await setup.close();
    return reportFailure(error, streams.err);
  }
  starting.dispose();
  const terminal = input.isTTY === true && (streams.out as NodeJS.WriteStream).isTTY === true;
  const rl = createInterface({ input, output: streams.out, terminal, prompt: 'you › ' });
  const repl = new Repl(agent, rl, streams, flags, () => openQuestions > 0, answers, live);
  sink.line = (text) => repl.log(text);
  try {
    return await repl.run();
  } finally {
    answers.end();
    await agent.close();
    await setup.close();
  }
}

/** The REPL's state machine: idle at the prompt, or running a turn. */
class Repl {
  readonly #queue: string[] = [];
  readonly #transcript: TranscriptEntry[] = [];
  #running = false;
  #armed = false;
  #inputClosed = false;
  #finish!: (code: number) => void;

  readonly #agent: Agent;
  readonly #rl: Interface;
  readonly #streams: RenderStreams;
  readonly #flags: ChatFlags;
  readonly #asking: () => boolean;
  readonly #answers: PassThrough;
  readonly #live: { renderer?: TurnRenderer };

  constructor(
    agent: Agent,
    rl: Interface,
    streams: RenderStreams,
    flags: ChatFlags,
    asking: () => boolean,
    answers: PassThrough,
    live: { renderer?: TurnRenderer },
  ) {
    this.#agent = agent;
    this.#rl = rl;
    this.#streams = streams;
    this.#flags = flags;
    this.#asking = asking;
    this.#answers = answers;
    this.#live = live;
  }

  run(): Promise<number> {
    const done = new Promise<number>((resolve) => {
      this.#finish = resolve;
    });
    const onSigint = (): void => this.#onInterrupt();
    this.#rl.on('line', (line) => this.#onLine(line));
    this.#rl.on('SIGINT', onSigint);
    // Off a terminal readline does not see Ctrl-C; the signal reaches the process instead.
    process.on('SIGINT', onSigint);
    this.#rl.on('close', () => {
      this.#inputClosed = true;
      if (!this.#running && this.#queue.length === 0) this.#finish(0);
    });
    this.#say(
      'agy-sdk chat — /model [m], /usage, /history, /exit. Ctrl-C interrupts; twice at an empty prompt exits.',
    );
    this.#rl.prompt();
    return done.finally(() => {
      process.off('SIGINT', onSigint);
      this.#rl.close();
    });
  }

  #say(text: string): void {
    this.#streams.out.write(`${text}\n`);
  }

  /** A line from the SDK's log: through the turn's renderer, or above the prompt (reprinted under it). */
  log(text: string): void {
    const renderer = this.#live.renderer;
    if (renderer) {
      renderer.note(text);
      return;
    }
    if (!this.#rl.terminal) {
      this.#streams.err.write(`${text}\n`);
      return;
    }
    clearLine(this.#streams.out, 0);
    cursorTo(this.#streams.out, 0);
    this.#streams.err.write(`${text}\n`);
    this.#rl.prompt(true);
  }

  #onLine(line: string): void {
    this.#armed = false;
    if (this.#running) {
      if (this.#asking()) this.#answers.write(`${line}\n`);
      else this.#queue.push(line);
      return;
    }
    void this.#handle(line);
  }

  #onInterrupt(): void {
    if (this.#running) {
      this.#armed = true;
      this.#queue.length = 0;
      const notice = '(Ctrl-C: interrupting the turn)';
      // At an open `Allow? [y/N]` the cursor sits after the question: end that line first.
      if (this.#asking()) this.#streams.out.write('\n');
      if (this.#live.renderer) this.#live.renderer.note(notice);
      else this.#say(`\n${notice}`);
      this.#agent.interrupt().catch((error: unknown) => this.#say(`interrupt failed: ${String(error)}`));
      return;
    }
    if (this.#rl.line.length > 0) {
      // Ctrl-C on a half-typed line discards it, as shells do.
      this.#rl.write(null, { ctrl: true, name: 'e' });
      this.#rl.write(null, { ctrl: true, name: 'u' });
      this.#armed = false;
      return;
    }
    if (this.#armed) {
      this.#say('');
      this.#finish(0);
      return;
    }
    this.#armed = true;
    this.#say('\n(Ctrl-C again to exit, or /exit)');
    this.#rl.prompt();
  }

  async #handle(line: string): Promise<void> {
    const text = line.trim();
    this.#running = true;
    let ending = false;
    try {
      if (text.startsWith('/')) ending = await this.#command(text);
      else if (text !== '') await this.#turn(text);
    } catch (error) {
      reportFailure(error, this.#streams.err);
    } finally {
      this.#running = false;
    }
    if (ending) return;
    const next = this.#queue.shift();
    if (next !== undefined) return this.#handle(next);
    if (this.#inputClosed) return this.#finish(0);
    this.#rl.prompt();
  }

  /** Runs a REPL command; true when the REPL is ending. */
  async #command(text: string): Promise<boolean> {
    const [name, ...rest] = text.split(/\s+/);
    const arg = rest.join(' ');
    switch (name) {
      case '/exit':
      case '/quit':
        this.#finish(0);
        return true;
      case '/model':
        if (!arg) {
          this.#say(await this.#currentModel());
          return false;
        }
        await this.#agent.setModel(arg);
        this.#say(`model: ${arg} (from the next turn)`);
        return false;
      case '/usage': {
        const conv = this.#agent.conversation;
        this.#say(`last turn: ${formatUsage(conv.lastTurnUsage)}`);
        const turns = `${conv.turnCount} turn${conv.turnCount === 1 ? '' : 's'}`;
        this.#say(`conversation (${turns}): ${formatUsage(conv.totalUsage)}`);
        return false;
      }
      case '/history':
        if (this.#transcript.length === 0) this.#say('(no turns yet)');
        this.#transcript.forEach((t, i) => {
          this.#say(`${i + 1}. you: ${oneLine(t.prompt)}`);
          this.#say(`   agent [${t.status}]: ${oneLine(t.text) || '(no text)'}`);
        });
        this.#say(`conversation: ${this.#agent.conversationId ?? '(none yet)'}`);
        return false;
      default:
        this.#say(`unknown command ${name}; commands: /model [m], /usage, /history, /exit`);
        return false;
    }
  }

  /**
   * `/model` alone: agy's own answer (`agy -p /model`, docs/reference/stream-json.md#command-result), else what
   * the SDK knows (the `--model` or `/model` set), else agy's default.
   */
  async #currentModel(): Promise<string> {
    const renderer = pickRenderer({ json: false, streamText: true }, this.#streams);
    this.#live.renderer = renderer;
    renderer.wait('asking agy for the model…');
    let reported: string | undefined;
    let why = '';
    try {
      const result = await (await this.#agent.chat(new SlashCommand('/model'))).result();
      reported = modelOf(result.command?.data);
      if (reported === undefined) why = ` (agy did not say: ${result.status})`;
    } catch (error) {
      why = ` (agy did not say: ${oneLine(error instanceof Error ? error.message : String(error))})`;
    } finally {
      renderer.dispose();
      delete this.#live.renderer;
    }
    const set = this.#agent.info?.model;
    const known = reported ?? (set === undefined ? undefined : oneLine(set));
    return `model: ${known ?? "agy's default"}${reported ? '' : why} · /model <id> switches from the next turn`;
  }

  async #turn(prompt: string): Promise<void> {
    const renderer = pickRenderer(
      { json: false, streamText: this.#flags.schema === undefined },
      this.#streams,
    );
    this.#live.renderer = renderer;
    let result: Awaited<ReturnType<typeof renderTurn>>;
    try {
      result = await renderTurn(this.#agent, prompt, renderer, {
        showStructured: this.#flags.schema !== undefined,
      });
    } finally {
      delete this.#live.renderer;
      // A question still open belongs to a turn that ended (interrupted): its hook is gone. Answer it "no",
      // so it neither blocks the next approval nor takes the next line typed at the prompt.
      if (this.#asking()) this.#answers.write('\n');
    }
    this.#transcript.push({ prompt, text: result.text, status: result.status });
  }
}

/** `gemini-3.8-flash-medium (Gemini 3.8 Flash (Medium))` from `/model`'s payload; undefined without an id. */
function modelOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { id, label } = data as { id?: unknown; label?: unknown };
  if (typeof id !== 'string' || id === '') return undefined;
  return typeof label === 'string' && label !== '' ? `${oneLine(id)} (${oneLine(label)})` : oneLine(id);
}
