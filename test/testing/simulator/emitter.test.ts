/**
 * The simulator's writer: lines reach stdout in call order whether or not the caller waits for each, one at a
 * time; a failed write rejects its caller and does not stall the lines after it; `flush()` waits for everything
 * queued; Go's HTML-safe escaping (agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script:
 * `\u003e`) leaves other lines as they are.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { delay, TurnAborted } from '../../../src/testing/simulator/abort.js';
import { Emitter, goEscape } from '../../../src/testing/simulator/emitter.js';

/** A stdout that records what reached it; each write completes on a later turn of the event loop. */
function recorder() {
  const written: string[] = [];
  /** Bytes the stream held beyond the chunk being written: more means lines were handed over unasked. */
  let maxBuffered = 0;
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      maxBuffered = Math.max(maxBuffered, out.writableLength - chunk.length);
      setImmediate(() => {
        written.push(chunk.toString());
        callback();
      });
    },
  });
  return { out, written, maxBuffered: () => maxBuffered };
}

describe('Emitter', () => {
  it('writes lines in call order, awaited one by one or queued all at once', async () => {
    const { out, written, maxBuffered } = recorder();
    const emitter = new Emitter(out, out);
    await emitter.line({ n: 1 });
    await emitter.raw('two\n');
    const queued = [emitter.line({ n: 3 }), emitter.raw('four\n'), emitter.line({ n: 5 })];
    await emitter.raw('six\n');
    await Promise.all(queued);
    expect(written).toEqual(['{"n":1}\n', 'two\n', '{"n":3}\n', 'four\n', '{"n":5}\n', 'six\n']);
    // Each line waited for the one before to reach the OS (a slow reader throttles the simulator).
    expect(maxBuffered()).toBe(0);
  });

  it('a failed write rejects its caller; the next line is still tried (its caller told of the broken stream) and flush() settles', async () => {
    const out = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        callback(chunk.toString() === 'bad\n' ? new Error('EPIPE') : null);
      },
    });
    // The stream's own 'error' is the failed write's: its caller is told through the promise.
    out.on('error', () => {});
    const emitter = new Emitter(out, out);
    const bad = emitter.raw('bad\n');
    const after = emitter.raw('after\n');
    await expect(bad).rejects.toThrow('EPIPE');
    // A destroyed stream fails every later write too; each caller hears of it, none hangs.
    await expect(after).rejects.toThrow();
    await expect(emitter.flush()).resolves.toBeUndefined();
  });

  it('flush() waits for every queued line', async () => {
    const { out, written } = recorder();
    const emitter = new Emitter(out, out);
    for (let i = 0; i < 5; i++) void emitter.raw(`${i}\n`);
    await emitter.flush();
    expect(written).toHaveLength(5);
  });
});

describe('goEscape', () => {
  it('escapes <, > and & as Go does and returns other lines unchanged', () => {
    expect(goEscape('{"a":"<b> & c"}')).toBe('{"a":"\\u003cb\\u003e \\u0026 c"}');
    const plain = '{"a":"plain text"}';
    expect(goEscape(plain)).toBe(plain);
  });
});

describe('delay', () => {
  it('an abort rejects every delay pending on the turn, with the reason; one that ended stays resolved', async () => {
    const controller = new AbortController();
    await expect(delay(1, controller.signal)).resolves.toBeUndefined();
    const pending = [delay(60_000, controller.signal), delay(60_000, controller.signal)];
    controller.abort('interrupt');
    for (const p of pending) {
      const error = await p.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TurnAborted);
      expect((error as TurnAborted).reason).toBe('interrupt');
    }
    // An aborted turn refuses new delays at once.
    expect(() => delay(1, controller.signal)).toThrow(TurnAborted);
  });
});
