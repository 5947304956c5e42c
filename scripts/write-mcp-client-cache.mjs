// Build step (scripts/postbuild.mjs, in a Node started without flags): writes the V8 code cache of the
// simulator's bundled MCP client after one session's worth of its work, so each simulator finds compiled not
// only what loading the client runs but what connecting, listing and calling run
// (testing/simulator/mcp-client-loader.ts). The work is real: the simulator's own McpHub against a real
// session listener serving a tool(), over 127.0.0.1, as in every simulator session with own tools.
import { z } from 'zod';
import { SessionListener } from '../dist/connection/tool-server/listener.js';
import { tool } from '../dist/index.js';
import { writeMcpClientCodeCache } from '../dist/testing/simulator/mcp-client-loader.js';
import { McpHub } from '../dist/testing/simulator/mcp-hub.js';

const echo = tool(
  { name: 'echo', description: 'Echoes its text', input: z.object({ text: z.string() }) },
  ({ text }) => text,
);

await writeMcpClientCodeCache(async () => {
  const listener = await SessionListener.start({ mcpServers: { tools: [echo] } });
  const hub = new McpHub([
    {
      name: 'agy-sdk_tools',
      key: 'tools',
      file: 'scripts/write-mcp-client-cache.mjs',
      transport: { kind: 'http', url: listener.mcpUrl('tools'), headers: {} },
      disabledTools: [],
    },
  ]);
  try {
    const warnings = [];
    await hub.connect('build', async (line) => {
      warnings.push(line);
    });
    const outcome = await hub.call('agy-sdk_tools', 'echo', { text: 'cached' }, new AbortController().signal);
    // A cache made without the work would only be slower, but the build says so rather than ship it quietly.
    if (warnings.length > 0 || !('output' in outcome) || outcome.output !== 'cached')
      throw new Error(
        `the MCP client's exercise failed: ${[...warnings, JSON.stringify(outcome)].join('; ')}`,
      );
  } finally {
    await hub.close(1000);
    await listener.close();
  }
});
