/**
 * A stateless Streamable HTTP MCP server on 127.0.0.1 (the official `@modelcontextprotocol/sdk` server, JSON
 * responses, no SSE) for tests that hand an agent a user's HTTP MCP server. It records every request's headers,
 * every JSON-RPC message received and the `params.arguments` of every `tools/call`, and, with `token`, answers
 * 401 to requests without `authorization: Bearer <token>`.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The running server. */
export interface HttpMcp {
  url: string;
  /** Headers of every request received. */
  headers: IncomingHttpHeaders[];
  /** The `params.arguments` of every `tools/call` received. */
  calls: unknown[];
  /** Every JSON-RPC message received (a batch's one by one), as parsed. */
  messages: unknown[];
  close(): Promise<void>;
}

/** Starts the server on an ephemeral port; `register` adds the tools to each request's server. */
export async function startHttpMcp(opts: {
  name: string;
  register: (server: McpServer) => void;
  token?: string;
}): Promise<HttpMcp> {
  const headers: IncomingHttpHeaders[] = [];
  const calls: unknown[] = [];
  const messages: unknown[] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      for (const message of Array.isArray(body) ? body : [body]) {
        messages.push(message);
        const m = message as { method?: string; params?: { arguments?: unknown } };
        if (m.method === 'tools/call') calls.push(m.params?.arguments);
      }
      const mcp = new McpServer({ name: opts.name, version: '1.0.0' });
      opts.register(mcp);
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
    headers,
    calls,
    messages,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
