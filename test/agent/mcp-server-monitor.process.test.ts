// Issue 24: a user MCP server that fails to start is reported where the user looks (the turn's `notices`,
// `agent.mcpServers`), and `required: true` fails the start with a typed error, leaving nothing behind. Real
// processes throughout: the simulator through the real spawn path, a real failing server (`node missing.js`),
// and a real stdio MCP server on the official SDK beside it, started by the simulator from the session's
// mcp_config.json (docs/reference/mcp.md#mcp-config-file) and called as agy calls MCP tools
// (docs/reference/mcp.md#calling-mcp-tools).
import { writeFileSync } from 'node:fs';
import { type AddressInfo, createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { checkMcpServer } from '../../src/connection/mcp-check/check-server.js';
import { McpServerStartError, StartError } from '../../src/errors.js';
import { policy } from '../../src/policy/index.js';
import { acpSandbox, alive } from '../helpers/acp.js';
import { toolResults, useSandboxAgents } from '../helpers/agents.js';
import { envSurvivors } from '../helpers/env-marker.js';

const ROOT = join(import.meta.dirname, '../..');
const sdk = (path: string) =>
  pathToFileURL(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path)).href;

const sb = useSandboxAgents();

/** A working stdio MCP server with one tool, `echo`. */
function goodServer(): { command: string; args: string[] } {
  const file = join(sb.box.root, 'good-server.mjs');
  writeFileSync(
    file,
    `import { McpServer } from '${sdk('server/mcp.js')}';
import { StdioServerTransport } from '${sdk('server/stdio.js')}';
import * as z from '${pathToFileURL(join(ROOT, 'node_modules/zod/index.js')).href}';
const server = new McpServer({ name: 'good', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text: 'echo: ' + text }],
}));
await server.connect(new StdioServerTransport());
`,
  );
  return { command: process.execPath, args: [file] };
}

/** The server: `node missing.js`, which exits 1 with Node's "Cannot find module" on stderr. */
function missingServer(): { command: string; args: string[]; cwd: string } {
  return { command: 'node', args: ['missing.js'], cwd: sb.box.workspace };
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** A loopback port nothing listens on (bound by the OS, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const callGood = {
  turns: [
    {
      actions: [
        { mcpTool: { server: 'agy-sdk_good', tool: 'echo', arguments: { text: 'hi' } } },
        { text: 'done' },
      ],
    },
    { actions: [{ text: 'second' }] },
  ],
};

describe('a user MCP server that fails to start', () => {
  it('is named on the next turn with why and its stderr, once; the good server beside it still works', async () => {
    const agent = await sb.agentWith(callGood, {
      mcpServers: { files: missingServer(), good: goodServer() },
      policies: [policy.allowAll()],
    });
    const states = await agent.whenMcpServersChecked();
    expect(states.get('files')).toMatchObject({
      name: 'files',
      transport: 'stdio',
      status: 'failed',
      required: false,
      error: 'exited with code 1 before answering initialize',
    });
    expect(states.get('files')?.stderrTail).toContain('Cannot find module');
    expect(states.get('good')).toMatchObject({ status: 'ready', tools: ['echo'] });

    const first = await agent.chat('use the good server');
    const result = await first.result();
    expect(result.status).toBe('success');
    const [call] = await toolResults(first);
    expect(call?.state).toBe('DONE');
    expect(String(call?.output)).toBe('echo: hi');
    const notice = result.notices?.find((n) => n.includes('MCP server "files"'));
    expect(notice).toContain('failed to start: exited with code 1 before answering initialize');
    expect(notice).toContain('Cannot find module');
    expect(result.notices?.some((n) => n.includes('"good"'))).toBe(false);

    // Told once: the state has not changed, so the next turn says nothing about it.
    const second = await (await agent.chat('again')).result();
    expect(second.notices?.some((n) => n.includes('MCP server'))).toBe(false);
    expect(agent.mcpServers.get('files')?.status).toBe('failed');
  });

  it('reports a disabled server as disabled and an unreachable HTTP server as failed', async () => {
    const agent = await sb.agentWith(undefined, {
      mcpServers: {
        off: { ...missingServer(), disabled: true },
        // Not checked: nothing of the SDK starts it, and no notice is made about it.
        skipped: { ...missingServer(), startCheck: false },
        // A port that was just free on loopback: nothing listens there, so the connection is refused.
        remote: { url: `http://127.0.0.1:${await closedPort()}/mcp` },
      },
      policies: [policy.allowAll()],
    });
    const states = await agent.whenMcpServersChecked();
    expect(states.get('off')).toMatchObject({ status: 'disabled', transport: 'stdio' });
    expect(states.get('skipped')).toMatchObject({ status: 'unchecked', transport: 'stdio' });
    expect(states.get('remote')).toMatchObject({ status: 'failed', transport: 'http' });
    expect(states.get('remote')?.error).toMatch(/^initialize failed: .*ECONNREFUSED/);
  });
});

describe('required: true', () => {
  it('fails start() with McpServerStartError naming the server, with its stderr; nothing is left', async () => {
    const marker = `mcp-required-${process.pid}-${Date.now()}`;
    const agent = await sb.agentWith(callGood, {
      env: { AGY_SDK_TEST_MARKER: marker },
      mcpServers: { files: { ...missingServer(), required: true }, good: goodServer() },
      policies: [policy.allowAll()],
    });
    const error = await agent.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpServerStartError);
    expect(error).toBeInstanceOf(StartError);
    const failed = error as McpServerStartError;
    expect(failed.server).toBe('files');
    expect(failed.code).toBe('start_failed');
    expect(failed.exitCode).toBe(1);
    expect(failed.stderrTail).toContain('Cannot find module');
    expect(failed.message).toContain('required MCP server "files" failed to start');
    expect(failed.message).toContain('--- MCP server "files" stderr (tail) ---');
    // The agent is closed: no session directory, no listener, no process (agy, the simulator's MCP servers).
    expect(await sb.box.sessionDirs()).toEqual([]);
    const port = agent.runtime?.listener?.port;
    if (port !== undefined) expect(await portRefuses(port)).toBe(true);
    expect(await envSurvivors('AGY_SDK_TEST_MARKER', marker)).toEqual([]);
    await expect(agent.chat('x')).rejects.toThrow(/closed/);
  });

  it('a required server that passes its check starts as usual and its tools are called', async () => {
    const agent = await sb.agentWith(callGood, {
      mcpServers: { good: { ...goodServer(), required: true } },
      policies: [policy.allowAll()],
    });
    await agent.start();
    expect(agent.mcpServers.get('good')).toMatchObject({ status: 'ready', required: true, tools: ['echo'] });
    const [call] = await toolResults(await agent.chat('go'));
    expect(String(call?.output)).toBe('echo: hi');
  });

  it('is refused with startCheck: false, by name', () => {
    expect(
      () =>
        new Agent({ mcpServers: { files: { command: 'node', required: true, startCheck: false } } } as never),
    ).toThrow(/mcpServers\.files\.startCheck/);
  });

  it('is refused with a disabled server, by name', () => {
    expect(
      () =>
        new Agent({ mcpServers: { files: { command: 'node', required: true, disabled: true } } } as never),
    ).toThrow(/mcpServers\.files\.required/);
  });
});

describe('the start check', () => {
  it('stops the whole process group of a server that exits and leaves a grandchild behind', async () => {
    const marker = `mcp-group-${process.pid}-${Date.now()}`;
    const file = join(sb.box.root, 'forks-then-exits.mjs');
    // Starts a long sleeper (it inherits the marker), says so on stderr and exits 3 without answering.
    writeFileSync(
      file,
      `import { spawn } from 'node:child_process';
spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
process.stderr.write('started a helper, giving up\\n');
process.exit(3);
`,
    );
    const { state, exit } = await checkMcpServer(
      'forks',
      { command: process.execPath, args: [file], env: { AGY_SDK_TEST_MARKER: marker } },
      {
        env: { PATH: process.env.PATH ?? '' },
        cwd: sb.box.root,
        timeoutMs: 60_000,
        signal: new AbortController().signal,
      },
    );
    expect(state).toMatchObject({
      name: 'forks',
      status: 'failed',
      error: 'exited with code 3 before answering initialize',
      stderrTail: 'started a helper, giving up',
    });
    expect(exit).toEqual({ code: 3, signal: null });
    expect(await envSurvivors('AGY_SDK_TEST_MARKER', marker)).toEqual([]);
  });

  it('names a command that cannot be started', async () => {
    const { state } = await checkMcpServer(
      'nope',
      { command: join(sb.box.root, 'no-such-binary') },
      { env: {}, cwd: sb.box.root, timeoutMs: 60_000, signal: new AbortController().signal },
    );
    expect(state.status).toBe('failed');
    expect(state.error).toMatch(/^could not be started: spawn .*no-such-binary ENOENT$/);
  });
});

describe('on the ACP backend', () => {
  // The scripted ACP agent (test/fixtures/acp/scripted-agent.mjs) spawns no MCP server and reports none, like
  // Gemini CLI, whose session/new answer has no server state (docs/reference/acp.md#session-new): the
  // SDK's own check is what sees the failure.
  it('the same notice and state; required: true fails the start by name', async () => {
    const b = acpSandbox();
    try {
      const agent = b.agent(
        { turns: [{ actions: [{ type: 'text', text: 'ok' }] }] },
        { mcpServers: { files: { command: 'node', args: [join(b.dir, 'missing.js')] } } },
      );
      try {
        expect((await agent.whenMcpServersChecked()).get('files')).toMatchObject({ status: 'failed' });
        const result = await (await agent.chat('hi')).result();
        expect(result.notices?.some((n) => n.startsWith('MCP server "files" failed to start'))).toBe(true);
      } finally {
        await agent.close();
      }
      const strict = b.agent(
        { turns: [] },
        { mcpServers: { files: { command: 'node', args: [join(b.dir, 'missing.js')], required: true } } },
      );
      await expect(strict.start()).rejects.toBeInstanceOf(McpServerStartError);
      expect(alive(strict.pid ?? -1)).toBe(false);
    } finally {
      b.cleanup();
    }
  });
});
