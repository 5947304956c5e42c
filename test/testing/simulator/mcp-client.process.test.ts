// The simulator's own MCP client (src/testing/simulator/mcp-client.ts) against the official MCP SDK's servers:
// over Streamable HTTP, stateful (a session id it must carry, answers in SSE, a ping from the server mid-call)
// and stateless in JSON, and over stdio (a real process: test/fixtures/simulator/mcp-stdio-server.mjs). Its
// constants and messages are the SDK client's, which it replaced in the simulator (docs/architecture.md).
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  EmptyResultSchema,
  ListToolsRequestSchema,
  LATEST_PROTOCOL_VERSION as SDK_LATEST,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED,
  ErrorCode as SdkErrorCode,
  McpError as SdkMcpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpFetch } from '../../../src/testing/simulator/http-fetch.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  ErrorCode,
  HttpChannel,
  LATEST_PROTOCOL_VERSION,
  McpClient,
  McpError,
  StdioChannel,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../../../src/testing/simulator/mcp-client.js';

const STDIO_SERVER = join(import.meta.dirname, '../../fixtures/simulator/mcp-stdio-server.mjs');
const never = new AbortController().signal;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An HTTP server on 127.0.0.1 (closed after the test), its URL, and every request's method and headers. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: unknown) => void) {
  const seen: { method: string; headers: IncomingMessage['headers']; body: unknown }[] = [];
  const http: HttpServer = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
    });
    req.on('end', () => {
      const body = text ? JSON.parse(text) : undefined;
      seen.push({ method: req.method ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  const { port } = http.address() as { port: number };
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), seen };
}

function toolsServer(): McpServer {
  const server = new McpServer({ name: 'fixture', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  // Related to the call, the ping goes out on the call's own SSE answer (the client opens no GET stream).
  server.registerTool('ping-back', {}, async (extra) => {
    await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
    return { content: [{ type: 'text', text: 'pinged' }] };
  });
  return server;
}

/** The SDK's stateful server: a session id per `initialize`, every answer in SSE. */
async function statefulServer() {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return serve((req, res, body) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => {
          sessions.set(sid, transport as StreamableHTTPServerTransport);
        },
      });
      cleanups.push(() => transport?.close());
      void toolsServer().connect(transport);
    }
    void transport.handleRequest(req, res, body);
  });
}

/** A low-level SDK server behind a stateless JSON transport (one server per POST). */
async function statelessServer(make: () => Server) {
  return serve((_req, res, body) => {
    const server = make();
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(_req, res, body));
  });
}

function httpClient(url: URL, headers: Record<string, string> = {}) {
  const http = createHttpFetch();
  const client = new McpClient({ name: 'agy', version: '9.9.9' });
  cleanups.push(async () => {
    await client.close();
    http.close();
  });
  return { client, channel: new HttpChannel(url, headers, http.fetch) };
}

describe('the simulator’s MCP client', () => {
  it('keeps the MCP SDK client’s protocol versions, default timeout and error codes', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_SUPPORTED);
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(DEFAULT_REQUEST_TIMEOUT_MSEC);
    for (const [name, code] of Object.entries(ErrorCode))
      expect(code, name).toBe(SdkErrorCode[name as keyof typeof SdkErrorCode]);
    expect(new McpError(-32602, 'bad').message).toBe(new SdkMcpError(-32602, 'bad').message);
  });

  it('over HTTP to a stateful SDK server: carries its session id and protocol version, reads SSE, answers its ping', async () => {
    const { url, seen } = await statefulServer();
    const { client, channel } = httpClient(url, { authorization: 'Bearer kept' });
    await client.connect(channel, 10_000);
    const tools = await client.listTools(10_000);
    expect(tools.map((t) => t.name)).toEqual(['echo', 'ping-back']);
    expect(await client.callTool('echo', { text: 'é — 🌍' }, never)).toMatchObject({
      content: [{ type: 'text', text: 'echo: é — 🌍' }],
    });
    expect(await client.callTool('ping-back', {}, never)).toMatchObject({ content: [{ text: 'pinged' }] });
    const [init, ...rest] = seen;
    expect(init?.body).toMatchObject({
      method: 'initialize',
      params: {
        protocolVersion: SDK_LATEST,
        capabilities: {},
        clientInfo: { name: 'agy', version: '9.9.9' },
      },
    });
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(init?.headers.accept).toBe('application/json, text/event-stream');
    // Every later POST carries the session and the negotiated version; no GET stream is ever opened.
    expect(rest.length).toBeGreaterThanOrEqual(5);
    for (const r of rest) {
      expect(r.method).toBe('POST');
      expect(r.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.headers['mcp-protocol-version']).toBe(SDK_LATEST);
      expect(r.headers.authorization).toBe('Bearer kept');
    }
    // The ping's answer went back as its own POST.
    expect(rest.some((r) => (r.body as { result?: unknown }).result !== undefined)).toBe(true);
  });

  it('lists every page, and an error answer is an McpError with the server’s code and message', async () => {
    const { url } = await statelessServer(() => {
      const server = new Server({ name: 'pages', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async (request) => ({
        tools: [{ name: request.params?.cursor ?? 'first', inputSchema: { type: 'object' } }],
        ...(request.params?.cursor === undefined ? { nextCursor: 'second' } : {}),
      }));
      server.setRequestHandler(CallToolRequestSchema, async () => {
        throw new SdkMcpError(SdkErrorCode.InvalidParams, 'no such argument');
      });
      return server;
    });
    const { client, channel } = httpClient(url);
    await client.connect(channel, 10_000);
    expect((await client.listTools(10_000)).map((t) => t.name)).toEqual(['first', 'second']);
    const error = await client.callTool('first', {}, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    // The SDK's server sends its McpError's whole message, which the client prefixes again, as the SDK's does.
    expect(error).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: MCP error -32602: no such argument',
    });
  });

  it('refuses a server’s protocol version it does not know, and an HTTP error status with its text', async () => {
    const odd = await serve((_req, res, body) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: (body as { id: number }).id,
          result: {
            protocolVersion: '1999-01-01',
            capabilities: {},
            serverInfo: { name: 'odd', version: '0' },
          },
        }),
      );
    });
    const a = httpClient(odd.url);
    await expect(a.client.connect(a.channel, 10_000)).rejects.toThrow(
      "Server's protocol version is not supported: 1999-01-01",
    );
    const locked = await serve((_req, res) => {
      res.statusCode = 401;
      res.end('token refused');
    });
    const b = httpClient(locked.url);
    await expect(b.client.connect(b.channel, 10_000)).rejects.toThrow(
      'Streamable HTTP error: Error POSTing to endpoint: token refused',
    );
  });

  it('follows a 307 within the server’s origin, and refuses one to another origin', async () => {
    const target = await statelessServer(() => {
      const server = new Server({ name: 'moved', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: 'moved', inputSchema: { type: 'object' } }],
      }));
      return server;
    });
    // Same origin: the redirecting server forwards the followed POST to the real one.
    const same = await serve((req, res, body) => {
      if (req.url === '/mcp') {
        res.writeHead(307, { location: '/moved' }).end();
        return;
      }
      void fetch(target.url, {
        method: 'POST',
        headers: req.headers as Record<string, string>,
        body: JSON.stringify(body),
      }).then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(await answer.text());
      });
    });
    const a = httpClient(same.url);
    await a.client.connect(a.channel, 10_000);
    expect((await a.client.listTools(10_000)).map((t) => t.name)).toEqual(['moved']);
    expect(same.seen.filter((r) => r.body !== undefined).length).toBeGreaterThanOrEqual(6);
    const away = await serve((_req, res) => {
      res.writeHead(307, { location: target.url.href }).end('moved away');
    });
    const b = httpClient(away.url);
    await expect(b.client.connect(b.channel, 10_000)).rejects.toThrow(
      'Error POSTing to endpoint: moved away',
    );
    // Only the same-origin client's three messages reached it.
    expect(target.seen).toHaveLength(3);
  });

  it('a request past its bound fails as the SDK’s timeout and is cancelled at the server', async () => {
    const cancelled: unknown[] = [];
    const { url, seen } = await serve((_req, res, body) => {
      const message = body as { id?: number; method: string; params?: unknown };
      if (message.method === 'notifications/cancelled') cancelled.push(message.params);
      if (message.id === undefined) {
        res.statusCode = 202;
        res.end();
        return;
      }
      if (message.method !== 'initialize') return; // never answered
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: SDK_LATEST,
            capabilities: {},
            serverInfo: { name: 'slow', version: '0' },
          },
        }),
      );
    });
    const { client, channel } = httpClient(url);
    await client.connect(channel, 10_000);
    const error = await client.request('tools/list', {}, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ErrorCode.RequestTimeout,
      message: 'MCP error -32001: Request timed out',
    });
    // expect.poll's default 1 s is tight on a loaded 2-core machine.
    await expect.poll(() => cancelled, { timeout: 15_000 }).toEqual([{ requestId: 1, reason: 'timed out' }]);
    expect(seen.map((r) => (r.body as { method?: string }).method)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'notifications/cancelled',
    ]);
  });
});

describe('the simulator’s MCP client over stdio', () => {
  function stdio(env: Record<string, string> = {}, cwd?: string) {
    const channel = new StdioChannel({
      command: process.execPath,
      args: [STDIO_SERVER],
      env: { ...(process.env as Record<string, string>), ...env },
      ...(cwd ? { cwd } : {}),
    });
    const client = new McpClient({ name: 'agy', version: '1.0.0' });
    let stderr = '';
    cleanups.push(() => client.close());
    return {
      channel,
      client,
      stderr: () => stderr,
      start: async () => {
        await channel.start();
        channel.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
        });
        await client.connect(channel, 10_000);
      },
    };
  }

  it('lists and calls tools past a non-JSON stdout line, with the given env and cwd, and answers a ping', async () => {
    const s = stdio({ MCP_TEST_VAR: 'from-env' }, import.meta.dirname);
    await s.start();
    expect((await s.client.listTools(10_000)).map((t) => t.name)).toEqual([
      'echo',
      'env',
      'ping-back',
      'wait',
      'exit',
    ]);
    expect(await s.client.callTool('echo', { text: 'hi' }, never)).toMatchObject({
      content: [{ text: 'echo: hi' }],
    });
    expect(await s.client.callTool('env', {}, never)).toMatchObject({
      content: [{ text: `from-env|${import.meta.dirname}` }],
    });
    expect(await s.client.callTool('ping-back', {}, never)).toMatchObject({ content: [{ text: 'pinged' }] });
  });

  it('an aborted call rejects with its reason and the server sees notifications/cancelled', async () => {
    const s = stdio();
    await s.start();
    const abort = new AbortController();
    const call = s.client.callTool('wait', {}, abort.signal);
    abort.abort(new Error('turn interrupted'));
    await expect(call).rejects.toThrow('turn interrupted');
    await expect.poll(s.stderr, { timeout: 15_000 }).toContain('cancelled');
    // The session is still usable.
    expect(await s.client.callTool('echo', { text: 'after' }, never)).toMatchObject({
      content: [{ text: 'echo: after' }],
    });
  });

  it('a server that dies mid-call fails the call with "Connection closed" and reports the close', async () => {
    const s = stdio();
    await s.start();
    let closed = false;
    s.client.onclose = () => {
      closed = true;
    };
    await expect(s.client.callTool('exit', {}, never)).rejects.toThrow('MCP error -32000: Connection closed');
    expect(closed).toBe(true);
    await expect(s.client.callTool('echo', { text: 'x' }, never)).rejects.toThrow('Not connected');
  });

  it('close() ends the process; a command that does not exist rejects the start by its error', async () => {
    const s = stdio();
    await s.start();
    const pid = s.channel.pid as number;
    await s.client.close();
    expect(() => process.kill(pid, 0)).toThrow();
    const missing = new StdioChannel({ command: '/nonexistent/mcp-server', args: [], env: {} });
    await expect(missing.start()).rejects.toThrow(/ENOENT/);
  });
});
