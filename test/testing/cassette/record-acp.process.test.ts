// Recording on the ACP backend: every JSON-RPC message on the agent's pipes (both directions), its stderr and
// exit, into one sanitized cassette (the listener's token in session/new's MCP server URL included). The agent
// is the scripted ACP agent of test/fixtures/acp/scripted-agent.mjs (the SDK's own agent side, real pipes through the supervisor).

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readCassette } from '../../../src/testing/cassette/index.js';
import { tool } from '../../../src/tools/tool.js';
import { type AcpSandbox, acpSandbox as acpBox } from '../../helpers/acp.js';
import { startHttpMcp } from '../../helpers/http-mcp.js';

const STDIO_MCP = fileURLToPath(new URL('../../fixtures/simulator/mcp-stdio-server.mjs', import.meta.url));

const boxes: AcpSandbox[] = [];
afterEach(() => {
  for (const b of boxes.splice(0)) b.cleanup();
});

describe('recording an ACP session', () => {
  it('writes every JSON-RPC message, in and out, with the listener token scrubbed', async () => {
    const b = acpBox();
    boxes.push(b);
    const dir = join(b.dir, 'cassettes');
    const add = tool(
      { name: 'add', description: 'adds', input: z.object({ a: z.number() }) },
      ({ a }) => `${a + 1}`,
    );
    const agent = b.agent(
      { turns: [{ actions: [{ type: 'text', text: 'hello from acp' }] }] },
      { record: { dir }, tools: [add] },
    );
    let token: string | undefined;
    try {
      const result = await (await agent.chat('hi')).result();
      expect(result.text).toBe('hello from acp');
      const session = b.events().find((e: { event: string }) => e.event === 'session/new')!.params as {
        mcpServers: { url?: string }[];
      };
      token = /\/([A-Za-z0-9_-]{16,})\//.exec(session.mcpServers.find((s) => s.url)?.url ?? '')?.[1];
    } finally {
      await agent.close();
    }
    const cassette = readCassette(agent.cassetteFile!);
    expect(cassette.header.backend).toBe('acp');
    const acp = cassette.records.filter((r) => r.type === 'acp');
    const methods = acp.map(
      (r) => `${r.direction}:${(r.message as { method?: string }).method ?? 'response'}`,
    );
    expect(methods).toEqual(
      expect.arrayContaining([
        'out:initialize',
        'out:session/new',
        'out:session/prompt',
        'in:session/update',
        'in:response',
      ]),
    );
    expect(cassette.records[0]!.type).toBe('spawn');
    expect(cassette.records.some((r) => r.type === 'exit')).toBe(true);
    expect(token).toBeTruthy();
    expect(readFileSync(agent.cassetteFile!, 'utf8')).not.toContain(token!);
  });

  it("keeps the MCP servers' env and headers that session/new carries out of the cassette", async () => {
    const b = acpBox();
    boxes.push(b);
    const notion = `ntn_${randomBytes(12).toString('hex')}`;
    const apiKey = `k-${randomBytes(10).toString('hex')}`;
    const http = await startHttpMcp({ name: 'remote', register: () => {} });
    const agent = b.agent(
      { turns: [{ actions: [{ type: 'text', text: 'ok' }] }] },
      {
        record: { dir: join(b.dir, 'cassettes') },
        mcpServers: {
          notion: { command: process.execPath, args: [STDIO_MCP], env: { NOTION_TOKEN: notion } },
          remote: { url: http.url, headers: { 'X-API-Key': apiKey } },
        },
      },
    );
    try {
      expect((await (await agent.chat('hi')).result()).text).toBe('ok');
    } finally {
      await agent.close();
      await http.close();
    }
    // The agent was given both verbatim (docs/reference/acp.md#session-new).
    const sent = JSON.stringify(b.events().find((e: { event: string }) => e.event === 'session/new')!.params);
    expect(sent).toContain(notion);
    expect(sent).toContain(apiKey);
    const text = readFileSync(agent.cassetteFile!, 'utf8');
    expect(text).not.toContain(notion);
    expect(text).not.toContain(apiKey);
    const cassette = readCassette(agent.cassetteFile!);
    const sessionNew = cassette.records.find(
      (r) => r.type === 'acp' && (r.message as { method?: string }).method === 'session/new',
    );
    expect(JSON.stringify(sessionNew)).toContain('{"name":"NOTION_TOKEN","value":"<secret:NOTION_TOKEN>"}');
    expect(JSON.stringify(sessionNew)).toContain('{"name":"X-API-Key","value":"<secret:X-API-Key>"}');
  });
});
