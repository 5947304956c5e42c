// The direct path: a tool() catalog's initialize/ping/tools/list/tools/call answered without a per-request
// SDK Server (listener-mcp.ts, mcp-direct.ts), checked against the official MCP SDK client for every
// protocol version the SDK speaks, and against raw HTTP for every check the SDK transport makes (406, 415,
// batch limit, message schema, protocol version, 202 for notifications) plus the listener's own (token,
// Host/Origin, body limit). Anything else still reaches the SDK Server, which the spy on
// `Server.prototype.connect` tells apart (docs/reference/mcp.md#streamable-http).
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { z } from 'zod';
import { SessionListener } from '../../../src/connection/tool-server/listener.js';
import { createMcpServer } from '../../../src/connection/tool-server/mcp-server.js';
import { tool } from '../../../src/tools/tool.js';
import { captureLogger } from '../../helpers/listener.js';

const cleanups: Array<() => Promise<void>> = [];
let sdkServers: MockInstance;
beforeEach(() => {
  sdkServers = vi.spyOn(Server.prototype, 'connect');
});
afterEach(async () => {
  sdkServers.mockRestore();
  while (cleanups.length > 0) await cleanups.pop()!();
});

let calls = 0;
const echo = tool(
  { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
  ({ text }) => {
    calls += 1;
    return `echo: ${text}`;
  },
);

async function start() {
  calls = 0;
  const logger = captureLogger();
  const listener = await SessionListener.start({
    logger,
    mcpServers: {
      tools: [echo],
      // The same tools behind a factory: always the SDK Server path.
      viaSdk: () => createMcpServer({ name: 'viaSdk', tools: [echo], logger }),
    },
  });
  cleanups.push(() => listener.close());
  return { listener, logger };
}

/** The official client transport, asking for `version` in its initialize (the SDK always asks for its latest). */
class VersionedTransport extends StreamableHTTPClientTransport {
  readonly #version: string;
  constructor(url: URL, version: string) {
    super(url);
    this.#version = version;
  }
  override send(message: JSONRPCMessage, options?: Parameters<StreamableHTTPClientTransport['send']>[1]) {
    if ('method' in message && message.method === 'initialize' && 'id' in message) {
      const params = { ...message.params, protocolVersion: this.#version };
      return super.send({ ...message, params } as JSONRPCMessage, options);
    }
    return super.send(message, options);
  }
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('MCP direct path (tool() catalogs) with the official client', () => {
  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    it(`protocol ${version}: negotiates it, lists, pings and calls without an SDK Server`, async () => {
      const { listener } = await start();
      const transport = new VersionedTransport(new URL(listener.mcpUrl('tools')), version);
      const client = new Client({ name: 'agy-sdk-test', version: '0.0.0' });
      cleanups.push(() => client.close());
      await client.connect(transport);
      // The server echoed the version, so the client sends it on every later request.
      expect(transport.protocolVersion).toBe(version);
      expect(client.getServerVersion()).toEqual({ name: 'tools', version: '0.1.0' });
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo']);
      expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
      await expect(client.ping()).resolves.toEqual({});
      expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi é🌍' } }))).toBe(
        'echo: hi é🌍',
      );
      // Errors are results, as through the SDK Server: invalid arguments and unknown tools.
      const bad = (await client.callTool({ name: 'echo', arguments: { text: 5 } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(text(bad)).toMatch(/Invalid arguments for tool "echo"/);
      const unknown = (await client.callTool({ name: 'nope', arguments: {} })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect(calls).toBe(1);
      expect(sdkServers).not.toHaveBeenCalled();
    });
  }

  it('an unknown server version in initialize gets the latest, as the SDK Server answers', async () => {
    const { listener } = await start();
    const res = await post(listener, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result.protocolVersion).toBe(SUPPORTED_PROTOCOL_VERSIONS[0]);
    expect(sdkServers).not.toHaveBeenCalled();
  });

  it('answers the same as the SDK Server path for the same tools (factory-built)', async () => {
    const { listener } = await start();
    const direct = new Client({ name: 'a', version: '0' });
    const viaSdk = new Client({ name: 'b', version: '0' });
    cleanups.push(
      () => direct.close(),
      () => viaSdk.close(),
    );
    await direct.connect(new StreamableHTTPClientTransport(new URL(listener.mcpUrl('tools'))));
    await viaSdk.connect(new StreamableHTTPClientTransport(new URL(listener.mcpUrl('viaSdk'))));
    expect(sdkServers).toHaveBeenCalled();
    expect((await direct.listTools()).tools).toEqual((await viaSdk.listTools()).tools);
    for (const args of [{ text: 'x' }, { text: 5 }, {}]) {
      expect(await direct.callTool({ name: 'echo', arguments: args })).toEqual(
        await viaSdk.callTool({ name: 'echo', arguments: args }),
      );
    }
  });
});

interface RawResponse {
  status: number;
  body: string;
}

const MCP_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'Mcp-Protocol-Version': '2025-06-18',
};

/** A raw POST with full control of the headers (Host included) and the path. */
function post(
  listener: SessionListener,
  body: unknown,
  options: { headers?: Record<string, string>; path?: string; raw?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: listener.port,
        path: options.path ?? `/${listener.token}/mcp/tools`,
        method: 'POST',
        setHost: false,
        headers: { Host: `127.0.0.1:${listener.port}`, ...MCP_HEADERS, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.raw ?? JSON.stringify(body));
  });
}

const call = (id: number, text = 'x') => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text } },
});

const rpcError = (res: RawResponse) => JSON.parse(res.body).error as { code: number; message: string };

describe('MCP direct path: every check on the way, before any user code', () => {
  it('token, Host, Origin and body limit: 404, 403, 403, 413', async () => {
    const { listener } = await start();
    expect((await post(listener, call(1), { path: `/${'A'.repeat(43)}/mcp/tools` })).status).toBe(404);
    expect((await post(listener, call(1), { headers: { Host: 'evil.example' } })).status).toBe(403);
    expect((await post(listener, call(1), { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
    const huge = await post(listener, call(1, 'x'.repeat(5 * 1024 * 1024)));
    expect(huge.status).toBe(413);
    expect(calls).toBe(0);
  });

  it('406 without JSON and SSE in Accept, 415 without a JSON Content-Type (the SDK transport answers)', async () => {
    const { listener } = await start();
    for (const accept of ['application/json', 'text/event-stream', '*/*']) {
      const res = await post(listener, call(1), { headers: { Accept: accept } });
      expect(res.status, accept).toBe(406);
      expect(rpcError(res).message).toMatch(/^Not Acceptable/);
    }
    for (const type of ['text/plain', 'text/plain; a=application/json', 'application/jsonx']) {
      const res = await post(listener, call(1), { headers: { 'Content-Type': type } });
      expect(res.status, type).toBe(415);
      expect(rpcError(res).message).toMatch(/^Unsupported Media Type/);
    }
    expect(
      (await post(listener, call(1), { headers: { 'Content-Type': 'application/json; charset=utf-8' } }))
        .status,
    ).toBe(200);
    expect(calls).toBe(1);
  });

  it('400 for an unsupported Mcp-Protocol-Version header, not checked on initialize', async () => {
    const { listener } = await start();
    const res = await post(listener, call(1), { headers: { 'Mcp-Protocol-Version': '1999-01-01' } });
    expect(res.status).toBe(400);
    expect(rpcError(res)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/Unsupported protocol version: 1999-01-01/),
    });
    // Without the header the SDK assumes its default version: accepted.
    const { 'Mcp-Protocol-Version': _omitted, ...withoutVersion } = MCP_HEADERS;
    const bare = await new Promise<RawResponse>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: listener.port,
          path: `/${listener.token}/mcp/tools`,
          method: 'POST',
          headers: withoutVersion,
        },
        (r) => {
          let body = '';
          r.setEncoding('utf8').on('data', (c: string) => {
            body += c;
          });
          r.on('end', () => resolve({ status: r.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(call(2)));
    });
    expect(bare.status).toBe(200);
    expect(calls).toBe(1);
  });

  it('400 for malformed JSON and for messages the SDK JSON-RPC schema rejects', async () => {
    const { listener } = await start();
    const malformed = await post(listener, undefined, { raw: '{"jsonrpc":' });
    expect(malformed.status).toBe(400);
    expect(rpcError(malformed).code).toBe(-32700);
    for (const message of [
      { jsonrpc: '1.0', id: 1, method: 'tools/call' },
      { jsonrpc: '2.0', id: { nested: true }, method: 'tools/call' },
      { jsonrpc: '2.0', method: 7 },
      'just a string',
      [call(1), { nope: true }],
    ]) {
      const res = await post(listener, message);
      expect(res.status, JSON.stringify(message)).toBe(400);
      expect(rpcError(res)).toEqual({ code: -32700, message: 'Parse error: Invalid JSON-RPC message' });
    }
    expect(calls).toBe(0);
    expect(sdkServers).not.toHaveBeenCalled();
  });

  it('invalid parameters are a JSON-RPC -32602 error with the request id', async () => {
    const { listener } = await start();
    const res = await post(listener, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { arguments: {} },
    });
    expect(res.status).toBe(200);
    const reply = JSON.parse(res.body);
    expect(reply.id).toBe(7);
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toMatch(/^Invalid tools\/call request/);
  });

  it("tools/call params beyond agy's plain shape get the SDK Server's answer (the schema still decides)", async () => {
    const { listener } = await start();
    const shapes = [
      { name: 'echo', arguments: [] },
      { name: 'echo', arguments: null },
      { name: 'echo', arguments: { text: 'm' }, _meta: { progressToken: 'p1' } },
      { name: 'echo', arguments: { text: 'm' }, _meta: { progressToken: {} } },
      { name: 7, arguments: {} },
      { name: 'echo' },
    ];
    for (const [i, params] of shapes.entries()) {
      const body = { jsonrpc: '2.0', id: i, method: 'tools/call', params };
      const direct = JSON.parse((await post(listener, body)).body);
      const viaSdk = JSON.parse((await post(listener, body, { path: `/${listener.token}/mcp/viaSdk` })).body);
      // Accepted and refused alike; an accepted call gets the same result (the error codes of the two paths
      // differ already: the direct path says -32602 where the SDK Server says -32603).
      expect({ params, refused: 'error' in direct, result: direct.result }).toEqual({
        params,
        refused: 'error' in viaSdk,
        result: viaSdk.result,
      });
      expect({ params, valid: CallToolRequestSchema.safeParse(body).success }).toEqual({
        params,
        valid: !('error' in direct),
      });
      // Refused by the shared JSON-RPC message check or by the tools/call schema, never by anything else.
      if ('error' in direct)
        expect(direct.error.message).toMatch(/^Invalid tools\/call request|Invalid JSON-RPC message/);
    }
  });

  it('notifications and responses only: 202 with no body', async () => {
    const { listener } = await start();
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      ],
      { jsonrpc: '2.0', id: 3, result: {} },
    ]) {
      const res = await post(listener, message);
      expect(res.status, JSON.stringify(message)).toBe(202);
      expect(res.body).toBe('');
    }
    expect(sdkServers).not.toHaveBeenCalled();
  });

  it('a batch gets an array of replies in order; over 100 messages or with an initialize it is refused', async () => {
    const { listener } = await start();
    const res = await post(listener, [
      call(1, 'a'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call(2, 'b'),
    ]);
    expect(res.status).toBe(200);
    const replies = JSON.parse(res.body) as Array<{ id: number; result: CallToolResult }>;
    expect(replies.map((r) => [r.id, text(r.result)])).toEqual([
      [1, 'echo: a'],
      [2, 'echo: b'],
    ]);
    const tooMany = await post(
      listener,
      Array.from({ length: 101 }, (_, i) => call(i)),
    );
    expect(tooMany.status).toBe(400);
    expect(rpcError(tooMany)).toEqual({
      code: -32600,
      message: 'Invalid Request: Batch must not exceed 100 messages',
    });
    const init = {
      jsonrpc: '2.0',
      id: 9,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const withInit = await post(listener, [init, call(10)]);
    expect(withInit.status).toBe(400);
    expect(rpcError(withInit).message).toBe('Invalid Request: Only one initialization request is allowed');
    expect(calls).toBe(2);
  });

  it('other methods, and task-augmented calls, go through the SDK Server and get its answers', async () => {
    const { listener } = await start();
    const res = await post(listener, { jsonrpc: '2.0', id: 4, method: 'resources/list' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      id: 4,
      error: { code: -32601, message: 'Method not found' },
    });
    expect(sdkServers).toHaveBeenCalledTimes(1);
    const task = await post(listener, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' }, task: { ttl: 1000 } },
    });
    expect(sdkServers).toHaveBeenCalledTimes(2);
    expect(JSON.parse(task.body)).toMatchObject({ id: 5, error: {} });
    expect(calls).toBe(0);
  });
});
