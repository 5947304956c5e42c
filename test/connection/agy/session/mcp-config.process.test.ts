// User MCP servers and the tool transport through real processes: a real MCP server package from npm
// (@modelcontextprotocol/server-everything) started by the simulator over stdio from the session's
// mcp_config.json (docs/reference/mcp.md#mcp-config-file), MCP-targeted policies, enabledTools, the stdio relay, reminders, and
// nothing left behind after close or a crash.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../../src/agent/agent.js';
import { policy } from '../../../../src/policy/index.js';
import { tool } from '../../../../src/tools/tool.js';
import { toolResults, useSandboxAgents } from '../../../helpers/agents.js';
import { waitGone } from '../../../helpers/sandbox.js';

const everything = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
const everythingServer = { command: process.execPath, args: [everything, 'stdio'] };

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

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

describe('user MCP servers', () => {
  it('starts a real npm MCP server over stdio from the session config and calls its tool', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              {
                mcpTool: { server: 'agy-sdk_everything', tool: 'echo', arguments: { message: 'hello mcp' } },
              },
              { text: 'ok' },
            ],
          },
        ],
      },
      { mcpServers: { everything: everythingServer }, policies: [policy.allowAll()] },
    );
    const r = await agent.chat('echo please');
    const [call] = await toolResults(r);
    expect(call?.state).toBe('DONE');
    expect(String(call?.output)).toContain('hello mcp');
    const config = JSON.parse(
      readFileSync(`${agent.sessionDir}/.agents/plugins/agy-sdk/mcp_config.json`, 'utf8'),
    );
    expect(config.mcpServers.everything).toEqual(everythingServer);
  });

  it('an MCP-targeted policy denies one tool of a server and allows the rest', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_everything', tool: 'get-sum', arguments: { a: 1, b: 2 } } },
              { mcpTool: { server: 'agy-sdk_everything', tool: 'echo', arguments: { message: 'fine' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        mcpServers: { everything: everythingServer },
        policies: [policy.deny({ name: 'everything' }, ['get-sum']), policy.allow({ name: 'everything' })],
      },
    );
    const r = await agent.chat('math');
    const calls = await toolResults(r);
    expect(calls.map((c) => c.state)).toEqual(['ERROR', 'DONE']);
    expect(calls[0]?.error?.message).toMatch(/Denied by policy/);
    expect((await r.result()).deniedActions).toEqual([
      expect.objectContaining({ action: 'everything/get-sum', source: 'sdk' }),
    ]);
  });

  it('enabledTools limits which tools of a server may run', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_everything', tool: 'get-sum', arguments: { a: 1, b: 2 } } },
              { mcpTool: { server: 'agy-sdk_everything', tool: 'echo', arguments: { message: 'x' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        mcpServers: { everything: { ...everythingServer, enabledTools: ['echo'] } },
        policies: [policy.allowAll()],
      },
    );
    const calls = await toolResults(await agent.chat('x'));
    expect(calls.map((c) => c.state)).toEqual(['ERROR', 'DONE']);
    expect(calls[0]?.error?.message).toMatch(/not in enabledTools/);
  });

  it('refuses a policy that names an MCP server the agent does not configure, when it configures some', () => {
    expect(
      () =>
        new Agent({
          workspaces: [sb.box.workspace],
          mcpServers: { everything: everythingServer },
          policies: [policy.deny({ name: 'nope' }, ['x'])],
        }),
    ).toThrow(/nope/);
  });

  it("accepts MCP policies with no MCP server configured (Python's hub mode)", () => {
    expect(
      () => new Agent({ workspaces: [sb.box.workspace], policies: [policy.deny({ name: 'nope' }, ['x'])] }),
    ).not.toThrow();
  });
});

describe('tool transport and reminders', () => {
  it('serves our tools through the stdio relay when toolTransport is stdio', async () => {
    const echo = tool(
      { name: 'echo', description: 'echo', input: z.object({ text: z.string() }) },
      ({ text }) => `relayed: ${text}`,
    );
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_tools', tool: 'echo', arguments: { text: 'via stdio' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      { tools: [echo], toolTransport: 'stdio', policies: [policy.allowAll()] },
    );
    const r = await agent.chat('x');
    const [call] = await toolResults(r);
    expect(String(call?.output)).toContain('relayed: via stdio');
    const config = readFileSync(`${agent.sessionDir}/.agents/plugins/agy-sdk/mcp_config.json`, 'utf8');
    const entry = JSON.parse(config).mcpServers.tools;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.join(' ')).not.toContain(agent.runtime?.listener?.token);
    expect(entry.env.AGY_SDK_MCP_URL).toContain('/mcp/tools');
  });

  it('prepends the reminder to every user message as a <system-reminder> block', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            expectPrompt: '<system-reminder>\nStay in /srv.\n</system-reminder>',
            actions: [{ text: 'one' }],
          },
          {
            expectPrompt: '<system-reminder>\nStay in /srv.\n</system-reminder>',
            actions: [{ text: 'two' }],
          },
        ],
      },
      { reminder: 'Stay in /srv.' },
    );
    expect(await (await agent.chat('a')).text()).toBe('one');
    expect(await (await agent.chat('b')).text()).toBe('two');
  });
});

describe('nothing left behind', () => {
  it('close() leaves no session dir, no listening port and no process (agy, MCP servers)', async () => {
    const echo = tool({ name: 'echo', description: 'echo', input: z.object({}) }, () => 'x');
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_everything', tool: 'echo', arguments: { message: 'x' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      { tools: [echo], mcpServers: { everything: everythingServer }, policies: [policy.allowAll()] },
    );
    await (await agent.chat('x')).result();
    const port = agent.runtime!.listener!.port;
    const agyPid = agent.pid!;
    const children = readFileSync(`/proc/${agyPid}/task/${agyPid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    expect(children.length).toBeGreaterThan(0); // the stdio MCP server
    await agent.close();
    expect(await sb.box.sessionDirs()).toEqual([]);
    expect(await portRefuses(port)).toBe(true);
    expect(await waitGone([agyPid, ...children])).toEqual([]);
  });

  it('after an agy crash the next turn works and close() still cleans everything', async () => {
    const agent = await agentWith({
      turns: [{ actions: [{ killSelf: 'SIGKILL' }] }, { actions: [{ text: 'back' }] }],
    });
    expect((await (await agent.chat('x')).result()).status).toBe('error');
    expect(await (await agent.chat('y')).text()).toBe('back');
    const pid = agent.pid!;
    await agent.close();
    expect(await waitGone([pid])).toEqual([]);
    expect(await sb.box.sessionDirs()).toEqual([]);
  });
});
