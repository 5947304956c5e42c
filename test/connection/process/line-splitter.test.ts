// Framing rules: docs/reference/stream-json.md#framing (split on \n only; raw U+0085/U+2028 inside strings).
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../src/connection/process/line-splitter.js';

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

  it("tells a dropped line's first 64 bytes, however it was chunked", () => {
    const line = `{"event":"result","result":{"response":"${'x'.repeat(300)}"}}`;
    for (const cut of [1, 10, 63, 64, 65, 200]) {
      const heads: string[] = [];
      const lines: string[] = [];
      const splitter = new LineSplitter({
        maxLineBytes: 100,
        onLine: (l) => lines.push(l),
        onOverflow: (head) => heads.push(head),
      });
      const bytes = Buffer.from(`${line}\n{"ok":1}\n`);
      splitter.push(bytes.subarray(0, cut));
      splitter.push(bytes.subarray(cut));
      expect(heads).toEqual([line.slice(0, 64)]);
      expect(lines).toEqual(['{"ok":1}']);
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

  it('keeps a 4 MiB line arriving one byte per chunk at about one byte per pending byte', () => {
    const size = 4 * 1024 * 1024;
    const { splitter, lines } = collect(64 * 1024 * 1024);
    const x = Buffer.from('x');
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    splitter.push(Buffer.from('{"t":"'));
    let worst = 0;
    for (let i = 0; i < size; i++) {
      splitter.push(x);
      // Checked at every power of two and at the end: capacity never runs ahead of twice what is pending.
      if ((i & (i - 1)) === 0 || i === size - 1) {
        worst = Math.max(worst, splitter.pendingCapacity / Math.max(splitter.pendingBytes, 4096));
      }
    }
    const pending = splitter.pendingBytes;
    const heapAfter = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    expect(pending).toBe(size + 6);
    expect(worst).toBeLessThanOrEqual(2);
    expect(splitter.pendingCapacity).toBeLessThanOrEqual(2 * pending);
    // Loose: the old chunk list cost ~86 B per pending byte (~344 MiB here); one buffer costs ~1-2 B.
    expect(heapAfter - heapBefore).toBeLessThan(48 * 1024 * 1024);
    splitter.push(Buffer.from('"}\n'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBe(size + 8);
    expect(JSON.parse(lines[0]!).t.length).toBe(size);
    // A huge line's buffer is released once the line is delivered.
    expect(splitter.pendingCapacity).toBe(0);
  });

  it('never grows the pending buffer past maxLineBytes, and overflows one byte later', () => {
    const { splitter, lines, overflows } = collect(5000);
    for (let i = 0; i < 5000; i++) splitter.push(Buffer.from('a'));
    expect(splitter.pendingBytes).toBe(5000);
    expect(splitter.pendingCapacity).toBeLessThanOrEqual(5000);
    splitter.push(Buffer.from('a'));
    expect(overflows()).toBe(1);
    expect(splitter.pendingCapacity).toBe(0);
    splitter.push(Buffer.from('\nok\n'));
    expect(lines).toEqual(['ok']);
  });

  it('delivers lines intact whatever the chunking (fuzzed chunk sizes)', () => {
    const text = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, s: 'é🌍'.repeat(i % 37) })).join(
      '\n',
    );
    const bytes = Buffer.from(`${text}\n`);
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let round = 0; round < 20; round++) {
      const { splitter, lines } = collect(1 << 20);
      for (let off = 0; off < bytes.length; ) {
        const n = 1 + (next() % 700);
        splitter.push(bytes.subarray(off, off + n));
        off += n;
      }
      expect(lines).toEqual(text.split('\n'));
    }
  });
});
