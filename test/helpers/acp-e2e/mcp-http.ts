/**
 * A tiny MCP server over streamable HTTP on 127.0.0.1 (test/helpers/http-mcp.ts), guarded by a per-run bearer
 * token, with one tool `lookup({ key })` → `value-of-<key>`. The protocol-level facts tests pass it to Gemini CLI
 * in `session/new` to see how an ACP client's own MCP tools are named and gated (docs/reference/acp.md#mcp-tools).
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { type HttpMcp, startHttpMcp } from '../http-mcp.js';

/** The running server. */
export interface McpHttp extends HttpMcp {
  /** The header ACP's `session/new` must pass (`{ name: 'authorization', value: 'Bearer …' }`). */
  header: { name: string; value: string };
}

/** Starts the server on an ephemeral port. */
export async function startMcpHttp(): Promise<McpHttp> {
  const token = randomBytes(24).toString('hex');
  const server = await startHttpMcp({
    name: 'facts-mcp',
    token,
    register: (mcp) =>
      mcp.registerTool(
        'lookup',
        { description: 'Looks a key up.', inputSchema: { key: z.string() } },
        async ({ key }) => ({ content: [{ type: 'text', text: `value-of-${key}` }] }),
      ),
  });
  return { ...server, header: { name: 'authorization', value: `Bearer ${token}` } };
}
