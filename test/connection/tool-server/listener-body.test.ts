// readBody over real HTTP on 127.0.0.1: a body in one chunk, in several (a UTF-8 character split between two),
// over the limit while streaming, a client gone mid-body, and an error on the request after it settled.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type BodyResult, readBody } from '../../../src/connection/tool-server/listener-body.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Seen {
  /** Settles with what readBody gave the server's request. */
  outcome: Promise<{ result?: BodyResult; error?: Error; req: IncomingMessage }>;
  /** Resolves at the request's nth 'data' event (1-based), counted after readBody's own listener. */
  chunk(n: number): Promise<void>;
}

/** A server whose one request is read by readBody with `maxBytes`; answers 204 once it settles. */
async function serve(maxBytes: number): Promise<{ port: number; seen: Seen }> {
  let settle!: (v: { result?: BodyResult; error?: Error; req: IncomingMessage }) => void;
  const outcome = new Promise<{ result?: BodyResult; error?: Error; req: IncomingMessage }>((r) => {
    settle = r;
  });
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let chunks = 0;
  const server: Server = createServer((req, res) => {
    const reading = readBody(req, maxBytes, req.headers['content-length']);
    req.on('data', () => {
      chunks++;
      for (const w of waiters.filter((x) => x.n <= chunks)) w.resolve();
    });
    reading.then(
      (result) => {
        settle({ result, req });
        res.writeHead(204).end();
      },
      (error: Error) => settle({ error, req }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as { port: number }).port;
  const chunk = (n: number) =>
    n <= chunks ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }));
  return { port, seen: { outcome, chunk } };
}

/** A raw socket sending a chunked POST's head. */
async function chunkedPost(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  cleanups.push(async () => {
    socket.destroy();
  });
  socket.write(`POST /x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\n`);
  return socket;
}

const chunkOf = (bytes: Buffer) =>
  Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);

describe('readBody', () => {
  it('returns a one-chunk body byte for byte', async () => {
    const { port, seen } = await serve(1024);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { text: 'é🌍' } });
    const res = await fetch(`http://127.0.0.1:${port}/x`, { method: 'POST', body });
    expect(res.status).toBe(204);
    const { result } = await seen.outcome;
    expect(result?.ok).toBe(true);
    expect(result?.ok && result.body.toString('utf8')).toBe(body);
  });

  it('joins a body that arrives in several chunks, a UTF-8 character split between two', async () => {
    const { port, seen } = await serve(1024);
    const text = Buffer.from('{"text":"a🌍b"}');
    const cut = text.indexOf(0xf0) + 2; // inside the 4-byte emoji
    const socket = await chunkedPost(port);
    socket.write(chunkOf(text.subarray(0, cut)));
    await seen.chunk(1);
    socket.write(chunkOf(text.subarray(cut)));
    await seen.chunk(2);
    socket.write('0\r\n\r\n');
    const { result } = await seen.outcome;
    expect(result?.ok && result.body.equals(text)).toBe(true);
    expect(result?.ok && JSON.parse(result.body.toString('utf8'))).toEqual({ text: 'a🌍b' });
  });

  it('gives up at the first chunk over the limit and keeps that answer whatever follows', async () => {
    const { port, seen } = await serve(10);
    const socket = await chunkedPost(port);
    socket.write(chunkOf(Buffer.from('12345678')));
    await seen.chunk(1);
    socket.write(chunkOf(Buffer.from('90ab')));
    const { result, req } = await seen.outcome;
    expect(result).toEqual({ ok: false, reason: 'too_large' });
    // Reading stopped: the request is paused, not drained into memory.
    expect(req.isPaused()).toBe(true);
  });

  it('rejects when the client goes away mid-body', async () => {
    const { port, seen } = await serve(1024);
    const socket = await chunkedPost(port);
    socket.write(chunkOf(Buffer.from('{"half":')));
    await seen.chunk(1);
    socket.destroy();
    const { error, result } = await seen.outcome;
    expect(result).toBeUndefined();
    // Node's own 'aborted' error when it sees the reset, or our message when 'close' comes first.
    expect(error?.message).toMatch(/^(aborted|request aborted before its body was complete)$/);
  });

  it('takes an error on the request after it settled without throwing or changing the answer', async () => {
    const { port, seen } = await serve(1024);
    const res = await fetch(`http://127.0.0.1:${port}/x`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(204);
    const { result, req } = await seen.outcome;
    // With no 'error' listener this emit would throw; the settled reader still listens and ignores it.
    expect(() => req.emit('error', new Error('late'))).not.toThrow();
    expect(result?.ok && result.body.toString('utf8')).toBe('{}');
  });
});
