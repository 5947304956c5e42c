// The replay gate's decisions that need no hook process (src/testing/cassette/replay-gate.ts): which server a
// record names, which messages pass ungated, what is refused and why. The decisions that run this session's
// hooks are proven end to end in replay-gate.process.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookRecord, McpRecord } from '../../../src/cassette/format.js';
import { ReplayGate } from '../../../src/testing/cassette/replay-gate.js';
import type { RemoteServers } from '../../../src/testing/cassette/replay-remote.js';
import { SimRuntime } from '../../../src/testing/simulator/runtime.js';

// Made in a hook, not while vitest collects (a `vitest list` must leave nothing behind).
let root = '';
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'replay-gate-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const OWN_URL = 'http://127.0.0.1:9/token/mcp/tools';
const LOCAL_URL = 'http://127.0.0.1:9/mcp';

/** A session as the SDK lays it out: its plugin's own-tool server, and the user's servers in the workspace. */
function runtime(): SimRuntime {
  const workspace = join(root, 'workspace');
  const plugin = join(workspace, '.agents', 'plugins', 'agy-sdk');
  mkdirSync(plugin, { recursive: true });
  mkdirSync(join(root, 'home'), { recursive: true });
  writeFileSync(join(plugin, 'plugin.json'), JSON.stringify({ name: 'agy-sdk' }));
  writeFileSync(
    join(plugin, 'mcp_config.json'),
    JSON.stringify({ mcpServers: { tools: { serverUrl: OWN_URL } } }),
  );
  writeFileSync(
    join(workspace, '.agents', 'mcp_config.json'),
    JSON.stringify({
      mcpServers: {
        local: { serverUrl: LOCAL_URL },
        far: { serverUrl: 'https://mcp.example.com/mcp' },
        // How the SDK writes a user's server under shadow-home isolation: the key carries the plugin prefix.
        'agy-sdk_cloud': { serverUrl: 'https://cloud.example.com/mcp' },
        cli: { command: 'true' },
      },
    }),
  );
  return SimRuntime.load(
    {
      workspaces: [workspace],
      model: undefined,
      skipPermissions: false,
      version: '0',
      home: join(root, 'home'),
    },
    () => {},
  );
}

let rt: SimRuntime;
beforeAll(() => {
  rt = runtime();
});
const gate = (remote: RemoteServers = new Set()) => new ReplayGate(rt, remote);

const mcp = (server: string, request: unknown): McpRecord => ({
  t: 0,
  type: 'mcp',
  server,
  request,
  status: 200,
  response: null,
});
const message = (method: string, params?: object) => ({ jsonrpc: '2.0', id: 1, method, params });
const call = message('tools/call', { name: 'add', arguments: { a: 1 } });

describe('ReplayGate.decide', () => {
  it("sends the handshake to the server a record names: the listener's route is the SDK plugin's server", () => {
    for (const method of ['initialize', 'notifications/initialized', 'tools/list', 'ping']) {
      const decision = gate().decide(mcp('tools', message(method)));
      expect(decision).toMatchObject({
        send: { server: { name: 'agy-sdk_tools', transport: { url: OWN_URL } } },
      });
    }
    expect(gate().decide(mcp('local', message('tools/list')))).toMatchObject({
      send: { server: { name: 'local' }, body: message('tools/list') },
    });
    const batch = [message('initialize'), message('notifications/initialized')];
    expect(gate().decide(mcp('local', batch))).toMatchObject({ send: { body: batch } });
  });

  it.each([
    [
      'a method outside the handshake',
      message('resources/read', { uri: 'file:///etc/passwd' }),
      /resources\/read is not replayed/,
    ],
    ['a response', { jsonrpc: '2.0', id: 1, result: {} }, /not a JSON-RPC request or notification/],
    ['a string', 'tools/call', /not a JSON-RPC request/],
    [
      'a batch holding a tool call',
      [message('initialize'), call],
      /batch is replayed only when it holds handshake/,
    ],
    [
      'a tool call no PreToolUse call announced',
      call,
      /no recorded PreToolUse call for local add with these arguments/,
    ],
    ['a tool call naming no tool', message('tools/call', { arguments: {} }), /names no tool/],
  ])('refuses %s', (_what, request, reason) => {
    const decision = gate().decide(mcp('local', request));
    expect(decision).toEqual({ refused: expect.stringMatching(reason) });
  });

  it('refuses a server the session does not have, or one it cannot POST to', () => {
    expect(gate().decide(mcp('nowhere', message('initialize')))).toEqual({
      refused: 'no MCP server named "nowhere" in this session',
    });
    expect(gate().decide(mcp('cli', message('initialize')))).toEqual({
      refused: 'cli is not an HTTP MCP server in this session',
    });
  });

  it('refuses a remote server unless the replay allows it, and then still gates its tool calls', () => {
    expect(gate().decide(mcp('far', message('initialize')))).toEqual({
      refused: expect.stringMatching(/^mcp\.example\.com is not a loopback host/),
    });
    const allowed = gate(new Set(['far']));
    expect(allowed.decide(mcp('far', message('initialize')))).toMatchObject({
      send: { server: { name: 'far' } },
    });
    expect(allowed.decide(mcp('far', call))).toEqual({
      refused: expect.stringMatching(/no recorded PreToolUse call/),
    });
    // Allowed by its `mcpServers` key whatever agy calls it; another server's name allows nothing.
    expect(gate(new Set(['cloud'])).decide(mcp('cloud', message('ping')))).toMatchObject({
      send: { server: { name: 'agy-sdk_cloud' } },
    });
    expect(gate(new Set(['far'])).decide(mcp('cloud', message('ping')))).toEqual({
      refused: expect.stringMatching(/^cloud\.example\.com is not a loopback host/),
    });
  });

  it('a session with no PreToolUse hook for call_mcp_tool has nothing to decide: its calls are refused', async () => {
    const g = gate();
    const pre: HookRecord = {
      t: 0,
      type: 'hook',
      event: 'PreToolUse',
      request: {
        toolCall: {
          name: 'call_mcp_tool',
          args: { ServerName: 'local', ToolName: 'add', Arguments: { a: 1 } },
        },
      },
      answer: { decision: 'allow' },
    };
    await g.preToolUse(pre, 'c');
    expect(g.decide(mcp('local', call))).toEqual({
      refused: 'no PreToolUse hook of this session matches call_mcp_tool, so nothing decides on it',
    });
    // The verdict served its one call.
    expect(g.decide(mcp('local', call))).toEqual({
      refused: expect.stringMatching(/no recorded PreToolUse/),
    });
  });
});
