/**
 * A tiny MCP server over streamable HTTP on 127.0.0.1 (the official `@modelcontextprotocol/sdk` server, stateless,
 * JSON responses), guarded by a per-run bearer token, with one tool `lookup({ key })` → `value-of-<key>`. The
 * protocol-level facts tests pass it to Gemini CLI in `session/new` to see how an ACP client's own MCP tools are
 * named and gated (docs/reference/acp.md#mcp-tools).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

/** The running server. */
export interface McpHttp {
  url: string;
  /** The header ACP's `session/new` must pass (`{ name: 'authorization', value: 'Bearer …' }`). */
  header: { name: string; value: string };
  /** Arguments of every `tools/call` that reached the tool. */
  calls: unknown[];
  close(): Promise<void>;
}

/** Starts the server on an ephemeral port. */
export async function startMcpHttp(): Promise<McpHttp> {
  const token = randomBytes(24).toString('hex');
  const calls: unknown[] = [];
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const mcp = new McpServer({ name: 'facts-mcp', version: '1.0.0' });
      mcp.registerTool(
        'lookup',
        { description: 'Looks a key up.', inputSchema: { key: z.string() } },
        async ({ key }) => {
          calls.push({ key });
          return { content: [{ type: 'text', text: `value-of-${key}` }] };
        },
      );
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      mcp
        .connect(transport)
        .then(() => transport.handleRequest(req, res, body))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500).end();
        });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    header: { name: 'authorization', value: `Bearer ${token}` },
    calls,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
