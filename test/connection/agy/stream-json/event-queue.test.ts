// The queue between an agy process's pipe callbacks and the connection's one consumer (event-queue.ts): items come
// out in push order whether pushed before or while the consumer waits; end() drains, then finishes; a push after
// end() (a watchdog timer firing after the process's exit) is dropped.
import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../../../src/connection/agy/stream-json/event-queue.js';

describe('EventQueue', () => {
  it('hands out items pushed before and while the consumer waits, in order, then drains on end()', async () => {
    const q = new EventQueue<number>();
    q.push(1);
    q.push(2);
    const seen: number[] = [];
    const consumer = (async () => {
      for await (const n of q) seen.push(n);
    })();
    await Promise.resolve();
    q.push(3);
    await new Promise((r) => setImmediate(r));
    q.push(4);
    q.end();
    q.push(5);
    await consumer;
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(q.ended).toBe(true);
    expect(await q.next()).toEqual({ value: undefined, done: true });
  });

  it('ends a consumer that waits on an empty queue', async () => {
    const q = new EventQueue<string>();
    const pending = q.next();
    q.end();
    expect(await pending).toEqual({ value: undefined, done: true });
  });

  it('keeps order across many items queued before the first read (compaction after a drain)', async () => {
    const q = new EventQueue<number>();
    for (let i = 0; i < 1000; i++) q.push(i);
    const first: number[] = [];
    for (let i = 0; i < 1000; i++) first.push(((await q.next()) as IteratorYieldResult<number>).value);
    q.push(1000);
    q.end();
    const rest: number[] = [];
    for await (const n of q) rest.push(n);
    expect(first).toEqual([...Array(1000).keys()]);
    expect(rest).toEqual([1000]);
  });
});
