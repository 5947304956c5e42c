// Framing rules: agy-cli.md §D.3 "Framing caveat" (split on \n only; raw U+0085/U+2028 inside strings).
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/connection/stream-json/framing.js';

function collect(max = 1024) {
  const lines: string[] = [];
  let overflows = 0;
  const splitter = new LineSplitter({
    maxLineBytes: max,
    onLine: (l) => lines.push(l),
    onOverflow: () => overflows++,
  });
  return { splitter, lines, overflows: () => overflows };
}

describe('LineSplitter', () => {
  it('splits on \\n only, keeping raw U+0085, U+2028, U+2029 and \\r inside lines', () => {
    const { splitter, lines } = collect();
    const a = JSON.stringify({ t: 'a\u0085b\u2028c\u2029d' });
    splitter.push(Buffer.from(`${a}\n{"x":1}\r\n`));
    expect(lines).toEqual([a, '{"x":1}\r']);
    expect(JSON.parse(lines[0]!).t).toBe('a\u0085b\u2028c\u2029d');
  });

  it('decodes a UTF-8 character split across chunks at every byte boundary', () => {
    const text = '{"t":"héllo 🌍 日本"}\n';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length - 1; cut++) {
      const { splitter, lines } = collect();
      splitter.push(bytes.subarray(0, cut));
      splitter.push(bytes.subarray(cut));
      expect(lines).toEqual([text.slice(0, -1)]);
    }
  });

  it('joins a line delivered one byte at a time', () => {
    const { splitter, lines } = collect();
    for (const b of Buffer.from('{"a":"ü"}\n{"b":2}\n')) splitter.push(Buffer.from([b]));
    expect(lines).toEqual(['{"a":"ü"}', '{"b":2}']);
  });

  it('drops an over-long line with bounded memory, reports it once, and recovers on the next line', () => {
    const { splitter, lines, overflows } = collect(16);
    splitter.push(Buffer.from('x'.repeat(10)));
    splitter.push(Buffer.from('y'.repeat(10)));
    splitter.push(Buffer.from('z'.repeat(100)));
    splitter.push(Buffer.from('tail\nok\n'));
    expect(overflows()).toBe(1);
    expect(lines).toEqual(['ok']);
  });

  it('drops an over-long line that arrives in a single chunk', () => {
    const { splitter, lines, overflows } = collect(4);
    splitter.push(Buffer.from('123456789\nabc\n'));
    expect(overflows()).toBe(1);
    expect(lines).toEqual(['abc']);
  });

  it('returns a truncated last line from end()', () => {
    const { splitter, lines } = collect();
    splitter.push(Buffer.from('{"a":1}\n{"b":'));
    expect(lines).toEqual(['{"a":1}']);
    expect(splitter.end()).toBe('{"b":');
    expect(splitter.end()).toBeUndefined();
  });
});
