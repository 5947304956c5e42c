// The cassette schema check against hostile files, in memory: an `exit` record names only a signal agy can
// end with (a stop signal would freeze the replayer), and the bounds on records, line length, JSON nesting and
// file size are CassetteErrors naming the file, the line and the field.
// Format: docs/guides/testing-your-agent.md#limits-on-files-read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_SIGNALS, parseCassette, parseCassetteWithin } from '../../src/cassette/format.js';
import { INPUT_LIMITS, readInput } from '../../src/cassette/limits.js';
import { CassetteError } from '../../src/errors.js';

const HEADER = JSON.stringify({
  format: 'agy-sdk-cassette',
  version: 1,
  backend: 'agy',
  agy: { version: '1.3.1', args: [] },
  recordedAt: '2026-01-01T00:00:00.000Z',
  sanitized: true,
});
const cassette = (...records: object[]) =>
  [HEADER, JSON.stringify({ t: 0, type: 'spawn', args: [] }), ...records.map((r) => JSON.stringify(r))].join(
    '\n',
  );

function caught(fn: () => unknown): CassetteError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CassetteError);
    return err as CassetteError;
  }
  throw new Error('expected a CassetteError, nothing was thrown');
}

// Made in a hook, not while vitest collects (a `vitest list` must leave nothing behind).
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agy-sdk-format-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('exit records', () => {
  it('refuses a signal agy cannot end with (SIGSTOP, SIGCONT, SIGUSR1, a made-up name)', () => {
    for (const signal of ['SIGSTOP', 'SIGCONT', 'SIGUSR1', 'SIGNOPE']) {
      const e = caught(() => parseCassette(cassette({ t: 1, type: 'exit', code: null, signal }), 'c.jsonl'));
      expect([e.file, e.line, e.field]).toEqual(['c.jsonl', 3, 'signal']);
      expect(e.message).toContain(JSON.stringify(signal));
    }
  });

  it('accepts each signal of the set, and refuses a code beside a signal', () => {
    for (const signal of EXIT_SIGNALS)
      expect(() => parseCassette(cassette({ t: 1, type: 'exit', code: null, signal }))).not.toThrow();
    const e = caught(() => parseCassette(cassette({ t: 1, type: 'exit', code: 0, signal: 'SIGTERM' })));
    expect([e.line, e.field]).toEqual([3, 'code']);
  });
});

describe('input limits', () => {
  const limits = { ...INPUT_LIMITS, records: 3, lineChars: 200, jsonDepth: 8 };
  const close = { t: 0, type: 'close' };

  it('counts records, measures lines and nesting', () => {
    expect(() => parseCassetteWithin(cassette(close, close), 'c', limits)).not.toThrow();
    const many = caught(() => parseCassetteWithin(cassette(close, close, close), 'c', limits));
    expect([many.line, many.field]).toEqual([5, 'record']);
    const long = caught(() =>
      parseCassetteWithin(cassette({ t: 0, type: 'stdout', line: 'x'.repeat(300) }), 'c', limits),
    );
    expect([long.line, long.field]).toEqual([3, 'line']);
    const request = [[[[[[[[[[]]]]]]]]]];
    const deep = caught(() =>
      parseCassetteWithin(
        cassette({ t: 0, type: 'hook', event: 'Stop', request, answer: null, pad: 'x'.repeat(20) }),
        'c',
        limits,
      ),
    );
    expect([deep.line, deep.field]).toEqual([3, 'line']);
    expect(deep.message).toMatch(/deeper than 8 levels/);
  });

  it('reads only a regular file within the size limit', () => {
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, 'x'.repeat(100));
    expect(readInput(file, { ...INPUT_LIMITS, fileBytes: 100 })).toHaveLength(100);
    const big = caught(() => readInput(file, { ...INPUT_LIMITS, fileBytes: 99 }));
    expect([big.file, big.line, big.field]).toEqual([file, 0, 'file']);
    expect(big.message).toMatch(/100 bytes, over the limit of 99 bytes/);
    expect(caught(() => readInput(dir)).message).toMatch(/not a regular file/);
  });
});
