/**
 * Upstream SSE decoding with `eventsource-parser` (a maintained parser, not a hand-rolled splitter): handles
 * CRLF/LF, events split across TCP writes, comments, and Anthropic's `event:` lines.
 *
 * A hostile or broken upstream cannot make it hold unbounded text: a line longer than `maxLineChars`, or an
 * event (the lines up to its blank line) longer than `maxEventChars`, is an `UpstreamTooLargeError`, thrown
 * from `feed` or `end` before the text reaches the parser (whose own buffer would grow until the string
 * limit, `RangeError: Invalid string length`). Lengths are in UTF-16 code units of the decoded body.
 */
import { createParser } from 'eventsource-parser';
import { GatewayError } from '../errors.js';

/** Default longest upstream SSE line or event, in characters: far above any delta, below V8's string limit. */
export const DEFAULT_MAX_UPSTREAM_EVENT_CHARS = 16 * 1024 * 1024;

/** The upstream sent a line or an event over the cap: the stream is ended with this error (a 502). */
export class UpstreamTooLargeError extends GatewayError {
  constructor(what: 'line' | 'event', limit: number) {
    super(502, `upstream sent an SSE ${what} longer than ${limit} characters`, undefined, 'UNAVAILABLE');
    this.name = 'UpstreamTooLargeError';
  }
}

/** A byte-fed SSE decoder. */
export interface SseDecoder {
  /** Feeds a chunk of the body. Throws `UpstreamTooLargeError` past the caps. */
  feed(chunk: string): void;
  /** Flushes a last event that lacked its terminating blank line. */
  end(): void;
}

/** Caps of {@link createSseDecoder}. */
export interface SseDecoderLimits {
  /** Longest line, in characters. */
  maxLineChars?: number | undefined;
  /** Longest event (the characters of its lines, line ends not counted). */
  maxEventChars?: number | undefined;
}

const CARRIAGE_RETURN = /\r/;

/** The index of the next `\r` or `\n` at or after `from`, or -1. */
function nextLineEnd(chunk: string, from: number): number {
  for (let j = from; j < chunk.length; j++) {
    const c = chunk.charCodeAt(j);
    if (c === 10 || c === 13) return j;
  }
  return -1;
}

/** Creates a decoder calling `onEvent(event, data)` per event. */
export function createSseDecoder(
  onEvent: (event: string | undefined, data: string) => void,
  limits: SseDecoderLimits = {},
): SseDecoder {
  const maxLine = limits.maxLineChars ?? DEFAULT_MAX_UPSTREAM_EVENT_CHARS;
  const maxEvent = limits.maxEventChars ?? DEFAULT_MAX_UPSTREAM_EVENT_CHARS;
  const parser = createParser({ onEvent: (e) => onEvent(e.event, e.data) });
  /** Characters of the current line, and of the current event, so far. */
  let line = 0;
  let event = 0;
  /** The last character seen was `\r` (a CRLF's `\n` then ends nothing more). */
  let afterCr = false;
  let broken = false;
  const measure = (chunk: string): void => {
    // Most upstreams end lines with `\n` alone: then `indexOf` finds each line end at memchr speed (a
    // character loop cost about 1.5 µs per event of the xAI recording). A chunk with any `\r` takes the loop.
    // The test is a regex, not `indexOf('\r')`: measured on Node 20, this loop ran about a hundred times slower
    // after a failed `indexOf('\r')` on the same chunk.
    const lfOnly = !CARRIAGE_RETURN.test(chunk);
    let i = 0;
    while (i < chunk.length) {
      const nl = lfOnly ? chunk.indexOf('\n', i) : nextLineEnd(chunk, i);
      const end = nl === -1 ? chunk.length : nl;
      line += end - i;
      event += end - i;
      if (line > maxLine) throw new UpstreamTooLargeError('line', maxLine);
      if (event > maxEvent) throw new UpstreamTooLargeError('event', maxEvent);
      if (end > i) afterCr = false;
      if (nl === -1) return;
      const c = chunk.charCodeAt(nl);
      if (!(c === 10 && afterCr)) {
        // A blank line ends the event; any other line end just ends the line.
        if (line === 0) event = 0;
        line = 0;
      }
      afterCr = c === 13;
      i = nl + 1;
    }
  };
  return {
    feed: (chunk) => {
      if (broken) return;
      try {
        measure(chunk);
      } catch (error) {
        broken = true;
        throw error;
      }
      parser.feed(chunk);
    },
    // A trailing blank line terminates a final event the upstream forgot to terminate.
    end: () => {
      if (!broken) parser.feed('\n\n');
    },
  };
}
