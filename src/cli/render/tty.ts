/**
 * On a terminal: a spinner shows whenever the CLI waits: while agy starts (`wait`), from the prompt to the
 * first words, after each tool call, and whenever the model pauses for longer than {@link IDLE_MS} (under the
 * answer's open line when it stopped mid-sentence, so its next words continue in place); the answer streams as
 * it arrives; each tool call is a live status line
 * with its own spinner that ends as ✓ or ✗ with a short result; the turn ends with a dim status · duration ·
 * usage line, however it ended. Colour is off under `NO_COLOR` (checked by `useColor`). Everything that came
 * from the model or a tool is printed terminal-safe (`terminalSafe`).
 */
import { createColors } from 'picocolors';
import type { Step, ToolCall, TurnResult } from '../../index.js';
import { TerminalTextFilter } from '../../internal/terminal-text.js';
import {
  answerDelta,
  callVerdict,
  describeCall,
  describeOutcome,
  formatStructured,
  summaryLine,
} from './format.js';
import type { RenderStreams, TurnRenderer } from './renderer.js';
import { Spinner } from './spinner.js';

/** True when colour should be used on `stream`: a TTY and no `NO_COLOR` (any value, per no-color.org). */
export function useColor(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return (stream as NodeJS.WriteStream).isTTY === true;
}

/** What the one live line shows: the model working, or a tool call running. */
type Live =
  | { kind: 'work'; label: string; since: number; spinner: Spinner }
  | { kind: 'tool'; id: string; label: string; spinner: Spinner };

/** The label of the spinner shown while agy starts. */
export const STARTING_LABEL = 'starting agy…';

/** The label of the spinner shown while the model works. */
export const WORKING_LABEL = 'working…';

/**
 * How long the model may be silent before the working spinner comes back. Words arrive in bursts a few hundred
 * ms apart; a spinner drawn and erased between every burst would flicker.
 */
export const IDLE_MS = 500;

/** The terminal renderer. */
export class TtyRenderer implements TurnRenderer {
  readonly #streams: RenderStreams;
  readonly #streamText: boolean;
  readonly #c: ReturnType<typeof createColors>;
  readonly #seen = new Set<string>();
  readonly #ended = new Set<string>();
  readonly #text = new TerminalTextFilter();
  /** Calls that ended DONE with nothing to show: agy's soft denial looks the same until the result. */
  #unsure: ToolCall[] = [];
  /** The one live line (agy runs tools one after another); a call started meanwhile gets a static line. */
  #live: Live | undefined;
  /** The answer's last line is still open (on `out`). */
  #midLine = false;
  #since = Date.now();
  /** Between `start` and `end`: the model may be working. */
  #running = false;
  /** After `dispose` mid-turn (an approval question owns the screen) until the turn shows something again. */
  #quiet = false;
  #idle: NodeJS.Timeout | undefined;

  constructor(streams: RenderStreams, options: { streamText: boolean; color: boolean }) {
    this.#streams = streams;
    this.#streamText = options.streamText;
    this.#c = createColors(options.color);
  }

  wait(label: string): void {
    this.#pause();
    this.#spin(label, Date.now());
  }

  start(): void {
    this.#pause();
    this.#since = Date.now();
    this.#running = true;
    this.#quiet = false;
    this.#working();
  }

  step(step: Step): void {
    this.#clearIdle();
    this.#step(step);
    this.#armIdle();
  }

  #step(step: Step): void {
    const delta = answerDelta(step);
    if (delta && this.#streamText) {
      const text = this.#text.push(delta);
      if (text) {
        this.#pause();
        this.#quiet = false;
        this.#streams.out.write(text);
        this.#midLine = !text.endsWith('\n');
      }
    }
    const call = step.tool;
    if (!call || step.subagent) return;
    const finished = call.state === 'DONE' || call.state === 'ERROR';
    if (!this.#seen.has(call.id)) {
      this.#seen.add(call.id);
      // A new call: agy went on, so an earlier silent call was not the soft denial that ends a turn.
      this.#flushUnsure();
      if (!finished) this.#startTool(call.id, describeCall(call));
    }
    if (!finished || this.#ended.has(call.id)) return;
    this.#ended.add(call.id);
    const unsure = callVerdict(call) === 'unsure';
    if (unsure) this.#unsure.push(call);
    // A silent call's mark waits for the result (or the next call); its line shows only what ran meanwhile.
    const line = unsure ? `${this.#c.cyan('•')} ${describeCall(call)}` : this.#toolLine(call);
    if (this.#live?.kind === 'tool' && this.#live.id === call.id) {
      this.#live.spinner.stop(line);
      this.#live = undefined;
    } else {
      this.#line(line);
    }
    // The call is answered: the model works on it until its next words or call.
    this.#quiet = false;
    this.#working();
  }

  end(result: TurnResult, options: { showStructured: boolean }): void {
    // Nothing animates after the closing line.
    this.#running = false;
    this.dispose();
    // The result has marked the calls agy soft-denied.
    this.#flushUnsure();
    this.#text.end();
    if (options.showStructured && result.status === 'success')
      this.#streams.out.write(formatStructured(result.structuredOutput));
    const colour = result.status === 'success' ? this.#c.dim : this.#c.yellow;
    this.#streams.err.write(`${colour(summaryLine(result))}\n`);
  }

  note(message: string): void {
    this.#clearIdle();
    this.#line(this.#c.dim(message));
    this.#armIdle();
  }

  dispose(): void {
    this.#clearIdle();
    this.#quiet = true;
    this.#pause();
    this.#breakLine();
  }

  /** `✓ call — outcome`, or `✗` for a failed or denied call. */
  #toolLine(call: ToolCall): string {
    const mark = callVerdict(call) === 'failed' || call.denied ? this.#c.red('✗') : this.#c.green('✓');
    return `${mark} ${describeCall(call)} ${this.#c.dim(`— ${describeOutcome(call)}`)}`;
  }

  #flushUnsure(): void {
    const calls = this.#unsure;
    if (calls.length === 0) return;
    this.#unsure = [];
    this.#pause();
    for (const call of calls) this.#line(this.#toolLine(call));
  }

  /**
   * The working spinner, unless something is live: under the answer's open line when there is one on this
   * screen (`out` a terminal too), else on a line of its own.
   */
  #working(): void {
    if (!this.#live) this.#spin(WORKING_LABEL, this.#since);
  }

  #spin(label: string, since: number): void {
    const below = this.#midLine && (this.#streams.out as NodeJS.WriteStream).isTTY === true;
    const spinner = new Spinner(this.#streams.err, label, {
      paint: this.#c.cyan,
      dim: this.#c.dim,
      since,
      below,
    });
    this.#live = { kind: 'work', label, since, spinner };
  }

  /** After a step or a notice with nothing live: the working spinner if nothing else comes within IDLE_MS. */
  #armIdle(): void {
    if (!this.#running || this.#quiet || this.#live) return;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (this.#running && !this.#quiet) this.#working();
    }, IDLE_MS);
    this.#idle.unref();
  }

  #clearIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  #startTool(id: string, label: string): void {
    if (this.#live?.kind === 'tool') {
      this.#line(`${this.#c.cyan('•')} ${label}`);
      return;
    }
    // The working spinner first: it may sit under the open line, which the break then ends.
    this.#pause();
    this.#breakLine();
    const spinner = new Spinner(this.#streams.err, label, {
      paint: this.#c.yellow,
      dim: this.#c.dim,
      since: Date.now(),
    });
    this.#live = { kind: 'tool', id, label, spinner };
  }

  // Text, a notice or a question arrived: the working line goes; a tool's line is frozen so nothing lands in it.
  #pause(): void {
    const live = this.#live;
    if (!live) return;
    this.#live = undefined;
    if (live.kind === 'work') live.spinner.stop();
    else live.spinner.stop(`${this.#c.cyan('•')} ${live.label}`);
  }

  /** A line of its own, never inside the live line: a tool's spinner is redrawn under it, the working one too. */
  #line(text: string): void {
    const live = this.#live;
    if (live?.kind === 'tool') {
      live.spinner.print(text);
      return;
    }
    this.#pause();
    this.#breakLine();
    this.#streams.err.write(`${text}\n`);
    if (live?.kind === 'work') this.#spin(live.label, live.since);
  }

  #breakLine(): void {
    if (!this.#midLine) return;
    this.#streams.out.write('\n');
    this.#midLine = false;
  }
}
