// MCP tools: give agy your own MCP servers (stdio or HTTP). The SDK writes them into the session's
// mcp_config.json (your ~/.gemini is never touched); agy starts the server and calls its tools through its
// built-in `call_mcp_tool`. `enabledTools` limits what the model sees; policies can target `server/tool`.
// Run after `npm run build`: node examples/10-mcp-tools.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, policy } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const serverScript = fileURLToPath(new URL('./support/notes-mcp-server.mjs', import.meta.url));

const scenario = await writeScenario({
  turns: [
    {
      actions: [
        {
          mcpTool: {
            server: 'notes',
            tool: 'add_note',
            arguments: { text: 'write the changelog' },
            expectError: false,
          },
        },
        { mcpTool: { server: 'notes', tool: 'list_notes', expectError: false } },
        { text: 'You have three notes.' },
      ],
    },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  mcpServers: {
    notes: { command: process.execPath, args: [serverScript], enabledTools: ['list_notes', 'add_note'] },
  },
  // Policies name the server as you configured it; a call to a tool outside enabledTools is denied (fail
  // closed), which would end the turn `denied`.
  policies: [policy.allow({ name: 'notes' }), policy.confirmRunCommand()],
});
try {
  const response = await agent.chat('Add "write the changelog" to my notes, then list them.');
  for await (const call of response.toolResults()) {
    const outcome = call.error ? `✗ ${call.error.message}` : `✓ ${String(call.output).replace(/\n/g, ' | ')}`;
    console.log(`  ${call.mcpServer ?? ''}/${call.name} ${outcome}`);
  }
  const result = await response.result();
  console.log(`agent: ${result.text}`);
  console.log(`status: ${result.status}`);
} finally {
  await agent.close(); // agy stops its MCP servers with it
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
