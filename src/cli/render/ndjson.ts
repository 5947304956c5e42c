/**
 * `--json`: one JSON object per line on `out`, for scripts. `{"event":"step",…}` for each normalized step (the
 * public camelCase `Step`, without the wire copy `raw`), then `{"event":"result",…}` with the `TurnResult`
 * (its typed error reduced to `{code, message}`); `{"event":"note",…}` for the CLI's own notices (e.g. Ctrl-C).
 * Nothing else is written to `out`; `JSON.stringify` escapes C0 controls and `jsonLine` the C1 ones, so a
 * line is terminal-safe.
 */
import type { Step, TurnResult } from '../../index.js';
import { jsonLine } from './format.js';
import type { RenderStreams, TurnRenderer } from './renderer.js';

/** The NDJSON renderer. */
export class NdjsonRenderer implements TurnRenderer {
  readonly #streams: RenderStreams;

  constructor(streams: RenderStreams) {
    this.#streams = streams;
  }

  step(step: Step): void {
    const { raw: _raw, ...normalized } = step;
    this.#write({ event: 'step', ...normalized });
  }

  end(result: TurnResult): void {
    const { error, ...rest } = result;
    this.#write({
      event: 'result',
      ...rest,
      ...(error && { error: { code: error.code, message: error.message } }),
    });
  }

  note(message: string): void {
    this.#write({ event: 'note', message });
  }

  // Nothing animates off a terminal.
  wait(): void {}

  start(): void {}

  dispose(): void {}

  #write(value: Record<string, unknown>): void {
    this.#streams.out.write(`${jsonLine(value)}\n`);
  }
}
