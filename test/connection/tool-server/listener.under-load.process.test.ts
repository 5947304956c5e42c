// "MCP not connected under load": a host slow to answer during a start storm made the simulator drop the
// server for the whole session, and the turn still ended `success` with every tool call failed silently. Here the
// server is reached through a proxy that holds every request until the simulator has given up on its first
// connection (a short connect timeout stands in for the storm); the call must then reconnect and succeed. A
// server that never answers fails the call visibly: a tool error in toolResults() and a logger warning.
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionListener } from '../../../src/connection/tool-server/listener.js';
import type { Logger } from '../../../src/logger.js';
import { policy } from '../../../src/policy/index.js';
import { tool } from '../../../src/tools/tool.js';
import { toolResults, useSandboxAgents } from '../../helpers/agents.js';

const sb = useSandboxAgents();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const echo = tool(
  { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
  ({ text }) => `echo: ${text}`,
);

/** A real MCP server (our listener) behind a proxy that holds requests until `release()`. */
async function heldServer(): Promise<{ url: string; release: () => void; held: () => number }> {
  const listener = await SessionListener.start({ mcpServers: { tools: [echo] } });
  const upstream = new URL(listener.mcpUrl('tools'));
  let released = false;
  let heldCount = 0;
  const waiting: (() => void)[] = [];
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  const proxy: Server = createServer((req, res) => {
    if (released) forward(req, res);
    else {
      heldCount++;
      // A held request the client abandoned is simply dropped.
      waiting.push(() => {
        if (!res.destroyed) forward(req, res);
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  cleanups.push(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await listener.close();
  });
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    release: () => {
      released = true;
      for (const w of waiting.splice(0)) w();
    },
    held: () => heldCount,
  };
}

function capturingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} } as Logger & {
    warnings: string[];
  };
}

describe('MCP tool calls when the server was slow at start', () => {
  it('a server dropped at start is connected again on the first call, which succeeds', async () => {
    const server = await heldServer();
    let resolveWarned!: () => void;
    const warned = new Promise<void>((resolve) => {
      resolveWarned = resolve;
    });
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_slow', tool: 'echo', arguments: { text: 'late' } } },
              { text: 'done' },
            ],
          },
        ],
      },
      {
        mcpServers: { slow: { url: server.url } },
        policies: [policy.allowAll()],
        env: { AGY_SIM_MCP_CONNECT_TIMEOUT_MS: '1000' },
        onStderr: (line) => {
          if (line.includes('failed to connect')) resolveWarned();
        },
      },
    );
    const response = await agent.chat('call it');
    // The simulator gave up on the held first connection; from now on the server answers.
    await warned;
    expect(server.held()).toBeGreaterThan(0);
    server.release();
    const [call] = await toolResults(response);
    expect(call).toMatchObject({ state: 'DONE' });
    expect(String(call?.output)).toContain('echo: late');
    expect((await response.result()).status).toBe('success');
  });

  it('a server that never answers: the call is a tool error in toolResults() and the logger warns', async () => {
    const server = await heldServer();
    const logger = capturingLogger();
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_slow', tool: 'echo', arguments: { text: 'never' } } },
              { text: 'done' },
            ],
          },
        ],
      },
      {
        mcpServers: { slow: { url: server.url } },
        policies: [policy.allowAll()],
        logger,
        env: { AGY_SIM_MCP_CONNECT_TIMEOUT_MS: '500' },
      },
    );
    const response = await agent.chat('call it');
    const [call] = await toolResults(response);
    expect(call?.state).toBe('ERROR');
    expect(call?.error?.message).toMatch(/not connected/);
    await response.result();
    expect(logger.warnings.some((w) => /agy-sdk_slow/.test(w) && /not connected/.test(w))).toBe(true);
  });
});
