/**
 * The stdin loop: lines are queued as they arrive and handled strictly one at a time, in order, so a message
 * sent while a turn runs starts its own turn after the current `result`. At EOF the queue is drained and the
 * process exits 0 (agy finishes the running turn, then exits).
 */
import type { Conversation } from './conversation.js';
import type { Emitter } from './emitter.js';
import { resultEnvelope } from './envelopes.js';
import { classifyLine, LineSplitter } from './input.js';
import type { TurnRunner } from './turn-runner.js';
import { zeroUsage } from './usage.js';

/** What the session needs from the process around it. */
export interface SessionOptions {
  conv: Conversation;
  emitter: Emitter;
  runner: TurnRunner;
  /** False with `--disable-slash-commands`: a prompt starting with `/` is then plain text. */
  slashCommands: 'all' | 'known' | 'none';
  exit: (code: number) => Promise<never>;
  /** Reports an unexpected failure (a simulator bug) and exits. */
  crash: (err: unknown) => void;
}

/** Reads stdin and runs a turn per user message. */
export class Session {
  readonly #queue: string[] = [];
  readonly #splitter = new LineSplitter();
  #pumping = false;
  #eof = false;

  readonly #opts: SessionOptions;

  constructor(opts: SessionOptions) {
    this.#opts = opts;
  }

  /** Starts reading `input` (stdin). */
  start(input: NodeJS.ReadableStream = process.stdin): void {
    input.on('data', (chunk: Buffer) => this.#enqueue(this.#splitter.push(chunk)));
    const onEnd = (): void => {
      if (this.#eof) return;
      this.#eof = true;
      this.#enqueue(this.#splitter.end());
    };
    input.on('end', onEnd);
    // A broken stdin (EIO, a closed pipe) is an EOF to agy too.
    input.on('error', onEnd);
  }

  #enqueue(lines: string[]): void {
    this.#queue.push(...lines);
    if (!this.#pumping) this.#pump().catch(this.#opts.crash);
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      for (let line = this.#queue.shift(); line !== undefined; line = this.#queue.shift())
        await this.#handle(line);
    } finally {
      this.#pumping = false;
    }
    if (this.#eof) await this.#opts.exit(0);
  }

  async #handle(line: string): Promise<void> {
    const { emitter, exit, conv } = this.#opts;
    const input = classifyLine(line, this.#opts.slashCommands);
    switch (input.kind) {
      case 'blank':
        return;
      case 'skip':
        await emitter.stderr(input.warning);
        return;
      case 'unsupported':
        if (input.result) {
          await emitter.line(
            resultEnvelope({
              conversationId: conv.id,
              status: 'ERROR',
              response: '',
              error: input.error,
              durationSeconds: 0,
              numTurns: 0,
              usage: zeroUsage(),
            }),
          );
          await emitter.flush();
        }
        await emitter.stderr(`error: ${input.error}`);
        await exit(2);
        return;
      case 'fatal': {
        const state = conv.state;
        await emitter.line(
          resultEnvelope({
            conversationId: conv.id,
            status: 'ERROR',
            response: '',
            error: input.error,
            durationSeconds: state.durationSeconds,
            numTurns: state.numTurns,
            usage: { ...state.usage },
          }),
        );
        await exit(1);
        return;
      }
      case 'user':
        await this.#opts.runner.run(input.prompt);
    }
  }
}
