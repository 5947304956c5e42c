// The simulator's HTTP client over node:http (testing/simulator/http-fetch.ts), which its MCP client's Streamable
// HTTP channel uses: against a real server on 127.0.0.1, the body streams as it arrives (SSE), headers and
// statuses come through as sent, a bodiless status has a null body, an abort rejects, and what it cannot send
// is refused by name. The MCP path itself is covered end to end by every own-tool simulator test.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpFetch, headerRecord } from '../../../src/testing/simulator/http-fetch.js';

let server: Server;
let base: string;
/** Per path: what the server does. */
const routes: Record<string, (req: IncomingMessage, body: string, res: ServerResponse) => void> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => routes[req.url ?? '']?.(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the simulator fetch over node:http', () => {
  it('sends method, headers and body, and answers status, headers and JSON as sent', async () => {
    routes['/echo'] = (req, body, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'mcp-session-id': 'abc' });
      res.end(JSON.stringify({ method: req.method, accept: req.headers.accept, body }));
    };
    const { fetch, close } = createHttpFetch();
    try {
      const headers = { Accept: 'application/json, text/event-stream' };
      const res = await fetch(new URL(`${base}/echo`), { method: 'POST', headers, body: '{"id":1}' });
      expect(res.status).toBe(201);
      expect(res.ok).toBe(true);
      expect(res.statusText).toBe('Made');
      expect(res.headers.get('mcp-session-id')).toBe('abc');
      expect(JSON.parse(await res.text())).toEqual({
        method: 'POST',
        accept: 'application/json, text/event-stream',
        body: '{"id":1}',
      });
    } finally {
      close();
    }
  });

  it('sends request headers by lower-cased name (one named in two cases gets both values), and reads response headers in any case', async () => {
    expect(headerRecord({ Accept: 'a', 'X-Two': 'b' })).toEqual({ accept: 'a', 'x-two': 'b' });
    expect(headerRecord({ 'X-Rep': '1', 'x-rep': '2' })).toEqual({ 'x-rep': '1, 2' });
    expect(headerRecord(undefined)).toEqual({});

    routes['/repeat'] = (_req, _body, res) => {
      // Two header lines of one name, and a body whose UTF-8 character is split across two writes.
      res.writeHead(200, [
        ['X-Rep', '1'],
        ['X-Rep', '2'],
        ['Content-Type', 'text/plain'],
      ] as unknown as Record<string, string>);
      const bytes = Buffer.from('é—🌍');
      res.write(bytes.subarray(0, 1));
      setTimeout(() => res.end(bytes.subarray(1)), 5);
    };
    const { fetch, close } = createHttpFetch();
    try {
      const res = await fetch(`${base}/repeat`);
      expect(res.headers.get('X-REP')).toBe('1, 2');
      expect(res.headers.get('Content-Type')).toBe('text/plain');
      expect(res.headers.get('absent')).toBeNull();
      expect(res.url).toBe(`${base}/repeat`);
      expect(res.bodyUsed).toBe(false);
      expect(await res.text()).toBe('é—🌍');
      expect(res.bodyUsed).toBe(true);
      await expect(res.text()).rejects.toThrow(/already been read/);
    } finally {
      close();
    }
  });

  it('streams an SSE body as it arrives, before the response ends', async () => {
    let finish: (() => void) | undefined;
    routes['/sse'] = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: two\n\n');
    };
    const { fetch, close } = createHttpFetch();
    try {
      const res = await fetch(`${base}/sse`, { method: 'GET' });
      expect(res.bodyUsed).toBe(false);
      const chunks = res.body![Symbol.asyncIterator]();
      expect(res.bodyUsed).toBe(true);
      await expect(res.text()).rejects.toThrow(/already been read/);
      const first = await chunks.next();
      expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
      finish!();
      let rest = '';
      for (let r = await chunks.next(); !r.done; r = await chunks.next())
        rest += new TextDecoder().decode(r.value);
      expect(rest).toBe('data: two\n\n');
    } finally {
      close();
    }
  });

  it('an abort in the middle of a streamed body errors the body, nothing else', async () => {
    routes['/sse-open'] = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
    };
    const { fetch, close } = createHttpFetch();
    try {
      const controller = new AbortController();
      const res = await fetch(`${base}/sse-open`, { signal: controller.signal });
      const chunks = res.body![Symbol.asyncIterator]();
      expect(new TextDecoder().decode((await chunks.next()).value)).toBe('data: one\n\n');
      controller.abort();
      await expect(chunks.next()).rejects.toThrow(/abort/i);
    } finally {
      close();
    }
  });

  it('a 202 has no body; an error status is not ok and keeps its text', async () => {
    routes['/accepted'] = (_req, _body, res) => {
      res.writeHead(202);
      res.end();
    };
    routes['/bad'] = (_req, _body, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such session');
    };
    routes['/empty'] = (_req, _body, res) => {
      res.writeHead(204);
      res.end();
    };
    const { fetch, close } = createHttpFetch();
    try {
      expect(await (await fetch(`${base}/accepted`, { method: 'POST', body: '{}' })).text()).toBe('');
      // What the MCP client does with a 202: cancel the body, never read.
      const accepted = await fetch(`${base}/accepted`, { method: 'POST', body: '{}' });
      await accepted.body!.cancel();
      expect(accepted.bodyUsed).toBe(true);
      await expect(accepted.text()).rejects.toThrow(/already been read/);
      const empty = await fetch(`${base}/empty`, { method: 'DELETE' });
      expect(empty.status).toBe(204);
      expect(empty.body).toBeNull();
      const bad = await fetch(`${base}/bad`);
      expect(bad.ok).toBe(false);
      expect(bad.status).toBe(404);
      expect(await bad.text()).toBe('no such session');
    } finally {
      close();
    }
  });

  it('an abort rejects the request; a body it cannot send is refused by name; a refused port rejects', async () => {
    routes['/hang'] = () => {};
    const { fetch, close } = createHttpFetch();
    try {
      const controller = new AbortController();
      const pending = fetch(`${base}/hang`, { method: 'POST', body: '{}', signal: controller.signal });
      controller.abort();
      await expect(pending).rejects.toThrow(/abort/i);
      const aborted = new AbortController();
      aborted.abort(new Error('already gone'));
      await expect(fetch(`${base}/hang`, { signal: aborted.signal })).rejects.toThrow('already gone');
      await expect(
        fetch(`${base}/echo`, { method: 'POST', body: new Blob(['x']) as unknown as string }),
      ).rejects.toThrow(/string and byte bodies only/);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      close();
    }
  });

  it('a request that meets a kept-alive connection the server is closing is sent once more on a new one', async () => {
    // The race of a server's keep-alive timeout (seen in CI: `read ECONNRESET` on a tool call): the server
    // resets a reused connection as the request arrives. Here every connection answers one request and resets
    // on the next.
    let connections = 0;
    let answered = 0;
    const raw = createNetServer((socket: Socket) => {
      connections++;
      let served = false;
      socket.on('data', () => {
        if (served) {
          socket.resetAndDestroy();
          return;
        }
        served = true;
        answered++;
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{"ok":1}',
        );
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;
    const { fetch, close } = createHttpFetch();
    try {
      expect(JSON.parse(await (await fetch(url, { method: 'POST', body: '{}' })).text())).toEqual({ ok: 1 });
      // The second request goes out on the kept-alive socket, is reset, and is sent again on a new one.
      expect(JSON.parse(await (await fetch(url, { method: 'POST', body: '{}' })).text())).toEqual({ ok: 1 });
      expect(answered).toBe(2);
      expect(connections).toBe(2);
    } finally {
      close();
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});
