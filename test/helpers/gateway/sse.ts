/**
 * A small, strict SSE reader for test assertions (WHATWG event-stream rules: CRLF, LF or CR line ends; `data:`
 * lines joined by `\n`; one optional space after the colon; comments ignored). Used to check what the mocks and
 * the fake Gemini endpoint put on the wire, independently of the parsers under test.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field, when present. */
  event?: string;
  data: string;
}

/** Parses a whole SSE body. A trailing event without its blank line is dropped, as a browser would. */
export function readSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  let data: string[] = [];
  let name: string | undefined;
  const lines = body.split(/\r\n|\r|\n/);
  // The last element is what follows the final line end: an unterminated line, never dispatched.
  lines.pop();
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0)
        events.push(name === undefined ? { data: data.join('\n') } : { event: name, data: data.join('\n') });
      data = [];
      name = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') name = value;
  }
  return events;
}
