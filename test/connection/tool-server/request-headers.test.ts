import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenerHeaders } from '../../../src/connection/tool-server/request-headers.js';

/** What `req.headers` says of the same names: the behaviour `listenerHeaders` must match. */
function fromNode(req: IncomingMessage) {
  const h = req.headers;
  return {
    host: h.host,
    origin: h.origin,
    accept: h.accept,
    contentType: h['content-type'],
    contentLength: h['content-length'],
    protocolVersion: h['mcp-protocol-version'] as string | undefined,
  };
}

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    // Ours first: `req.headers` is built lazily, and ours must not depend on it having been.
    const ours = listenerHeaders(req);
    const node = fromNode(req);
    req.resume();
    req.on('end', () => res.end(JSON.stringify({ ours, node })));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Sends `head` (request line and header lines) as raw bytes; returns both readings. */
function ask(head: string[]): Promise<{ ours: Record<string, unknown>; node: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => {
      data += c;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      if (!data.startsWith('HTTP/1.1 200')) return reject(new Error(`not answered: ${data.slice(0, 40)}`));
      const body = data.slice(data.indexOf('\r\n\r\n') + 4);
      resolve(JSON.parse(body));
    });
    socket.end(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n`);
  });
}

describe('listenerHeaders: the listener’s headers from rawHeaders, as req.headers reads them', () => {
  it('reads agy’s MCP POST headers, whatever their case', async () => {
    const { ours, node } = await ask([
      'POST /x HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'ACCEPT: application/json, text/event-stream',
      'mcp-protocol-version: 2025-06-18',
      'User-Agent: Go-http-client/1.1',
      'Content-Length: 0',
    ]);
    expect(ours).toEqual(node);
    expect(ours.accept).toBe('application/json, text/event-stream');
    expect(ours.protocolVersion).toBe('2025-06-18');
    expect(ours.origin).toBeUndefined();
  });

  it('merges duplicates as Node does: first Host and Content-Type win; Accept, Origin, the version join', async () => {
    const { ours, node } = await ask([
      'POST /x HTTP/1.1',
      'Host: 127.0.0.1:1',
      'host: evil.example:1',
      'Content-Type: application/json',
      'content-type: text/plain',
      'Accept: application/json',
      'accept: text/event-stream',
      'Origin: http://127.0.0.1:1',
      'Origin: http://evil.example',
      'Mcp-Protocol-Version: 2025-06-18',
      'MCP-PROTOCOL-VERSION: 1999-01-01',
      'Content-Length: 0',
    ]);
    expect(ours).toEqual(node);
    expect(ours.host).toBe('127.0.0.1:1');
    expect(ours.origin).toBe('http://127.0.0.1:1, http://evil.example');
    expect(ours.protocolVersion).toBe('2025-06-18, 1999-01-01');
  });

  it('leaves out what was not sent, and names of a wanted length that are not wanted', async () => {
    const { ours, node } = await ask([
      // HTTP/1.0: Node refuses an HTTP/1.1 request without a Host.
      'GET / HTTP/1.0',
      'Hots: 127.0.0.1:1',
      'Accept-Encoding: gzip',
      'X-Content-Type: text/plain',
      'Content-Lengthy: 5',
    ]);
    expect(ours).toEqual(node);
    expect(Object.values(ours).every((v) => v === undefined)).toBe(true);
  });
});
