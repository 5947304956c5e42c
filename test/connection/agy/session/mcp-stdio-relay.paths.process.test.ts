// The stdio MCP relay entry is an argv vector (`command` + `args`), started without a shell, as MCP stdio
// clients (and the simulator) start it. A relay installed under a path full of shell syntax must still start
// and answer, and nothing embedded in the path may run.
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  relayScriptPath,
  stdioRelayServerConfig,
} from '../../../../src/connection/agy/session/mcp-stdio-relay-config.js';
import { SessionListener } from '../../../../src/connection/tool-server/listener.js';
import { tool } from '../../../../src/tools/tool.js';
import { recordingLogger } from '../../../helpers/runtime-files.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { ensureSimulatorBuilt } from '../../../helpers/sim-process.js';

const sb = useSandbox();
beforeAll(async () => {
  await ensureSimulatorBuilt(); // builds dist/, where the compiled relay lives
}, 180_000);

describe('stdio MCP relay entry under a hostile install path', () => {
  it('starts as argv without a shell: the tools answer and no embedded command runs', async () => {
    const run = join(sb.box.root, 'run');
    mkdirSync(run);
    // dist/ reached through a directory named with shell syntax (a symlink keeps the relay's imports whole).
    const hostile = join(sb.box.root, `pkg 'q' "d" $(touch canary-a) \`touch canary-b\`;touch canary-c&\nž`);
    mkdirSync(hostile);
    const realRelay = relayScriptPath();
    const distDir = join(realRelay, '..', '..', '..', '..');
    symlinkSync(distDir, join(hostile, 'dist'));
    const relayPath = join(hostile, 'dist', 'connection', 'agy', 'session', 'mcp-stdio-relay.js');
    expect(existsSync(relayPath)).toBe(true);

    const echo = tool(
      { name: 'echo', description: 'echo', input: z.object({ text: z.string() }) },
      ({ text }) => Promise.resolve(`echo: ${text}`),
    );
    const listener = await SessionListener.start({
      logger: recordingLogger(),
      mcpServers: { tools: [echo] },
    });
    sb.defer(() => listener.close());
    const entry = stdioRelayServerConfig(listener.mcpUrl('tools'), { relayPath });
    expect(entry.args).toEqual([relayPath]); // verbatim: no shell quotes in an argv element
    const transport = new StdioClientTransport({ ...entry, cwd: run, stderr: 'pipe' });
    const client = new Client({ name: 'paths-test', version: '0.0.0' });
    await client.connect(transport);
    sb.defer(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    const out = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as {
      content: Array<{ text: string }>;
    };
    expect(out.content[0]?.text).toBe('echo: hi');
    expect(readdirSync(run)).toEqual([]);
    expect(readdirSync(sb.box.root).filter((f) => f.startsWith('canary'))).toEqual([]);
  });
});
