// Recording on the ACP backend: every JSON-RPC message on the agent's pipes (both directions), its stderr and
// exit, into one sanitized cassette (the listener's token in session/new's MCP server URL included). The agent
// is the scripted ACP agent of test/fixtures/acp/scripted-agent.mjs (the SDK's own agent side, real pipes through the supervisor).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readCassette } from '../../../src/testing/cassette/index.js';
import { tool } from '../../../src/tools/tool.js';
import { type AcpSandbox, acpSandbox as acpBox } from '../../helpers/acp.js';

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
});
