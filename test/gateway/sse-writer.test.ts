// The SSE writer's batching (gateway/sse-writer.ts): the chunks of one upstream read leave in few writes (a
// client such as @google/genai pays per write), but the response's first chunk leaves at once and a long read
// leaves in pieces of at most 64 chunks, so the client reads while the gateway translates. Bytes and order are
// those of one write per chunk.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { frameSse, KEEP_ALIVE_CHUNK, SseWriter } from '../../src/gateway/sse-writer.js';

/** A response that records its writes. */
function recorder() {
  const writes: string[] = [];
  const res = {
    destroyed: false,
    socket: null,
    writeHead() {},
    flushHeaders() {},
    write(chunk: string) {
      writes.push(chunk);
      return true;
    },
    end() {},
  } as unknown as ServerResponse;
  return { res, writes };
}

const frame = (i: number) => `data: {"n":${i}}\r\n\r\n`;

describe('SseWriter batches', () => {
  it('first chunk alone, then writes of at most 64 chunks, the rest at flush; same bytes in order', () => {
    const { res, writes } = recorder();
    const writer = new SseWriter(res, 0);
    writer.batch();
    for (let i = 0; i < 150; i++) writer.writeJson(`{"n":${i}}`);
    // Before the flush: the first chunk and two full batches have left.
    expect(writes.map((w) => w.split('\r\n\r\n').length - 1)).toEqual([1, 64, 64]);
    writer.flush();
    expect(writes.map((w) => w.split('\r\n\r\n').length - 1)).toEqual([1, 64, 64, 21]);
    expect(writes.join('')).toBe(Array.from({ length: 150 }, (_, i) => frame(i)).join(''));
    // A later read's batch holds from its first chunk (the response's first is long gone).
    writer.batch();
    writer.writeJson('{"n":150}');
    expect(writes).toHaveLength(4);
    writer.flush();
    expect(writes.at(-1)).toBe(frame(150));
  });

  it('outside a batch every chunk is its own write', () => {
    const { res, writes } = recorder();
    const writer = new SseWriter(res, 0);
    for (let i = 0; i < 3; i++) writer.writeJson(`{"n":${i}}`);
    expect(writes).toEqual([frame(0), frame(1), frame(2)]);
  });
});

describe('SseWriter keep-alive', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a batch restarts the clock at its flush: silence after it is measured from there, not from its first frame', () => {
    vi.useFakeTimers();
    const { res, writes } = recorder();
    const writer = new SseWriter(res, 1000);
    writer.writeJson('{"n":0}');
    vi.advanceTimersByTime(900);
    // A read's batch (more than one full batch, so some frames leave before the flush).
    writer.batch();
    for (let i = 1; i <= 70; i++) writer.writeJson(`{"n":${i}}`);
    writer.flush();
    vi.advanceTimersByTime(900);
    expect(writes.join('')).not.toContain(frameSse(KEEP_ALIVE_CHUNK));
    vi.advanceTimersByTime(100);
    expect(writes.at(-1)).toBe(frameSse(KEEP_ALIVE_CHUNK));
    // A batch that wrote nothing (the read held no complete event) does not count as output.
    vi.advanceTimersByTime(600);
    writer.batch();
    writer.flush();
    vi.advanceTimersByTime(400);
    expect(writes.filter((w) => w === frameSse(KEEP_ALIVE_CHUNK))).toHaveLength(2);
    writer.end();
    expect(vi.getTimerCount()).toBe(0);
  });
});
