// A tiny stdio MCP server for examples/10-mcp-tools.mjs: two tools over an in-memory note list. Any MCP server
// works the same way (stdio `command`/`args`, or `{ url }` for HTTP); this one uses the official MCP SDK.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const notes = ['buy milk', 'ship agy-sdk 0.1.0'];
const server = new McpServer({ name: 'notes', version: '1.0.0' });

server.registerTool('list_notes', { description: 'List every note' }, async () => ({
  content: [{ type: 'text', text: notes.map((n, i) => `${i + 1}. ${n}`).join('\n') }],
}));
server.registerTool(
  'add_note',
  { description: 'Add a note', inputSchema: { text: z.string().min(1) } },
  async ({ text }) => {
    notes.push(text);
    return { content: [{ type: 'text', text: `added note ${notes.length}` }] };
  },
);

// stdout is the protocol channel: log to stderr only.
await server.connect(new StdioServerTransport());
