// A replay does no more than the live session would allow (src/testing/cassette/replay-gate.ts): a cassette's
// `mcp` records reach a real HTTP MCP server on 127.0.0.1 only after this session's own PreToolUse hooks
// (policies, enabledTools, preToolCall hooks) allowed that exact call again, only MCP's start handshake passes
// ungated, and a server that is not on loopback is refused unless the replay names it. Cassettes are recorded
// on the simulator, then edited as an attacker (or a hand-written fixture) would. Guide:
// docs/guides/testing-your-agent.md#what-a-replay-may-touch.
import { spawnSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig } from '../../../src/agent/config.js';
import { hooks } from '../../../src/hooks/factories.js';
import { policy } from '../../../src/policy/index.js';
import {
  type CassetteRecord,
  type ReplayOptions,
  readCassette,
  replayCassette,
  serializeCassette,
} from '../../../src/testing/cassette/index.js';
import { simulatorPath } from '../../../src/testing/simulator/path.js';
import { tool } from '../../../src/tools/tool.js';
import { useSandboxAgents } from '../../helpers/agents.js';
import { type HttpMcp, startHttpMcp } from '../../helpers/http-mcp.js';

const sb = useSandboxAgents();

async function startRemote(): Promise<HttpMcp> {
  const server = await startHttpMcp({
    name: 'remote',
    register: (s) => {
      s.registerTool('delete_all', { inputSchema: { scope: z.string() } }, async ({ scope }) => ({
        content: [{ type: 'text', text: `deleted ${scope}` }],
      }));
      s.registerTool('list_things', { inputSchema: {} }, async () => ({
        content: [{ type: 'text', text: 'a b' }],
      }));
    },
  });
  return server;
}

/** Records one turn whose model calls `delete_all` on the user's server `name` at `url`, once per scope. */
async function recordDeleteAll(name: string, url: string, scopes = ['x']): Promise<string> {
  const calls = scopes.map((scope) => ({
    mcpTool: { server: `agy-sdk_${name}`, tool: 'delete_all', arguments: { scope } },
  }));
  const agent = await sb.agentWith(
    { turns: [{ actions: [...calls, { text: 'done' }] }] },
    {
      record: { dir: join(sb.box.root, 'cassettes') },
      policies: [policy.allowAll()],
      mcpServers: { [name]: { url } },
    },
  );
  const result = await (await agent.chat('go')).result();
  await agent.close();
  expect(result.status).toBe('success');
  return agent.cassetteFile!;
}

let nextId = 100;
/** An `mcp` record as the listener would have written it for `server`. */
function mcpRecord(t: number, server: string, method: string, params?: object): CassetteRecord {
  const request = { jsonrpc: '2.0', id: nextId++, method, ...(params && { params }) };
  return { t, type: 'mcp', server, request, status: 200, response: null };
}

const DELETE_ALL = { name: 'delete_all', arguments: { scope: 'x' } };

/**
 * The cassette with `add(t, n)` inserted right after each record `after` matches (the n-th, from 0), and the
 * records `drop` matches removed; written to a new file.
 */
function edit(
  file: string,
  o: {
    after: (r: CassetteRecord) => boolean;
    add: (t: number, n: number) => CassetteRecord[];
    drop?: (r: CassetteRecord) => boolean;
  },
): string {
  const cassette = readCassette(file);
  const records: CassetteRecord[] = [];
  let added = 0;
  for (const r of cassette.records) {
    if (o.drop?.(r)) continue;
    records.push(r);
    if (o.after(r)) records.push(...o.add(r.t, added++));
  }
  expect(added, 'the anchor record is in the cassette').toBeGreaterThan(0);
  const out = join(sb.box.root, `edited-${nextId++}.cassette.jsonl`);
  writeFileSync(out, serializeCassette({ header: cassette.header, records }), { mode: 0o600 });
  return out;
}

const isPreToolUse = (r: CassetteRecord) => r.type === 'hook' && r.event === 'PreToolUse';

/** Replays `file` with this session's config; the session's stderr is collected. */
async function replay(file: string, config: AgentConfig, options: ReplayOptions = {}) {
  const r = replayCassette(file, options);
  const stderr: string[] = [];
  const agent = await sb.agentWith(undefined, {
    ...r,
    env: { ...r.env, AGY_SIM_STATE_DIR: join(sb.box.root, `replay-${nextId++}`) },
    onStderr: (line) => stderr.push(line),
    ...config,
  });
  const result = await (await agent.chat('go')).result();
  await agent.close();
  return { result, stderr: stderr.join('\n') };
}

/** Forgets what the recording session sent the server. */
function forget(server: HttpMcp): void {
  server.messages.length = 0;
  server.calls.length = 0;
}

const methods = (server: HttpMcp) => server.messages.map((m) => (m as { method?: string }).method);

describe('a replayed tools/call passes the live gate', () => {
  it('a crafted tools/call with no PreToolUse call before it never reaches the server', async () => {
    const server = await startRemote();
    try {
      const recorded = await recordDeleteAll('remote', server.url);
      const file = edit(recorded, {
        after: (r) => r.type === 'stdin',
        add: (t) => [mcpRecord(t, 'remote', 'tools/call', DELETE_ALL)],
        drop: (r) => r.type === 'hook',
      });
      forget(server);
      const { stderr } = await replay(file, {
        policies: [policy.allowAll()],
        mcpServers: {
          remote: { url: server.url, headers: { Authorization: 'Bearer user-token' }, startCheck: false },
        },
      });
      expect(methods(server)).not.toContain('tools/call');
      expect(stderr).toMatch(
        /refused "tools\/call delete_all" to MCP server "remote": no recorded PreToolUse call for agy-sdk_remote delete_all/,
      );
    } finally {
      await server.close();
    }
  });

  it('a recorded call the live policy now denies is not sent', async () => {
    const server = await startRemote();
    try {
      const recorded = await recordDeleteAll('remote', server.url);
      const file = edit(recorded, {
        after: isPreToolUse,
        add: (t) => [mcpRecord(t, 'remote', 'tools/call', DELETE_ALL)],
      });
      forget(server);
      const { stderr, result } = await replay(file, {
        policies: [policy.deny('remote/delete_all', { message: 'never delete' }), policy.allowAll()],
        mcpServers: { remote: { url: server.url, startCheck: false } },
      });
      expect(methods(server)).not.toContain('tools/call');
      expect(stderr).toMatch(/refused "tools\/call delete_all".*PreToolUse hooks denied it: .*never delete/);
      // The session's own record of the decision: the call is a denied action of the turn.
      expect(result.deniedActions.map((d) => d.action)).toContain('remote/delete_all');
    } finally {
      await server.close();
    }
  });

  it('a tool outside the server’s enabledTools is not sent', async () => {
    const server = await startRemote();
    try {
      const recorded = await recordDeleteAll('remote', server.url);
      const file = edit(recorded, {
        after: isPreToolUse,
        add: (t) => [mcpRecord(t, 'remote', 'tools/call', DELETE_ALL)],
      });
      forget(server);
      const { stderr } = await replay(file, {
        policies: [policy.allowAll()],
        mcpServers: { remote: { url: server.url, enabledTools: ['list_things'], startCheck: false } },
      });
      expect(methods(server)).not.toContain('tools/call');
      expect(stderr).toMatch(/denied it: tool 'delete_all' is not in enabledTools of MCP server 'remote'/);
    } finally {
      await server.close();
    }
  });

  it('an allowed call still reaches the loopback server, with the arguments the live hooks let through; the handshake passes, other methods do not', async () => {
    const server = await startRemote();
    try {
      const recorded = await recordDeleteAll('remote', server.url);
      const file = edit(recorded, {
        after: isPreToolUse,
        add: (t) => [
          mcpRecord(t, 'remote', 'initialize', {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'agy', version: '1.3.1' },
          }),
          mcpRecord(t, 'remote', 'tools/list'),
          mcpRecord(t, 'remote', 'resources/read', { uri: 'file:///etc/passwd' }),
          mcpRecord(t, 'remote', 'tools/call', DELETE_ALL),
          // One PreToolUse call allows one tools/call: a second copy has nothing left to match.
          mcpRecord(t, 'remote', 'tools/call', DELETE_ALL),
        ],
      });
      forget(server);
      const { stderr } = await replay(file, {
        policies: [policy.allowAll()],
        hooks: [hooks.preToolCall(() => ({ allow: true, modifiedArgs: { scope: 'only-tmp' } }))],
        mcpServers: { remote: { url: server.url, startCheck: false } },
      });
      expect(methods(server)).toEqual(['initialize', 'tools/list', 'tools/call']);
      expect(server.calls).toEqual([{ scope: 'only-tmp' }]);
      expect(stderr).toMatch(
        /refused "resources\/read" to MCP server "remote": resources\/read is not replayed/,
      );
      expect(stderr).toMatch(
        /refused "tools\/call delete_all" to MCP server "remote": no recorded PreToolUse/,
      );
    } finally {
      await server.close();
    }
  });
});

describe('budgets and own tools', () => {
  it('a call past budget.maxToolCalls is not sent', async () => {
    const server = await startRemote();
    try {
      const recorded = await recordDeleteAll('remote', server.url, ['a', 'b']);
      const file = edit(recorded, {
        after: isPreToolUse,
        add: (t, n) => [
          mcpRecord(t, 'remote', 'tools/call', {
            name: 'delete_all',
            arguments: { scope: n === 0 ? 'a' : 'b' },
          }),
        ],
      });
      forget(server);
      const { stderr } = await replay(file, {
        policies: [policy.allowAll()],
        budget: { maxToolCalls: 1 },
        mcpServers: { remote: { url: server.url, startCheck: false } },
      });
      expect(server.calls).toEqual([{ scope: 'a' }]);
      expect(stderr).toMatch(/refused "tools\/call delete_all".*denied it: .*maxToolCalls/);
    } finally {
      await server.close();
    }
  });

  it("a crafted call of the agent's own tool with no PreToolUse call before it never runs the handler", async () => {
    const add = (calls: number[]) =>
      tool(
        { name: 'add', description: 'Adds', input: z.object({ a: z.number(), b: z.number() }) },
        ({ a, b }) => {
          calls.push(a + b);
          return String(a + b);
        },
      );
    const recordedCalls: number[] = [];
    const agent = await sb.agentWith(
      { turns: [{ actions: [{ text: 'hi' }] }] },
      {
        record: { dir: join(sb.box.root, 'cassettes') },
        tools: [add(recordedCalls)],
        policies: [policy.allowAll()],
      },
    );
    await (await agent.chat('go')).result();
    await agent.close();
    const file = edit(agent.cassetteFile!, {
      after: (r) => r.type === 'stdin',
      add: (t) => [mcpRecord(t, 'tools', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })],
    });
    const replayed: number[] = [];
    const { stderr } = await replay(file, { tools: [add(replayed)], policies: [policy.allowAll()] });
    expect(replayed).toEqual([]);
    expect(stderr).toMatch(
      /refused "tools\/call add" to MCP server "tools": no recorded PreToolUse call for agy-sdk_tools add/,
    );
  });
});

/** A name the hosts file maps to 127.0.0.1 that is not literally loopback: "remote" without leaving the host. */
async function hostsAlias(): Promise<string | undefined> {
  let text: string;
  try {
    text = readFileSync('/etc/hosts', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address !== '127.0.0.1') continue;
    for (const name of names) {
      if (name === '' || name.toLowerCase() === 'localhost') continue;
      // The resolver must agree (hosts before DNS): otherwise the name is not usable offline.
      const found = await lookup(name, { family: 4 }).catch(() => undefined);
      if (found?.address === '127.0.0.1') return name;
    }
  }
  return undefined;
}
const alias = await hostsAlias();

describe('remote servers', () => {
  it('a server whose URL is not loopback is refused before any connection, handshake included', async () => {
    const local = await startRemote();
    try {
      const recorded = await recordDeleteAll('far', local.url);
      const file = edit(recorded, {
        after: isPreToolUse,
        add: (t) => [mcpRecord(t, 'far', 'initialize', {}), mcpRecord(t, 'far', 'tools/call', DELETE_ALL)],
      });
      const { stderr } = await replay(file, {
        policies: [policy.allowAll()],
        mcpServers: { far: { url: 'http://example.invalid/mcp', startCheck: false } },
      });
      for (const what of ['initialize', 'tools\\/call delete_all']) {
        expect(stderr).toMatch(
          new RegExp(`refused "${what}" to MCP server "far": example\\.invalid is not a loopback host`),
        );
      }
      // A connection attempt would have failed to resolve `.invalid` and said so.
      expect(stderr).not.toMatch(/MCP call to far failed/);
    } finally {
      await local.close();
    }
  });

  it.skipIf(alias === undefined)(
    'a non-loopback name is reached only when the replay allows it by name (a hosts-file alias of 127.0.0.1)',
    async () => {
      const server = await startRemote();
      try {
        const recorded = await recordDeleteAll('far', server.url);
        const file = edit(recorded, {
          after: isPreToolUse,
          add: (t) => [mcpRecord(t, 'far', 'tools/call', DELETE_ALL)],
        });
        const url = server.url.replace('127.0.0.1', alias!);
        const config = { policies: [policy.allowAll()], mcpServers: { far: { url, startCheck: false } } };
        forget(server);
        const refused = await replay(file, config);
        expect(server.messages).toEqual([]);
        expect(refused.stderr).toMatch(new RegExp(`${alias}:\\d+ is not a loopback host`));
        const allowed = await replay(file, config, { allowRemoteServers: ['far'] });
        expect(methods(server)).toEqual(['tools/call']);
        expect(allowed.stderr).not.toMatch(/refused/);
      } finally {
        await server.close();
      }
    },
  );

  it('agy-sim refuses a malformed AGY_SIM_CASSETTE_REMOTE with exit 2 naming it', () => {
    const file = join(sb.box.root, 'empty.cassette.jsonl');
    writeFileSync(file, `${JSON.stringify(readCassetteHeader())}\n`);
    const run = spawnSync(simulatorPath(), ['--cassette', file, '--version'], {
      encoding: 'utf8',
      env: { ...process.env, AGY_SIM_CASSETTE_REMOTE: 'good,bad name' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/AGY_SIM_CASSETTE_REMOTE:0: remote: \[1\] must be a server name/);
  });
});

function readCassetteHeader() {
  return {
    format: 'agy-sdk-cassette',
    version: 1,
    backend: 'agy',
    agy: { version: '1.3.1', args: [] },
    recordedAt: '2026-12-01T00:00:00.000Z',
    sanitized: true,
  };
}
