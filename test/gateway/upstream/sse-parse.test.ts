// The gateway's upstream SSE decoder caps (docs/reference/gateway-checklist.md#hostile-peers): a line or an
// event over the cap is an UpstreamTooLargeError before the parser buffers it; at the cap it still decodes.
import { describe, expect, it } from 'vitest';
import { createSseDecoder, UpstreamTooLargeError } from '../../../src/gateway/upstream/sse-parse.js';

function decode(chunks: string[], max: number): string[] {
  const got: string[] = [];
  const d = createSseDecoder((_e, data) => got.push(data), { maxLineChars: max, maxEventChars: max });
  for (const c of chunks) d.feed(c);
  d.end();
  return got;
}

describe('SSE decoder caps', () => {
  it('a line of exactly the cap decodes, split across chunks, with LF or CRLF', () => {
    const data = 'a'.repeat(1000 - 'data: '.length);
    expect(decode([`data: ${data.slice(0, 10)}`, `${data.slice(10)}\r\n\r\n`], 1000)).toEqual([data]);
    expect(decode([`data: ${data}\n\n`, `data: ${data}\n\n`], 1000)).toEqual([data, data]);
  });

  it('one character more is refused, also when the line never ends', () => {
    expect(() => decode([`data: ${'a'.repeat(1000)}`], 1000)).toThrow(UpstreamTooLargeError);
    expect(() => decode(['data: ', 'a'.repeat(995)], 1000)).toThrow(/SSE line longer than 1000/);
  });

  it('an event of many lines over the cap is refused; short events each start the count again', () => {
    expect(() => decode(['data: x\n'.repeat(200)], 1000)).toThrow(/SSE event longer than 1000/);
    expect(decode(['data: x\r\n\r\n'.repeat(500)], 1000)).toHaveLength(500);
  });
});
