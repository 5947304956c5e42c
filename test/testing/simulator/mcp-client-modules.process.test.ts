// The simulator's MCP path (its own client, mcp-client.ts, over its node:http fetch) lists and calls a real
// SessionListener's tools in a child process without loading what real agy, a Go binary, never pays for: undici
// (touching any of `fetch`, `Headers`, `Response` costs ~28 ms of CPU), the MCP SDK's client and zod (its schemas
// are built as it loads: 40–60 ms per simulator), node:vm, Web Crypto, or web streams (an SSE answer is read from the Node stream). Nor
// ajv until a tool has an `outputSchema` (lazy-ajv-provider.ts): then the SDK's validation still rejects a
// `structuredContent` that does not match it. Nor node:http before its first request, nor node:https for http:.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionListener } from '../../../src/connection/tool-server/listener.js';
import { tool } from '../../../src/tools/tool.js';

const root = join(import.meta.dirname, '../../..');

/** A server whose one tool declares an output schema and breaks it when called with `lie: true`. */
function liar(): Server {
  const server = new Server({ name: 'liar', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'count',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const n = request.params.arguments?.lie ? 'not a number' : 1;
    return { content: [{ type: 'text', text: JSON.stringify({ n }) }], structuredContent: { n } };
  });
  return server;
}

/** The SDK's own stateless server, answering every POST in SSE (no `enableJsonResponse`), on 127.0.0.1. */
async function sseServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer((req, res) => {
    const server = new McpServer({ name: 'sse', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    // Stateless: no `sessionIdGenerator`.
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

describe('the simulator’s MCP client and fetch, without undici', () => {
  it('list and call tools over HTTP, headers kept, and never load undici', async () => {
    const seen: string[] = [];
    const echo = tool(
      { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
      ({ text }) => text,
    );
    const listener = await SessionListener.start({
      mcpServers: { tools: [echo], liar },
      onMcpExchange: (_server, request) => {
        seen.push(String((request as { method?: unknown }).method));
      },
    });
    const sse = await sseServer();
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          join(root, 'test/fixtures/simulator/mcp-client-report.mjs'),
          listener.mcpUrl('tools'),
          listener.mcpUrl('liar'),
          sse.url,
        ],
        { timeout: 60_000 },
      );
      const report = JSON.parse(stdout) as {
        tools: string[];
        result: unknown;
        undici: string[];
        ajvWithoutSchemas: boolean;
        truthful: unknown;
        lie: string;
        ajvWithSchemas: boolean;
        zod: boolean;
        mcpSdkModules: string[];
        httpBeforeRequest: boolean;
        https: boolean;
        webCrypto: boolean;
        webStreamsBeforeSse: boolean;
        webStreamsAfterSse: boolean;
        sse: unknown;
      };
      expect(report.tools).toEqual(['echo']);
      expect(report.result).toMatchObject({ content: [{ type: 'text', text: 'é — 🌍' }] });
      expect(seen).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
      expect(report.undici).toEqual([]);
      expect(report.ajvWithoutSchemas).toBe(false);
      expect(report.truthful).toMatchObject({ structuredContent: { n: 1 } });
      expect(report.lie).toMatch(/does not match the tool's output schema/);
      expect(report.ajvWithSchemas).toBe(true);
      // The SDK's validator is the only part of the SDK loaded, and it brings no zod.
      expect(report.mcpSdkModules).toEqual([]);
      expect(report.zod).toBe(false);
      // The simulator boots without node:http(s) (~17 ms of CPU): http comes with the first request, https never here.
      expect(report.httpBeforeRequest).toBe(false);
      expect(report.https).toBe(false);
      expect(report.webCrypto).toBe(false);
      // An SSE answer is read from the response's Node stream: no web stream, before it or after.
      expect(report.webStreamsBeforeSse).toBe(false);
      expect(report.webStreamsAfterSse).toBe(false);
      expect(report.sse).toMatchObject({ content: [{ type: 'text', text: 'over SSE' }] });
    } finally {
      await sse.close();
      await listener.close();
    }
  }, 90_000);
});
