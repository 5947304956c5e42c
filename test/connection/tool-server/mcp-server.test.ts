import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createMcpServer,
  type McpToolServerOptions,
} from '../../../src/connection/tool-server/mcp-server.js';
import { tool } from '../../../src/tools/tool.js';
import { captureLogger, deferred } from '../../helpers/listener.js';

async function connected(options: Omit<McpToolServerOptions, 'name'>) {
  const server = createMcpServer({ name: 'srv', ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(clientSide);
  return { client, server, close: () => client.close() };
}

const echo = tool(
  { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
  ({ text }) => text,
);

describe('createMcpServer (any SDK transport)', () => {
  it('serves tools over an in-memory transport and reports server info', async () => {
    const { client, close } = await connected({ tools: [echo], version: '9.9.9' });
    expect(client.getServerVersion()).toMatchObject({ name: 'srv', version: '9.9.9' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const result = (await client.callTool({ name: 'echo', arguments: { text: 'x' } })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'x' }]);
    await close();
  });

  it('tells the observer about start and end; observer failures are logged, not fatal', async () => {
    const logger = captureLogger();
    const seen: string[] = [];
    const { client, close } = await connected({
      tools: [echo],
      logger,
      hooks: {
        observer: {
          onStart: (call) => {
            seen.push(`start ${call.name} ${JSON.stringify(call.args)}`);
            throw new Error('observer bug');
          },
          onEnd: async (record) => {
            seen.push(`end ${record.name} ${record.error?.kind ?? 'ok'}`);
            throw new Error('async observer bug');
          },
        },
      },
    });
    const result = (await client.callTool({ name: 'echo', arguments: { text: 'x' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    await client.callTool({ name: 'missing', arguments: {} });
    expect(seen).toEqual([
      'start echo {"text":"x"}',
      'end echo ok',
      'start missing {}',
      'end missing unknown_tool',
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.entries.filter((e) => e.level === 'warn').map((e) => e.message)).toEqual([
      'tool call observer onStart threw',
      'tool call observer onEnd threw',
      'tool call observer onStart threw',
      'tool call observer onEnd threw',
    ]);
    await close();
  });

  it('treats missing arguments as {} and lets the schema decide', async () => {
    const noArgs = tool({ name: 'noargs', description: 'No args', input: z.object({}) }, () => 'ok');
    const { client, close } = await connected({ tools: [noArgs, echo] });
    expect(((await client.callTool({ name: 'noargs' })) as CallToolResult).content).toEqual([
      { type: 'text', text: 'ok' },
    ]);
    expect(((await client.callTool({ name: 'echo' })) as CallToolResult).isError).toBe(true);
    await close();
  });

  it('aborts ctx.signal when the host signal aborts', async () => {
    const host = new AbortController();
    const inside = deferred();
    const wait = tool({ name: 'wait', description: 'Waits', input: z.object({}) }, (_args, ctx) => {
      inside.resolve();
      return new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(`aborted: ${ctx.signal.reason}`)),
      );
    });
    const { client, close } = await connected({ tools: [wait], signal: host.signal });
    const call = client.callTool({ name: 'wait', arguments: {} });
    await inside.promise;
    host.abort('host gone');
    expect(((await call) as CallToolResult).content).toEqual([{ type: 'text', text: 'aborted: host gone' }]);
    await close();
  });
});
