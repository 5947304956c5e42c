import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  httpServerConfig,
  MCP_URL_ENV,
  stdioRelayServerConfig,
} from '../../../../src/connection/agy/session/mcp-stdio-relay-config.js';
import { SessionListener } from '../../../../src/connection/tool-server/listener.js';
import { tool } from '../../../../src/tools/tool.js';
import { captureLogger, deferred } from '../../../helpers/listener.js';

// The relay is tested as agy runs it: compiled JS started by absolute path with `node`. It is built with the
// project's build config into a private directory, so parallel builds of dist/ cannot interfere. Only the
// relay and what it imports are compiled (not the whole project: that cost ~30 s of CPU on a 2-core box), into
// the `dist/` of a package-shaped directory, since the SDK finds its scripts under its package's dist/.
let pkgDir: string;
let outDir: string;
let relayPath: string;

beforeAll(async () => {
  pkgDir = await mkdtemp(join(tmpdir(), 'agy-sdk-relay-'));
  await writeFile(join(pkgDir, 'package.json'), '{"name":"agy-sdk","type":"module"}\n');
  outDir = join(pkgDir, 'dist');
  const ts = (await import('typescript')).default;
  const parsed = ts.getParsedCommandLineOfConfigFile(join(process.cwd(), 'tsconfig.build.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error('cannot read tsconfig.build.json');
  const session = join(process.cwd(), 'src', 'connection', 'agy', 'session');
  ts.createProgram({
    rootNames: [join(session, 'mcp-stdio-relay.ts'), join(session, 'mcp-stdio-relay-config.ts')],
    options: { ...parsed.options, outDir },
  }).emit();
  relayPath = join(outDir, 'connection', 'agy', 'session', 'mcp-stdio-relay.js');
  if (!existsSync(relayPath)) throw new Error('tsc did not emit the relay');
}, 180_000);

afterAll(async () => {
  if (pkgDir) await rm(pkgDir, { recursive: true, force: true });
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function text(result: unknown): string {
  return (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('');
}

async function startListener() {
  const events: string[] = [];
  const both = deferred();
  let arrived = 0;
  const tools = [
    tool(
      { name: 'echo', description: 'Echoes', input: z.object({ text: z.string() }) },
      ({ text }) => `echo: ${text}`,
    ),
    tool(
      { name: 'barrier', description: 'Waits for a second call', input: z.object({ id: z.string() }) },
      async ({ id }) => {
        events.push(`start:${id}`);
        arrived += 1;
        if (arrived === 2) both.resolve();
        await both.promise;
        events.push(`end:${id}`);
        return id;
      },
    ),
  ];
  const logger = captureLogger();
  const listener = await SessionListener.start({ logger, mcpServers: { tools } });
  cleanups.push(() => listener.close());
  return { listener, events, logger };
}

describe('stdio relay (compiled, spawned, driven by the SDK StdioClientTransport)', () => {
  it('builds mcp_config.json entries in both forms', async () => {
    const url = 'http://127.0.0.1:1234/secret/mcp/tools';
    expect(stdioRelayServerConfig(url, { relayPath: '/abs/relay.js' })).toEqual({
      command: process.execPath,
      args: ['/abs/relay.js'],
      env: { [MCP_URL_ENV]: url },
    });
    expect(httpServerConfig(url)).toEqual({ serverUrl: url });
    // The compiled config module resolves the compiled relay under its package's dist/.
    const compiled = (await import(
      pathToFileURL(join(outDir, 'connection', 'agy', 'session', 'mcp-stdio-relay-config.js')).href
    )) as {
      relayScriptPath(): string;
      stdioRelayServerConfig(url: string): { args: string[] };
    };
    expect(compiled.relayScriptPath()).toBe(relayPath);
    expect(compiled.stdioRelayServerConfig(url).args).toEqual([relayPath]);
  });

  it('relays list and call, keeps concurrent calls concurrent, and keeps the URL out of argv', async () => {
    const { listener, events } = await startListener();
    const entry = stdioRelayServerConfig(listener.mcpUrl('tools'), { relayPath });
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: entry.env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'relay-test', version: '0.0.0' });
    await client.connect(transport);
    let closed = false;
    cleanups.push(async () => {
      if (!closed) await client.close();
    });

    const cmdline = await readFile(`/proc/${transport.pid}/cmdline`, 'utf8').catch(() => '');
    expect(cmdline).toContain('mcp-stdio-relay.js');
    expect(cmdline).not.toContain(listener.token);

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'barrier']);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'via stdio' } }))).toBe(
      'echo: via stdio',
    );
    const invalid = (await client.callTool({ name: 'echo', arguments: {} })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^Invalid arguments for tool "echo"/);

    const results = await Promise.all([
      client.callTool({ name: 'barrier', arguments: { id: 'a' } }),
      client.callTool({ name: 'barrier', arguments: { id: 'b' } }),
    ]);
    expect(results.map(text).sort()).toEqual(['a', 'b']);
    expect(events.slice(0, 2).every((e) => e.startsWith('start:'))).toBe(true);

    // Closing stdin ends the relay on its own; the SDK would otherwise wait 2 s and send SIGTERM. Asserted by
    // the absence of that kill rather than by a wall-clock bound, which a loaded machine can overrun.
    const pid = transport.pid!;
    const kill = vi.spyOn(ChildProcess.prototype, 'kill');
    let kills: unknown[][];
    try {
      await client.close();
    } finally {
      kills = [...kill.mock.calls];
      kill.mockRestore();
    }
    closed = true;
    expect(kills).toEqual([]);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(stderr).toBe('');
  });

  it('answers requests with JSON-RPC errors when the listener is gone, without printing the URL', async () => {
    const { listener } = await startListener();
    const url = listener.mcpUrl('tools');
    const token = listener.token;
    await listener.close();
    const child = spawn(process.execPath, [relayPath], {
      env: { [MCP_URL_ENV]: url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout });
    const replies: unknown[] = [];
    lines.on('line', (line) => replies.push(JSON.parse(line)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.write('{"jsonrpc":"2.0","id":7,"method":"tools/list"}\n');
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    child.stdin.write('not json\n');
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(replies).toHaveLength(2);
    expect(replies).toContainEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: invalid JSON' },
    });
    expect(replies).toContainEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: expect.stringMatching(/^agy-sdk relay: listener unreachable/) },
    });
    expect(stderr).toContain('listener unreachable');
    expect(stderr + JSON.stringify(replies)).not.toContain(token);
  });

  it('passes on an HTTP rejection as a JSON-RPC error for the request', async () => {
    const { listener } = await startListener();
    const wrong = listener.mcpUrl('tools').replace(listener.token, 'A'.repeat(43));
    const child = spawn(process.execPath, [relayPath], { env: { [MCP_URL_ENV]: wrong } });
    const lines = createInterface({ input: child.stdout });
    const reply = new Promise<unknown>((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
    child.stdin.write('{"jsonrpc":"2.0","id":"x","method":"tools/list"}\n');
    expect(await reply).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32603, message: 'agy-sdk relay: listener answered HTTP 404' },
    });
    child.stdin.end();
    await new Promise((resolve) => child.on('exit', resolve));
  });

  it('exits with code 2 when AGY_SDK_MCP_URL is missing', async () => {
    const child = spawn(process.execPath, [relayPath], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain(MCP_URL_ENV);
  });
});
