/** Picks the output mode once per command: `--json`, else the TTY renderer on a terminal, else plain lines. */
import { NdjsonRenderer } from './ndjson.js';
import { PlainRenderer } from './plain.js';
import type { RenderStreams, TurnRenderer } from './renderer.js';
import { TtyRenderer, useColor } from './tty.js';

/** How to render. */
export interface RenderMode {
  /** `--json`. */
  json: boolean;
  /** False with `--schema`: print the validated structured output instead of the raw JSON text. */
  streamText: boolean;
}

/** The renderer for `mode` on `streams`. */
export function pickRenderer(mode: RenderMode, streams: RenderStreams): TurnRenderer {
  if (mode.json) return new NdjsonRenderer(streams);
  const tty = (streams.err as NodeJS.WriteStream).isTTY === true && process.env.TERM !== 'dumb';
  if (!tty) return new PlainRenderer(streams, { streamText: mode.streamText });
  return new TtyRenderer(streams, { streamText: mode.streamText, color: useColor(streams.err) });
}
