import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionListener } from '../../../src/connection/tool-server/listener.js';
import { tool } from '../../../src/tools/tool.js';
import { captureLogger } from '../../helpers/listener.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

let userCodeRan = 0;
const echo = tool(
  { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
  ({ text }) => {
    userCodeRan += 1;
    return text;
  },
);

async function start(options: Parameters<typeof SessionListener.start>[0] = {}) {
  const logger = captureLogger();
  const listener = await SessionListener.start({
    logger,
    mcpServers: { tools: [echo] },
    hooks: {
      answer: async () => {
        userCodeRan += 1;
        return { decision: 'allow' };
      },
    },
    ...options,
  });
  cleanups.push(() => listener.close());
  return { listener, logger };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request with full control of the target and the Host header. */
function raw(
  port: number,
  options: { path: string; method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'POST',
        setHost: false,
        headers: { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const mcpHeaders = { Accept: 'application/json, text/event-stream' };

describe('SessionListener request screening', () => {
  it('serves a plain POST with the right token and host (baseline)', async () => {
    const { listener } = await start();
    const res = await fetch(listener.mcpUrl('tools'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...mcpHeaders },
      body: initialize,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'tools' } } });
  });

  it('answers 202 to a notification, without any session id', async () => {
    const { listener } = await start();
    const res = await fetch(listener.mcpUrl('tools'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...mcpHeaders },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('answers the same 404 to a wrong token, a missing token and an unknown path', async () => {
    const { listener } = await start();
    const base = `http://127.0.0.1:${listener.port}`;
    const wrongToken = `${base}/${'A'.repeat(43)}/mcp/tools`;
    const shortToken = `${base}/abc/mcp/tools`;
    const missingToken = `${base}/mcp/tools`;
    const unknownServer = listener.url('mcp/nope');
    const unknownKind = listener.url('admin/tools');
    const extraSegment = listener.url('mcp/tools/extra');
    const tokenOnly = listener.url('');
    const root = `${base}/`;
    const bodies = new Set<string>();
    for (const url of [
      wrongToken,
      shortToken,
      missingToken,
      unknownServer,
      unknownKind,
      extraSegment,
      tokenOnly,
      root,
    ]) {
      const res = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
      expect(res.status, url.replace(listener.token, '<token>')).toBe(404);
      bodies.add(await res.text());
    }
    expect([...bodies]).toEqual(['{"error":"Not Found"}']);
    expect(userCodeRan).toBe(0);
  });

  it('rejects path traversal and encoded slashes in names with 404', async () => {
    const { listener } = await start();
    const token = listener.token;
    for (const path of [
      `/${token}/mcp/..%2f..`,
      `/${token}/mcp/..%2F..%2Fetc%2Fpasswd`,
      `/${token}/mcp/%2e%2e`,
      `/${token}/mcp/tools%2f..`,
      `/${token}/mcp/../mcp/tools`,
      `/${token}/hook/..%2fPreToolUse`,
      `/${token}/hook/Pre.ToolUse`,
      `/${token}//mcp/tools`,
      `/${token}/mcp/tools/`,
      `/${token}/mcp/${'a'.repeat(65)}`,
      `/x/../${token}/mcp/tools`,
    ]) {
      const res = await raw(listener.port, { path, headers: mcpHeaders, body: initialize });
      expect(res.status, path.replace(token, '<token>')).toBe(404);
    }
    expect(userCodeRan).toBe(0);
  });

  it('rejects a non-loopback Host header with 403 (DNS rebinding)', async () => {
    const { listener } = await start();
    const path = `/${listener.token}/mcp/tools`;
    for (const host of [
      'evil.example',
      `evil.example:${listener.port}`,
      `127.0.0.1:${listener.port + 1}`,
      '127.0.0.1',
    ]) {
      const res = await raw(listener.port, {
        path,
        headers: { Host: host, ...mcpHeaders },
        body: initialize,
      });
      expect(res.status, host).toBe(403);
    }
    for (const host of [
      `localhost:${listener.port}`,
      `[::1]:${listener.port}`,
      `LOCALHOST:${listener.port}`,
    ]) {
      const res = await raw(listener.port, {
        path,
        headers: { Host: host, ...mcpHeaders },
        body: initialize,
      });
      expect(res.status, host).toBe(200);
    }
    expect(userCodeRan).toBe(0);
  });

  it('rejects a foreign Origin with 403 and accepts its own', async () => {
    const { listener } = await start();
    const path = `/${listener.token}/mcp/tools`;
    const foreign = await raw(listener.port, {
      path,
      headers: { Origin: 'http://evil.example', ...mcpHeaders },
      body: initialize,
    });
    expect(foreign.status).toBe(403);
    const own = await raw(listener.port, {
      path,
      headers: { Origin: `http://127.0.0.1:${listener.port}`, ...mcpHeaders },
      body: initialize,
    });
    expect(own.status).toBe(200);
  });

  it('answers 405 to GET, DELETE and PUT on a valid path, but 404 with a wrong token', async () => {
    const { listener } = await start();
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const mcp = await raw(listener.port, {
        path: `/${listener.token}/mcp/tools`,
        method,
        headers: mcpHeaders,
      });
      expect(mcp.status, method).toBe(405);
      expect(mcp.headers.allow).toBe('POST');
      const hook = await raw(listener.port, { path: `/${listener.token}/hook/PreToolUse`, method });
      expect(hook.status, method).toBe(405);
      const wrong = await raw(listener.port, { path: `/${'B'.repeat(43)}/mcp/tools`, method });
      expect(wrong.status, method).toBe(404);
    }
    expect(userCodeRan).toBe(0);
  });

  it('answers 413 to a huge body (fetch)', async () => {
    const { listener } = await start();
    const huge = Buffer.alloc(5 * 1024 * 1024, 0x20);
    const mcp = await fetch(listener.mcpUrl('tools'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...mcpHeaders },
      body: huge,
    });
    expect(mcp.status).toBe(413);
    expect(await mcp.json()).toMatchObject({ error: { code: -32000 } });
    const hook = await fetch(listener.hookUrl('PreToolUse'), { method: 'POST', body: huge });
    expect(hook.status).toBe(413);
    expect(userCodeRan).toBe(0);
  });

  it('answers 413 as soon as the declared length is over the limit, before the body is sent', async () => {
    const { listener } = await start({ maxBodyBytes: 1000 });
    const socket = connect(listener.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `POST /${listener.token}/mcp/tools HTTP/1.1\r\nHost: 127.0.0.1:${listener.port}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{"jsonrpc"',
    );
    // The server answers and closes although 4,999,990 bytes are still to come.
    socket.on('end', () => socket.end());
    await closed;
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(received.toLowerCase()).toContain('connection: close');
  });

  it('answers 413 to a chunked body once it passes the limit', async () => {
    const { listener } = await start({ maxBodyBytes: 1024 });
    const res = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: listener.port,
          path: `/${listener.token}/mcp/tools`,
          method: 'POST',
          headers: mcpHeaders,
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      req.on('error', reject);
      // No Content-Length: chunked. Write more than the limit, then keep the request open.
      req.write(Buffer.alloc(600, 0x20));
      req.write(Buffer.alloc(600, 0x20));
    });
    expect(res).toBe(413);
    expect(userCodeRan).toBe(0);
  });

  it('accepts a body at the limit', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const { listener } = await start({ maxBodyBytes: Buffer.byteLength(body) });
    const res = await raw(listener.port, { path: `/${listener.token}/mcp/tools`, headers: mcpHeaders, body });
    expect(res.status).toBe(202);
  });

  it('answers 400 with a JSON-RPC parse error to malformed JSON on the MCP route', async () => {
    const { listener } = await start();
    const res = await raw(listener.port, {
      path: `/${listener.token}/mcp/tools`,
      headers: mcpHeaders,
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('makes hook paths 404 when no hook handler is configured', async () => {
    const logger = captureLogger();
    const listener = await SessionListener.start({ logger });
    cleanups.push(() => listener.close());
    const res = await fetch(listener.hookUrl('PreToolUse'), { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });

  it('keeps the token out of logs, inspection and errors', async () => {
    const { listener, logger } = await start();
    await raw(listener.port, { path: `/${listener.token}/mcp/tools`, headers: mcpHeaders, body: '{nope' });
    await raw(listener.port, { path: `/${listener.token}/mcp/tools`, headers: { Host: 'evil.example' } });
    const { inspect } = await import('node:util');
    expect(inspect(listener, { depth: 5, showHidden: true })).not.toContain(listener.token);
    expect(JSON.stringify(listener)).not.toContain(listener.token);
    expect(logger.text()).not.toContain(listener.token);
    expect(listener.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
