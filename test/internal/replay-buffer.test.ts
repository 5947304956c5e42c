// The buffer behind ChatResponse's iterators: independent cursors with async-generator semantics.
import { describe, expect, it } from 'vitest';
import { ReplayBuffer } from '../../src/internal/replay-buffer.js';

describe('ReplayBuffer cursors', () => {
  it('a late cursor sees every item; a waiting one is woken by push and ends at close', async () => {
    const buffer = new ReplayBuffer<number>();
    buffer.push(1);
    const early = buffer.cursor();
    expect(await early.next()).toEqual({ done: false, value: 1 });
    const waiting = early.next();
    buffer.push(2);
    expect(await waiting).toEqual({ done: false, value: 2 });
    buffer.close();
    expect(await early.next()).toEqual({ done: true, value: undefined });
    const late: number[] = [];
    for await (const n of buffer.cursor()) late.push(n);
    expect(late).toEqual([1, 2]);
  });

  it('answers concurrent next() calls in call order', async () => {
    const buffer = new ReplayBuffer<string>();
    const cursor = buffer.cursor();
    const calls = [cursor.next(), cursor.next(), cursor.next()];
    buffer.push('a');
    buffer.push('b');
    buffer.close();
    expect(await Promise.all(calls)).toEqual([
      { done: false, value: 'a' },
      { done: false, value: 'b' },
      { done: true, value: undefined },
    ]);
  });

  it('select skips what its pick maps to undefined', async () => {
    const buffer = new ReplayBuffer<number>();
    const odd = buffer.select((n) => (n % 2 ? `#${n}` : undefined));
    for (const n of [1, 2, 3, 4]) buffer.push(n);
    buffer.close();
    const seen: string[] = [];
    for await (const s of odd) seen.push(s);
    expect(seen).toEqual(['#1', '#3']);
  });

  it('return() ends a cursor and settles its pending call; throw() ends it and rejects; others go on', async () => {
    const buffer = new ReplayBuffer<number>();
    const stopped = buffer.cursor();
    const pending = stopped.next();
    expect(await stopped.return()).toEqual({ done: true, value: undefined });
    expect(await pending).toEqual({ done: true, value: undefined });
    const thrown = buffer.cursor();
    await expect(thrown.throw(new Error('boom'))).rejects.toThrow('boom');
    expect(await thrown.next()).toEqual({ done: true, value: undefined });
    const other = buffer.cursor();
    buffer.push(7);
    expect(await other.next()).toEqual({ done: false, value: 7 });
    expect(await stopped.next()).toEqual({ done: true, value: undefined });
  });

  it('breaking out of for-await leaves the buffer readable by other cursors', async () => {
    const buffer = new ReplayBuffer<number>();
    for (const n of [1, 2, 3]) buffer.push(n);
    for await (const n of buffer.cursor()) if (n === 2) break;
    buffer.close();
    const all: number[] = [];
    for await (const n of buffer.cursor()) all.push(n);
    expect(all).toEqual([1, 2, 3]);
  });
  it('wakes one waiting cursor per push, and several at once, each item once, while they wait again', async () => {
    const buffer = new ReplayBuffer<number>();
    const lone: number[] = [];
    // One waiter (the single-waiter wake path): it waits again from inside each wake-up.
    const loneDone = (async () => {
      for await (const n of buffer.cursor()) lone.push(n);
    })();
    for (const n of [1, 2, 3]) {
      buffer.push(n);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(lone).toEqual([1, 2, 3]);
    // Two more waiters join: three are woken by each push from now on.
    const a: number[] = [];
    const b: number[] = [];
    const aDone = (async () => {
      for await (const n of buffer.cursor()) a.push(n);
    })();
    const bDone = (async () => {
      for await (const n of buffer.select((n) => (n % 2 ? n : undefined))) b.push(n);
    })();
    for (const n of [4, 5]) {
      buffer.push(n);
      await new Promise((resolve) => setImmediate(resolve));
    }
    buffer.close();
    await Promise.all([loneDone, aDone, bDone]);
    expect(lone).toEqual([1, 2, 3, 4, 5]);
    expect(a).toEqual([1, 2, 3, 4, 5]);
    expect(b).toEqual([1, 3, 5]);
  });
});
