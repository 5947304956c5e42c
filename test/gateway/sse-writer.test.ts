// The SSE writer's batching (gateway/sse-writer.ts): the chunks of one upstream read leave in few writes (a
// client such as @google/genai pays per write), but the response's first 4 chunks go to the socket at once, so
// the client starts while the gateway translates the rest of a long read; then writes of at most 64 chunks.
// Bytes and order are those of one write per chunk.
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { frameSse, KEEP_ALIVE_CHUNK, SseWriter } from '../../src/gateway/sse-writer.js';

/** A response that records its writes, its header flushes and what `end` was given. */
function recorder() {
  const writes: string[] = [];
  const log = { headerFlushes: 0, uncorks: 0, ends: [] as (string | undefined)[] };
  const res = {
    destroyed: false,
    socket: null,
    writeHead() {},
    flushHeaders() {
      log.headerFlushes++;
    },
    write(chunk: string) {
      writes.push(chunk);
      return true;
    },
    uncork() {
      log.uncorks++;
    },
    end(chunk?: string) {
      log.ends.push(chunk);
    },
  } as unknown as ServerResponse;
  return { res, writes, log };
}

const frame = (i: number) => `data: {"n":${i}}\r\n\r\n`;

/**
 * Answers one request on a real HTTP server with `write`, given an SseWriter and a count of the system calls
 * so far (one `_write` or `_writev` of the socket each); returns the body the client read and the count.
 */
async function onRealSocket(
  write: (writer: SseWriter, count: () => number) => void,
): Promise<{ body: string; syscalls: number }> {
  let syscalls = 0;
  const server = createServer((_req, res) => {
    const socket = res.socket as Socket & {
      _write: (...a: unknown[]) => void;
      _writev: (...a: unknown[]) => void;
    };
    for (const name of ['_write', '_writev'] as const) {
      const original = socket[name].bind(socket);
      socket[name] = (...a: unknown[]) => {
        syscalls++;
        original(...a);
      };
    }
    write(new SseWriter(res, 0), () => syscalls);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, method: 'POST' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    return { body, syscalls };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('SseWriter batches', () => {
  it('first 4 chunks sent at once, then writes of at most 64 chunks, the rest at flush; same bytes in order', () => {
    const { res, writes, log } = recorder();
    const writer = new SseWriter(res, 0);
    writer.batch();
    for (let i = 0; i < 150; i++) writer.writeJson(`{"n":${i}}`);
    // Before the flush: the first 4 chunks (uncorked: sent now) and two full batches have been written.
    expect(writes.map((w) => w.split('\r\n\r\n').length - 1)).toEqual([4, 64, 64]);
    expect(log.uncorks).toBe(1);
    writer.flush();
    expect(writes.map((w) => w.split('\r\n\r\n').length - 1)).toEqual([4, 64, 64, 18]);
    // The batches leave with Node's own uncork at the end of the tick (with the end of the response, if it ends).
    expect(log.uncorks).toBe(1);
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

describe('SseWriter writes', () => {
  it('headers leave with the first chunk, not alone before it', () => {
    const { res, writes, log } = recorder();
    const writer = new SseWriter(res, 0);
    writer.batch();
    for (let i = 0; i < 3; i++) writer.writeJson(`{"n":${i}}`);
    writer.end();
    // `flushHeaders` would write the head at once, in a system call of its own; unflushed, Node sends it with
    // the first chunk (and the rest of that tick's writes).
    expect(log.headerFlushes).toBe(0);
    expect(writes).toEqual([frame(0) + frame(1) + frame(2)]);
    expect(log.ends).toEqual([undefined]);
  });

  it('on a real socket, a short answer written in one tick is one system call, headers included', async () => {
    const { body, syscalls } = await onRealSocket((writer) => {
      writer.batch();
      for (let i = 0; i < 3; i++) writer.writeJson(`{"n":${i}}`);
      writer.end();
    });
    expect(body).toBe(frame(0) + frame(1) + frame(2));
    expect(syscalls).toBe(1);
  });

  it('on a real socket, a long read has its first chunks sent while it is translated, the rest in one system call', async () => {
    let beforeFlush = -1;
    const { body, syscalls } = await onRealSocket((writer, count) => {
      writer.batch();
      for (let i = 0; i < 200; i++) writer.writeJson(`{"n":${i}}`);
      // Node's cork would hold every write until the next tick: count what reached the socket synchronously.
      beforeFlush = count();
      writer.end();
    });
    expect(body).toBe(Array.from({ length: 200 }, (_, i) => frame(i)).join(''));
    // Headers with the first 4 chunks before the flush (Node's cork would hold them to the end of the tick);
    // the other 196 and the end in one system call after it.
    expect(beforeFlush).toBe(1);
    expect(syscalls).toBe(2);
  });

  it('headers alone leave when the hold runs out with nothing to send, or at hold(0)', () => {
    vi.useFakeTimers();
    try {
      const held = recorder();
      const writer = new SseWriter(held.res, 0);
      writer.hold(50);
      expect(held.log.headerFlushes).toBe(0);
      vi.advanceTimersByTime(50);
      expect(held.log.headerFlushes).toBe(1);
      writer.writeJson('{"n":0}');
      writer.end();
      expect(held.log.headerFlushes).toBe(1);
      expect(held.log.ends).toEqual([undefined]);
      const atOnce = recorder();
      new SseWriter(atOnce.res, 0).hold(0);
      expect(atOnce.log.headerFlushes).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an empty stream is the headers and the end, no frame', () => {
    const { res, writes, log } = recorder();
    new SseWriter(res, 0).end();
    expect(writes).toEqual([]);
    expect(log).toEqual({ headerFlushes: 0, uncorks: 0, ends: [undefined] });
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
