// The control plane end to end through the simulator: typed hooks and policies on agy's PreToolUse /
// PostToolUse / Stop / PreInvocation relays (docs/reference/hooks.md#hook-payloads), in-process gating of our own tools, the
// maxToolCalls budget and 'next-step' steering. What needs no process (preTurn/postTurn/session and compaction hooks,
// token budgets, 'next-turn'/'now' steering, triggers) is in test/conversation/conversation.in-memory.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentConfig } from '../../src/agent/config.js';
import { readCassette } from '../../src/cassette/format.js';
import { ConfigError } from '../../src/errors.js';
import { hooks } from '../../src/hooks/factories.js';
import type { HookToolResult } from '../../src/hooks/types.js';
import { BuiltinTools } from '../../src/model/builtin-tools.js';
import { BudgetExceededError } from '../../src/model/turn-errors.js';
import { policy } from '../../src/policy/index.js';
import { tool } from '../../src/tools/tool.js';
import { toolResults, useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

const echoTool = tool(
  { name: 'echo', description: 'Echoes text', input: z.object({ text: z.string() }) },
  ({ text }) => `echo: ${text}`,
);
const failingTool = tool({ name: 'explode', description: 'Always fails', input: z.object({}) }, () => {
  throw new Error('kaboom');
});

describe('policies on built-in tools (PreToolUse relay)', () => {
  it('the default policy denies run_command: the model sees the reason, the response and deniedActions record it', async () => {
    const agent = await agentWith({
      turns: [
        {
          actions: [
            { tool: { name: 'run_command', parameters: { CommandLine: 'rm -rf /' }, output: 'gone' } },
            { text: 'ok' },
          ],
        },
      ],
    });
    const r = await agent.chat('clean up');
    const [call] = await toolResults(r);
    expect(call?.state).toBe('ERROR');
    expect(call?.error?.message).toMatch(/Denied by policy/);
    const result = await r.result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toEqual([
      expect.objectContaining({
        action: 'run_command',
        source: 'sdk',
        reason: expect.stringMatching(/Denied by policy/),
        // The args as agy sent them, with its own toolAction/toolSummary/Cwd
        // (agy-real/hooks-anti-samcheonpo-agy-1.3.0/PreToolUse-step2.json).
        args: expect.objectContaining({ CommandLine: 'rm -rf /', toolAction: 'Running rm -rf /' }),
      }),
    ]);
  });

  it('allows what no policy denies, and predicates see PascalCase and camelCase args', async () => {
    const seen: unknown[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'a' } },
              { tool: { name: 'run_command', parameters: { CommandLine: 'rm x' }, output: 'b' } },
              { text: 'done' },
            ],
          },
        ],
      },
      {
        policies: [
          policy.deny('run_command', {
            when: (args) => {
              seen.push(args);
              return String(args.commandLine).startsWith('rm');
            },
          }),
          policy.allowAll(),
        ],
      },
    );
    const r = await agent.chat('go');
    const calls = await toolResults(r);
    expect(calls.map((c) => c.state)).toEqual(['DONE', 'ERROR']);
    expect(seen[0]).toMatchObject({ CommandLine: 'ls', commandLine: 'ls' });
  });

  it('preToolCall modifiedArgs reach agy as overwrite', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/etc/shadow' }, output: 'x' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      { hooks: [hooks.preToolCall(() => ({ allow: true, modifiedArgs: { absolutePath: '/tmp/safe' } }))] },
    );
    const r = await agent.chat('read');
    const calls = await toolResults(r);
    expect(calls[0]?.args).toMatchObject({ AbsolutePath: '/tmp/safe' });
  });

  it('a preToolCall hook that throws denies (fail closed)', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/a' }, output: 'x' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        hooks: [
          hooks.preToolCall(() => {
            throw new Error('policy service down');
          }),
        ],
      },
    );
    const r = await agent.chat('read');
    const [call] = await toolResults(r);
    expect(call?.state).toBe('ERROR');
    expect(call?.error?.message).toMatch(/policy service down/);
    expect((await r.result()).status).toBe('denied');
  });

  it('askUser: an approving handler lets the call run; a handler that never answers is denied at the timeout', async () => {
    const asked: string[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'a' } },
              { text: 'ok' },
            ],
          },
          {
            actions: [
              { tool: { name: 'run_command', parameters: { CommandLine: 'sleep' }, output: 'b' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        askUserTimeoutMs: 300,
        policies: [
          policy.confirmRunCommand((call) => {
            asked.push(String(call.args.CommandLine));
            return call.args.CommandLine === 'ls' ? true : new Promise<boolean>(() => {});
          }),
        ],
      },
    );
    const first = await toolResults(await agent.chat('one'));
    expect(first[0]?.state).toBe('DONE');
    const r2 = await agent.chat('two');
    const second = await toolResults(r2);
    expect(second[0]?.state).toBe('ERROR');
    expect(second[0]?.error?.message).toMatch(/no approval within 300 ms/);
    expect(asked).toEqual(['ls', 'sleep']);
  });

  it('postToolCall runs for a built-in tool without output, as agy 1.3.0 sends none', async () => {
    // agy-real/hooks-anti-samcheonpo-agy-1.3.0/PostToolUse-step2.json: only `error`, no output.
    const seen: HookToolResult[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/a' }, output: 'file body' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      { hooks: [hooks.postToolCall((res) => void seen.push(res))] },
    );
    const r = await agent.chat('read');
    await r.result();
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('output');
    expect(seen[0]?.error).toBeUndefined();
    expect(seen[0]?.call).toMatchObject({
      name: 'view_file',
      action: 'Running view_file',
      summary: 'Run view_file',
    });
    // The output is in the turn's tool calls.
    expect((await toolResults(r))[0]?.output).toBe('file body');
  });

  it('a built-in or MCP tool that fails: onToolError, then postToolCall with its error', async () => {
    const order: string[] = [];
    const seen: HookToolResult[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              {
                tool: {
                  name: 'view_file',
                  parameters: { AbsolutePath: '/missing' },
                  error: { message: 'no such file' },
                },
              },
              { mcpTool: { server: 'nosuch', tool: 'lookup', arguments: {} } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        policies: [policy.allowAll()],
        hooks: [
          hooks.onToolError(({ call }) => void order.push(`onToolError ${call.name}`)),
          hooks.postToolCall((res) => {
            order.push(`postToolCall ${res.call.name}`);
            seen.push(res);
          }),
        ],
      },
    );
    const calls = await toolResults(await agent.chat('read'));
    expect(calls.map((c) => c.state)).toEqual(['ERROR', 'ERROR']);
    expect(order).toEqual([
      'onToolError view_file',
      'postToolCall view_file',
      'onToolError lookup',
      'postToolCall lookup',
    ]);
    expect(seen[0]?.error).toEqual({ message: 'no such file' });
    expect(seen[1]?.call.server).toBe('nosuch');
    expect(seen[1]?.error?.message).toMatch(/nosuch/);
    for (const res of seen) expect(res).not.toHaveProperty('output');
  });
});

describe('our own tools (in-process gate)', () => {
  it('runs a zod tool called by agy over MCP and reports it in toolCalls()', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_tools', tool: 'echo', arguments: { text: 'hi' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      { tools: [echoTool], policies: [policy.allowAll()] },
    );
    const r = await agent.chat('use echo');
    const [call] = await toolResults(r);
    // Shown under its own name; agy's `call_mcp_tool` wrapper is kept in `wire`.
    expect(call).toMatchObject({
      name: 'echo',
      mcpServer: 'agy-sdk_tools',
      state: 'DONE',
      args: { text: 'hi' },
      wire: { name: 'call_mcp_tool', args: { ServerName: 'agy-sdk_tools', ToolName: 'echo' } },
    });
    expect(String(call?.output)).toContain('echo: hi');
    expect((await r.result()).status).toBe('success');
  });

  it('a policy denies our own tool in-process, before its handler', async () => {
    let ran = false;
    const guarded = tool({ name: 'wipe', description: 'dangerous', input: z.object({}) }, () => {
      ran = true;
      return 'wiped';
    });
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [{ mcpTool: { server: 'agy-sdk_tools', tool: 'wipe', arguments: {} } }, { text: 'ok' }],
          },
        ],
      },
      { tools: [guarded], policies: [policy.deny('wipe', { message: 'never wipe' }), policy.allowAll()] },
    );
    const r = await agent.chat('wipe');
    const [call] = await toolResults(r);
    expect(call?.state).toBe('ERROR');
    expect(call?.error?.message).toMatch(/never wipe/);
    expect(ran).toBe(false);
    const result = await r.result();
    expect(result.deniedActions).toEqual([expect.objectContaining({ action: 'wipe', source: 'sdk' })]);
  });

  it('onToolError replaces the error message the model sees', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_tools', tool: 'explode', arguments: {} } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        tools: [failingTool],
        policies: [policy.allowAll()],
        hooks: [hooks.onToolError(({ error }) => `friendly: ${error.message}`)],
      },
    );
    const [call] = await toolResults(await agent.chat('explode'));
    expect(call?.state).toBe('ERROR');
    expect(call?.error?.message).toMatch(/friendly: .*kaboom/);
  });

  it('an own tool that throws: onToolError, then postToolCall with the error the model saw', async () => {
    const order: string[] = [];
    const seen: HookToolResult[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_tools', tool: 'explode', arguments: {} } },
              { mcpTool: { server: 'agy-sdk_tools', tool: 'echo', arguments: { text: 'hi' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        tools: [failingTool, echoTool],
        policies: [policy.allowAll()],
        hooks: [
          hooks.onToolError(({ error }) => {
            order.push('onToolError');
            return `friendly: ${error.message}`;
          }),
          hooks.postToolCall((res) => {
            order.push(`postToolCall ${res.call.name}`);
            seen.push(res);
          }),
        ],
      },
    );
    const [failed] = await toolResults(await agent.chat('explode'));
    expect(order).toEqual(['onToolError', 'postToolCall explode', 'postToolCall echo']);
    expect(seen[0]?.call.name).toBe('explode');
    expect(seen[0]?.error?.message).toMatch(/^friendly: .*kaboom/);
    // What postToolCall got is what the model was sent.
    expect(failed?.error?.message).toContain(seen[0]?.error?.message);
    expect(seen[0]).not.toHaveProperty('output');
    expect(seen[1]?.error).toBeUndefined();
    expect(JSON.stringify(seen[1]?.output)).toContain('echo: hi');
  });

  it("without onToolError postToolCall gets the tool's own error; a denied own tool never reaches it", async () => {
    const seen: HookToolResult[] = [];
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { mcpTool: { server: 'agy-sdk_tools', tool: 'explode', arguments: {} } },
              { mcpTool: { server: 'agy-sdk_tools', tool: 'echo', arguments: { text: 'no' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        tools: [failingTool, echoTool],
        policies: [policy.deny('echo', { message: 'no echo' }), policy.allowAll()],
        hooks: [hooks.postToolCall((res) => void seen.push(res))],
      },
    );
    const result = await (await agent.chat('explode')).result();
    expect(result.deniedActions).toEqual([expect.objectContaining({ action: 'echo' })]);
    expect(seen.map((res) => res.call.name)).toEqual(['explode']);
    expect(seen[0]?.error?.message).toMatch(/kaboom/);
  });

  it('refuses to start write-capable tools with no policy and no preToolCall hook', () => {
    expect(() => new Agent({ workspaces: [sb.box.workspace], tools: [echoTool], policies: [] })).toThrow(
      ConfigError,
    );
    expect(() => new Agent({ workspaces: [sb.box.workspace], tools: [echoTool], policies: [] })).toThrow(
      /policy\.allowAll/,
    );
    expect(
      () =>
        new Agent({
          workspaces: [sb.box.workspace],
          tools: [echoTool],
          policies: [],
          hooks: [hooks.preToolCall(() => true)],
        }),
    ).not.toThrow();
    expect(
      () => new Agent({ workspaces: [sb.box.workspace], dangerouslySkipPermissions: true, policies: [] }),
    ).toThrow(ConfigError);
    // agy's own write tools, on by default, count as in Python; a read-only agent needs no policy.
    expect(() => new Agent({ workspaces: [sb.box.workspace], policies: [] })).toThrow(ConfigError);
    expect(
      () =>
        new Agent({
          workspaces: [sb.box.workspace],
          policies: [],
          capabilities: { enabledTools: BuiltinTools.readOnly() },
        }),
    ).not.toThrow();
  });
});

describe('turn hooks (preTurn/postTurn/session: test/conversation/conversation.in-memory.test.ts)', () => {
  it('stop hook continue keeps the agent going with the reason', async () => {
    let asked = 0;
    const agent = await agentWith(
      { turns: [{ actions: [{ text: 'first answer' }] }] },
      {
        hooks: [
          hooks.stop((event) => {
            asked++;
            return event.continuationCount === 0
              ? { decision: 'continue', reason: 'check the tests too' }
              : { decision: 'allow_stop' };
          }),
        ],
      },
    );
    const text = await (await agent.chat('go')).text();
    expect(text).toContain('check the tests too');
    expect(asked).toBe(2);
  });

  it("stop hooks get the turn's latest response text, which agy's Stop payload lacks (Python's StopArgs)", async () => {
    const seen: Array<{
      responseText?: string | undefined;
      continuationCount?: number | undefined;
      terminationReason?: string | undefined;
    }> = [];
    const agent = await agentWith(
      { turns: [{ actions: [{ text: 'first answer' }] }] },
      {
        hooks: [
          hooks.stop((event) => {
            const { responseText, continuationCount, terminationReason } = event;
            seen.push({ responseText, continuationCount, terminationReason });
            return event.continuationCount === 0 ? { decision: 'continue', reason: 'once more' } : undefined;
          }),
        ],
      },
    );
    await (await agent.chat('go')).text();
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ responseText: 'first answer', continuationCount: 0 });
    expect(seen[0]?.terminationReason).toBeTypeOf('string');
    // The continued run answered anew: the second stop sees that answer, not the first.
    expect(seen[1]?.continuationCount).toBe(1);
    expect(seen[1]?.responseText).toContain('once more');
  });
});

describe('installed agy hooks', () => {
  it('installs only the agy hook events the configuration needs', async () => {
    const events = async (extra: AgentConfig) => {
      const agent = await agentWith(undefined, extra);
      await agent.start();
      const file = agent.runtime?.hooksFile;
      const installed = file
        ? Object.keys(JSON.parse(readFileSync(file, 'utf8'))['agy-sdk']).filter((k) => k !== 'enabled')
        : [];
      await agent.close();
      return installed.sort();
    };
    // No policy at all needs a read-only agent (the safety guard), whose capabilities are denials: PreToolUse.
    const readOnly: AgentConfig = { policies: [], capabilities: { enabledTools: BuiltinTools.readOnly() } };
    expect(await events({ ...readOnly, steering: false })).toEqual(['PreToolUse']);
    expect(await events({ steering: false })).toEqual(['PreToolUse']); // the default policy
    expect(await events(readOnly)).toEqual(['PreInvocation', 'PreToolUse']);
    expect(await events({ ...readOnly, steering: false, hooks: [hooks.postToolCall(() => {})] })).toEqual([
      'PostToolUse',
      'PreToolUse',
    ]);
    expect(await events({ ...readOnly, steering: false, hooks: [hooks.stop(() => undefined)] })).toEqual([
      'PreToolUse',
      'Stop',
    ]);
  });
});

describe('budgets', () => {
  it('interrupts the turn when maxToolCalls is exceeded; the status names the budget', async () => {
    const agent = await agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/1' }, output: '1' } },
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/2' }, output: '2' } },
              { stall: true },
            ],
          },
          { actions: [{ text: 'next' }] },
        ],
      },
      { budget: { maxToolCalls: 1 } },
    );
    const result = await (await agent.chat('read many')).result();
    expect(result.status).toBe('budget_exceeded');
    expect(result.budget).toBe('maxToolCalls');
    expect(result.error).toBeInstanceOf(BudgetExceededError);
    expect(await (await agent.chat('again')).text()).toBe('next');
  });
});

describe('steering', () => {
  it("'next-step' injects a user message at the next model call (PreInvocation injectSteps)", async () => {
    const agent = await agentWith({
      turns: [
        {
          actions: [
            { tool: { name: 'view_file', parameters: { AbsolutePath: '/a' }, output: 'x' } },
            { sleep: 300 },
            { text: 'after steer' },
          ],
        },
      ],
    });
    const r = await agent.chat('go');
    for await (const c of r.toolCalls()) if (c) break;
    expect(await agent.steer('use tabs, not spaces', { when: 'next-step' })).toBeUndefined();
    const steps = [];
    for await (const s of r.steps()) steps.push(s);
    const injected = steps.filter(
      (s) => s.type === 'user_input' && JSON.stringify(s.raw).includes('use tabs, not spaces'),
    );
    expect(injected).toHaveLength(1);
    expect((await r.result()).status).toBe('success');
  });

  it("agy's PreInvocation hook calls the listener only while a 'next-step' message waits", async () => {
    const dir = join(sb.box.root, 'cassettes');
    const agent = await agentWith(
      {
        turns: [
          // Two model calls (before and after the tool): neither asks the listener, nothing waits.
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/a' }, output: 'x' } },
              { text: 'a' },
            ],
          },
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/b' }, output: 'y' } },
              { sleep: 300 },
              { text: 'b' },
            ],
          },
        ],
      },
      { record: { dir } },
    );
    expect((await (await agent.chat('one')).result()).status).toBe('success');
    const r = await agent.chat('two');
    for await (const c of r.toolCalls()) if (c) break;
    await agent.steer('now with tabs', { when: 'next-step' });
    expect((await r.result()).status).toBe('success');
    const file = agent.cassetteFile!;
    await agent.close();
    const preInvocations = readCassette(file).records.filter(
      (rec) => rec.type === 'hook' && rec.event === 'PreInvocation',
    );
    // Only the model call after the steer asked, and it got the message.
    expect(preInvocations).toHaveLength(1);
    expect(JSON.stringify(preInvocations[0])).toContain('now with tabs');
  });
});
