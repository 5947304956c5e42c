/**
 * On a terminal: the answer streams as it arrives; each tool call is a live status line with a spinner that
 * ends as ✓ or ✗ with a short result; the turn ends with a dim status · duration · usage line. Colour is off
 * under `NO_COLOR` (checked by `useColor`).
 */
import { createSpinner, type Spinner } from 'nanospinner';
import { createColors } from 'picocolors';
import type { Step, TurnResult } from '../../index.js';
import { answerDelta, describeCall, describeOutcome, formatStructured, summaryLine } from './format.js';
import type { RenderStreams, TurnRenderer } from './renderer.js';

/** True when colour should be used on `stream`: a TTY and no `NO_COLOR` (any value, per no-color.org). */
export function useColor(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return (stream as NodeJS.WriteStream).isTTY === true;
}

/** The terminal renderer. */
export class TtyRenderer implements TurnRenderer {
  readonly #streams: RenderStreams;
  readonly #streamText: boolean;
  readonly #c: ReturnType<typeof createColors>;
  readonly #seen = new Set<string>();
  readonly #ended = new Set<string>();
  /** The one live spinner (agy runs tools one after another); a call started meanwhile gets a static line. */
  #spinner: { id: string; spinner: Spinner } | undefined;
  #midLine = false;

  constructor(streams: RenderStreams, options: { streamText: boolean; color: boolean }) {
    this.#streams = streams;
    this.#streamText = options.streamText;
    this.#c = createColors(options.color);
  }

  step(step: Step): void {
    const delta = answerDelta(step);
    if (delta && this.#streamText) {
      this.#pauseSpinner();
      this.#streams.out.write(delta);
      this.#midLine = !delta.endsWith('\n');
    }
    const call = step.tool;
    if (!call || step.subagent) return;
    const finished = call.state === 'DONE' || call.state === 'ERROR';
    if (!this.#seen.has(call.id)) {
      this.#seen.add(call.id);
      if (!finished) this.#startSpinner(call.id, describeCall(call));
    }
    if (!finished || this.#ended.has(call.id)) return;
    this.#ended.add(call.id);
    const ok = call.state !== 'ERROR';
    const text = `${describeCall(call)} ${this.#c.dim(`— ${describeOutcome(call)}`)}`;
    const mark = ok ? this.#c.green('✓') : this.#c.red('✗');
    if (this.#spinner?.id === call.id) {
      const { spinner } = this.#spinner;
      this.#spinner = undefined;
      if (ok) spinner.success({ text, mark });
      else spinner.error({ text, mark });
    } else {
      this.#line(`${mark} ${text}`);
    }
  }

  end(result: TurnResult, options: { showStructured: boolean }): void {
    this.dispose();
    if (options.showStructured && result.status === 'success')
      this.#streams.out.write(formatStructured(result.structuredOutput));
    const colour = result.status === 'success' ? this.#c.dim : this.#c.yellow;
    this.#streams.err.write(`${colour(summaryLine(result))}\n`);
  }

  note(message: string): void {
    this.#pauseSpinner();
    this.#line(this.#c.dim(message));
  }

  dispose(): void {
    this.#pauseSpinner();
    this.#breakLine();
  }

  #startSpinner(id: string, label: string): void {
    this.#breakLine();
    if (this.#spinner) {
      this.#line(`${this.#c.cyan('•')} ${label}`);
      return;
    }
    const spinner = createSpinner(label, { stream: this.#streams.err as NodeJS.WriteStream }).start();
    this.#spinner = { id, spinner };
  }

  // Text (or a notice) arrived while a tool spun: freeze its line so the text does not land inside it.
  #pauseSpinner(): void {
    if (!this.#spinner) return;
    this.#spinner.spinner.stop({ mark: this.#c.cyan('•') });
    this.#spinner = undefined;
  }

  #line(text: string): void {
    this.#breakLine();
    this.#streams.err.write(`${text}\n`);
  }

  #breakLine(): void {
    if (!this.#midLine) return;
    this.#streams.out.write('\n');
    this.#midLine = false;
  }
}
