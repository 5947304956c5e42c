/**
 * Off a TTY: no spinner, no colour, no cursor movement. The answer streams to `out` as it arrives; each tool
 * call gives one line on `err` when it starts and one when it ends, so a log reads in order. What came from the
 * model or a tool is printed terminal-safe (a log is read on a terminal later).
 */
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

/** The plain-lines renderer. */
export class PlainRenderer implements TurnRenderer {
  readonly #streams: RenderStreams;
  readonly #streamText: boolean;
  readonly #started = new Set<string>();
  readonly #ended = new Set<string>();
  readonly #text = new TerminalTextFilter();
  /** Calls that ended DONE with nothing to show: agy's soft denial looks the same until the result. */
  #unsure: ToolCall[] = [];
  #midLine = false;

  /** `streamText: false` (with `--schema`) prints only the structured output, not the raw JSON text. */
  constructor(streams: RenderStreams, options: { streamText: boolean }) {
    this.#streams = streams;
    this.#streamText = options.streamText;
  }

  step(step: Step): void {
    const delta = answerDelta(step);
    const text = delta && this.#streamText ? this.#text.push(delta) : '';
    if (text) {
      this.#streams.out.write(text);
      this.#midLine = !text.endsWith('\n');
    }
    const call = step.tool;
    if (!call || step.subagent) return;
    if (!this.#started.has(call.id)) {
      // A new call: agy went on, so an earlier silent call was not the soft denial that ends a turn.
      this.#flushUnsure();
      this.#started.add(call.id);
      this.#line(`[tool] ${describeCall(call)}`);
    }
    if ((call.state === 'DONE' || call.state === 'ERROR') && !this.#ended.has(call.id)) {
      this.#ended.add(call.id);
      if (callVerdict(call) === 'unsure') this.#unsure.push(call);
      else this.#toolEnd(call);
    }
  }

  // Nothing animates off a terminal.
  wait(): void {}

  #toolEnd(call: ToolCall): void {
    const verdict = callVerdict(call);
    this.#line(`[tool ${verdict === 'unsure' ? 'ok' : verdict}] ${call.name}: ${describeOutcome(call)}`);
  }

  #flushUnsure(): void {
    for (const call of this.#unsure) this.#toolEnd(call);
    this.#unsure = [];
  }

  start(): void {}

  end(result: TurnResult, options: { showStructured: boolean }): void {
    this.#text.end();
    this.#breakLine();
    // The result has marked the calls agy soft-denied.
    this.#flushUnsure();
    if (options.showStructured && result.status === 'success')
      this.#streams.out.write(formatStructured(result.structuredOutput));
    this.#streams.err.write(`[done] ${summaryLine(result)}\n`);
  }

  note(message: string): void {
    this.#line(message);
  }

  dispose(): void {
    this.#flushUnsure();
    this.#breakLine();
  }

  #line(text: string): void {
    this.#breakLine();
    this.#streams.err.write(`${text}\n`);
  }

  // Status lines go to another stream; end the answer's line first so the two never share a line on a terminal.
  #breakLine(): void {
    if (!this.#midLine) return;
    this.#streams.out.write('\n');
    this.#midLine = false;
  }
}
