// The control plane end to end through the simulator: typed hooks and policies on agy's PreToolUse /
// PostToolUse / Stop / PreInvocation relays (docs/reference/hooks.md#hook-payloads), in-process gating of our own tools, budgets,
// steering and triggers.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentConfig } from '../../src/agent/config.js';
import { ConfigError } from '../../src/errors.js';
import { hooks } from '../../src/hooks/factories.js';
import type { HookToolResult } from '../../src/hooks/types.js';
import { BudgetExceededError } from '../../src/model/turn-errors.js';
import { policy } from '../../src/policy/index.js';
import { tool } from '../../src/tools/tool.js';
import { onFileChange } from '../../src/triggers/on-file-change.js';
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
  });
});

describe('turn hooks', () => {
  it('preTurn deny stops the prompt before agy sees it; postTurn sees the text', async () => {
    const texts: string[] = [];
    const agent = await agentWith(
      { turns: [{ actions: [{ text: 'allowed answer' }] }] },
      {
        hooks: [
          hooks.preTurn((prompt) =>
            prompt.includes('secret') ? { allow: false, message: 'no secrets' } : true,
          ),
          hooks.postTurn((text) => void texts.push(text)),
        ],
      },
    );
    const denied = await (await agent.chat('tell me the secret')).result();
    expect(denied).toMatchObject({ status: 'denied', errorMessage: 'no secrets' });
    expect(agent.conversation.history).toHaveLength(0);
    expect(await (await agent.chat('hello')).text()).toBe('allowed answer');
    expect(texts).toEqual(['allowed answer']);
  });

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

  it('session hooks run on start and close', async () => {
    const events: string[] = [];
    const agent = await agentWith(undefined, {
      hooks: [
        hooks.onSessionStart((s) => void events.push(`start:${s.conversationId ? 'id' : 'none'}`)),
        hooks.onSessionEnd(() => void events.push('end')),
      ],
    });
    await agent.start();
    expect(events).toEqual(['start:id']);
    await agent.close();
    expect(events).toEqual(['start:id', 'end']);
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
    expect(await events({ policies: [], steering: false })).toEqual([]);
    expect(await events({ steering: false })).toEqual(['PreToolUse']); // the default policy
    expect(await events({ policies: [] })).toEqual(['PreInvocation']);
    expect(await events({ policies: [], steering: false, hooks: [hooks.postToolCall(() => {})] })).toEqual([
      'PostToolUse',
    ]);
    expect(await events({ policies: [], steering: false, hooks: [hooks.stop(() => undefined)] })).toEqual([
      'Stop',
    ]);
  });
});

describe('compaction', () => {
  it('onCompaction runs on a compaction step, if agy streams one', async () => {
    const seen: number[] = [];
    const agent = await agentWith(
      { turns: [{ actions: [{ step: { step_type: 'compaction', state: 'DONE' } }, { text: 'ok' }] }] },
      { hooks: [hooks.onCompaction((event) => void seen.push(event.stepIndex ?? -1))] },
    );
    expect(await (await agent.chat('x')).text()).toBe('ok');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThan(0);
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

  it('counts tokens from DONE model steps', async () => {
    const agent = await agentWith(
      {
        turns: [
          { actions: [{ text: 'a', usage: { input_tokens: 500, output_tokens: 50 } }, { stall: true }] },
        ],
      },
      { budget: { maxTotalTokens: 100 } },
    );
    const result = await (await agent.chat('x')).result();
    expect(result).toMatchObject({ status: 'budget_exceeded', budget: 'maxTotalTokens' });
  });
});

describe('steering', () => {
  it("'next-turn' queues the message as the next turn", async () => {
    const agent = await agentWith({
      turns: [
        { actions: [{ text: 'one', delayMs: 20, chunks: 3 }] },
        { expectPrompt: 'also do B', actions: [{ text: 'two' }] },
      ],
    });
    const r1 = await agent.chat('do A');
    const r2 = await agent.steer('also do B', { when: 'next-turn' });
    expect(await r1.text()).toBe('one');
    expect(await r2?.text()).toBe('two');
  });

  it("'now' interrupts the running turn and re-prompts on the same conversation first", async () => {
    const agent = await agentWith({
      turns: [
        { actions: [{ text: 'working' }, { stall: true }] },
        { expectPrompt: 'change of plan', actions: [{ text: 'replanned' }] },
      ],
    });
    const r1 = await agent.chat('long job');
    for await (const d of r1) if (d) break;
    const queued = await agent.chat('queued after');
    const id = agent.conversationId;
    const r2 = await agent.steer('change of plan', { when: 'now' });
    expect((await r1.result()).status).toBe('interrupted');
    expect(await r2?.text()).toBe('replanned');
    expect(agent.conversationId).toBe(id);
    expect((await queued.result()).status).not.toBe('canceled');
  });

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
});

describe('triggers', () => {
  it('onFileChange sends a message that runs as a turn; triggers stop on close', async () => {
    const watched = join(sb.box.root, 'watched');
    mkdirSync(watched);
    let seen!: (text: string) => void;
    const turnText = new Promise<string>((resolve) => {
      seen = resolve;
    });
    const agent = await agentWith(undefined, {
      triggers: [
        onFileChange(watched, async (changes, ctx) =>
          ctx.send(`files changed: ${changes.map((c) => c.kind).join(',')}`),
        ),
      ],
      hooks: [hooks.postTurn((text) => void (text.includes('files changed') && seen(text)))],
    });
    await agent.start();
    writeFileSync(join(watched, 'new.txt'), 'x');
    expect(await turnText).toContain('files changed: added');
  });
});
