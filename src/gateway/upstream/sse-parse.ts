/**
 * Upstream SSE decoding with `eventsource-parser` (a maintained parser, not a hand-rolled splitter): handles
 * CRLF/LF, events split across TCP writes, comments, and Anthropic's `event:` lines.
 */
import { createParser } from 'eventsource-parser';

/** A byte-fed SSE decoder. */
export interface SseDecoder {
  /** Feeds a chunk of the body. */
  feed(chunk: string): void;
  /** Flushes a last event that lacked its terminating blank line. */
  end(): void;
}

/** Creates a decoder calling `onEvent(event, data)` per event. */
export function createSseDecoder(onEvent: (event: string | undefined, data: string) => void): SseDecoder {
  const parser = createParser({ onEvent: (e) => onEvent(e.event, e.data) });
  return {
    feed: (chunk) => parser.feed(chunk),
    // A trailing blank line terminates a final event the upstream forgot to terminate.
    end: () => parser.feed('\n\n'),
  };
}
