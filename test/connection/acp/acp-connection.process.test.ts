/**
 * The ACP backend against a real ACP peer: the scripted agent (`fixtures/scripted-agent.mjs`, built on the
 * official SDK's agent side), spawned through the real spawn path (the supervisor) and spoken to over real
 * pipes. Its shapes imitate Gemini CLI 0.61 (docs/reference/acp.md).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProcessExitError, UnsupportedError, WatchdogTimeoutError } from '../../../src/connection/index.js';
import { fromFile, hooks, Image, policy, StartError, tool } from '../../../src/index.js';
import { type AcpSandbox, acpSandbox, alive, collect, memoryLogger } from '../../helpers/acp.js';

const boxes: AcpSandbox[] = [];
function box(): AcpSandbox {
  const b = acpSandbox();
  boxes.push(b);
  return b;
}
afterEach(() => {
  for (const b of boxes.splice(0)) b.cleanup();
});

type Ev = Record<string, unknown> & { event: string };
const permissions = (events: Ev[]) => events.filter((e) => e.event === 'permission');
const chosen = (e: Ev) => (e.response as { outcome: { outcome: string; optionId?: string } }).outcome;

describe('ACP backend: lifecycle', () => {
  it('initializes eagerly, exposes the agent capabilities and opens a session with the workspace and MCP servers', async () => {
    const b = box();
    const add = tool(
      { name: 'add', description: 'adds', input: z.object({ a: z.number() }) },
      ({ a }) => `${a + 1}`,
    );
    await using agent = b.agent(
      { turns: [] },
      {
        tools: [add],
        mcpServers: {
          files: { command: 'node', args: ['server.js'], env: { K: 'v' } },
          remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' } },
        },
      },
    );
    await agent.start();
    expect(agent.capabilities).toMatchObject({
      backend: 'acp',
      agentName: 'scripted-agent',
      protocolVersion: 1,
      loadSession: true,
      promptImages: true,
      mcpHttp: true,
      thinkingUsage: false,
    });
    expect(agent.conversationId).toBe('sess-1');
    const init = b.events().find((e) => e.event === 'initialize')!;
    expect(init.params).toMatchObject({
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const session = b.events().find((e) => e.event === 'session/new')!.params as {
      cwd: string;
      mcpServers: Array<Record<string, unknown>>;
    };
    expect(session.cwd).toBe(b.workspace);
    const own = session.mcpServers.find((s) => s.name === 'agy-sdk_tools')!;
    // Our loopback listener, its per-session token in the path (never in argv).
    expect(own).toMatchObject({ type: 'http', headers: [] });
    expect(String(own.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[^/]{20,}\/mcp\/tools$/);
    expect(session.mcpServers).toContainEqual({
      name: 'files',
      command: 'node',
      args: ['server.js'],
      env: [{ name: 'K', value: 'v' }],
    });
    expect(session.mcpServers).toContainEqual({
      type: 'http',
      name: 'remote',
      url: 'http://127.0.0.1:9/mcp',
      headers: [{ name: 'Authorization', value: 'Bearer x' }],
    });
  });

  it('initialize timeout: StartError carrying the stderr tail, and no process left', async () => {
    const b = box();
    const agent = b.agent(
      { initialize: { hang: true }, stderr: ['boot: loading credentials failed'], ignoreSignals: true },
      { startTimeoutMs: 1_500 },
    );
    const err = await agent.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartError);
    expect((err as StartError).message).toMatch(/did not answer initialize within 1500 ms/);
    expect((err as StartError).stderrTail).toContain('loading credentials failed');
    expect((err as StartError).message).toContain('loading credentials failed');
    // The agent was stopped before the error was made: it says how the agent ended.
    expect([(err as StartError).exitCode, (err as StartError).signal]).not.toEqual([null, null]);
    const pid = b.events().find((e) => e.event === 'start')!.pid as number;
    expect(alive(pid)).toBe(false);
    await agent.close();
  });

  it('close() ends the agent even though it ignores SIGTERM, and its process group with it (checked by pid)', async () => {
    const b = box();
    const agent = b.agent({
      ignoreSignals: true,
      child: true,
      turns: [{ actions: [{ type: 'text', text: 'ok' }] }],
    });
    await (await agent.chat('hi')).result();
    const pid = agent.pid!;
    const child = b.events().find((e) => e.event === 'child')!.pid as number;
    expect(alive(pid)).toBe(true);
    expect(alive(child)).toBe(true);
    const t0 = Date.now();
    await agent.close();
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(alive(pid)).toBe(false);
    expect(alive(child)).toBe(false);
  });

  it('garbage on stdout is logged and dropped; the turn still succeeds', async () => {
    const b = box();
    const logger = memoryLogger();
    await using agent = b.agent(
      {
        garbageAtStart: ['Loaded cached credentials.'],
        turns: [
          {
            actions: [
              { type: 'garbage', text: 'debug: 42' },
              { type: 'text', text: 'fine' },
            ],
          },
        ],
      },
      { logger },
    );
    const result = await (await agent.chat('hi')).result();
    expect(result.status).toBe('success');
    expect(result.text).toBe('fine');
    expect(
      logger.lines.some((l) => l.includes('non-JSON line') && l.includes('Loaded cached credentials.')),
    ).toBe(true);
    expect(logger.lines.some((l) => l.includes('debug: 42'))).toBe(true);
  });
});

describe('ACP backend: turns and updates', () => {
  it('text deltas, thoughts, plans and usage (input/output only; thinking and cache null)', async () => {
    const b = box();
    await using agent = b.agent({
      turns: [
        {
          actions: [
            { type: 'thought', text: '**Plan**\nthink first' },
            { type: 'plan', entries: [{ content: 'write it', priority: 'high', status: 'pending' }] },
            { type: 'text', text: 'Hello' },
            { type: 'text', text: ', world' },
          ],
          usage: { input: 120, output: 7 },
        },
      ],
    });
    const response = await agent.chat('hi');
    const [deltas, thoughts, steps, result] = await Promise.all([
      collect(response),
      collect(response.thoughts()),
      collect(response.steps()),
      response.result(),
    ]);
    expect(deltas).toEqual(['Hello', ', world']);
    expect(thoughts).toEqual(['**Plan**\nthink first']);
    expect(steps.find((s) => s.type === 'plan')?.plan).toEqual([
      { content: 'write it', priority: 'high', status: 'pending' },
    ]);
    expect(result.status).toBe('success');
    expect(result.text).toBe('Hello, world');
    expect(result.usage).toEqual({
      inputTokens: 120,
      outputTokens: 7,
      thinkingTokens: null,
      cacheReadTokens: null,
      totalTokens: 127,
      // The SDK priced the turn; the scripted agent's model is in no price table, and cache writes are unreported.
      cacheWriteTokens: null,
      costUsd: null,
    });
  });

  it('an empty reply with end_turn is not success; zero usage is null', async () => {
    const b = box();
    await using agent = b.agent({ turns: [{ actions: [], usage: { input: 0, output: 0 } }] });
    const result = await (await agent.chat('hi')).result();
    expect(result.status).toBe('error');
    expect(result.errorMessage).toMatch(/without an answer/);
    expect(result.usage).toBeNull();
  });

  it('a tool call and its update become a tool step with status and output', async () => {
    const b = box();
    await using agent = b.agent({
      turns: [
        {
          actions: [
            { type: 'tool', name: 'read_file', id: 'r1', output: 'file body' },
            { type: 'tool', name: 'glob', id: 'g1', fail: 'bad pattern' },
            { type: 'text', text: 'done' },
          ],
        },
      ],
    });
    const response = await agent.chat('read');
    const calls = await collect(response.toolResults());
    const result = await response.result();
    expect(result.status).toBe('success');
    expect(calls.map((c) => [c.name, c.state, c.output, c.error?.message])).toEqual([
      ['read_file', 'DONE', 'file body', undefined],
      ['glob', 'ERROR', undefined, 'bad pattern'],
    ]);
  });

  it('postToolCall / onToolError hooks see the tools the agent ran itself, once per call, with output or error', async () => {
    const post: Array<[string, unknown, unknown]> = [];
    const errors: string[] = [];
    const b = box();
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              { type: 'tool', name: 'read_file', id: 'r1', output: 'file body' },
              { type: 'tool', name: 'glob', id: 'g1', fail: 'bad pattern' },
              { type: 'text', text: 'done' },
            ],
          },
        ],
      },
      {
        hooks: [
          hooks.postToolCall((r) => void post.push([r.call.name, r.output, r.error])),
          hooks.onToolError((e) => void errors.push(`${e.call.name}: ${e.error.message}`)),
        ],
      },
    );
    expect((await (await agent.chat('read')).result()).status).toBe('success');
    // A failed call runs onToolError, then postToolCall with its error.
    expect(post).toEqual([
      ['read_file', 'file body', undefined],
      ['glob', undefined, { message: 'bad pattern' }],
    ]);
    expect(errors).toEqual(['glob: bad pattern']);
  });

  it('an own tool that throws: onToolError, then postToolCall with the error the agent was sent', async () => {
    const order: string[] = [];
    const post: Array<[string, unknown, unknown]> = [];
    const explode = tool({ name: 'explode', description: 'always fails', input: z.object({}) }, () => {
      throw new Error('kaboom');
    });
    const b = box();
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              {
                type: 'tool',
                name: 'mcp_agy-sdk_tools_explode',
                id: 'x1',
                kind: 'other',
                mcp: { server: 'agy-sdk_tools', tool: 'explode', args: {} },
              },
              { type: 'text', text: 'done' },
            ],
          },
        ],
      },
      {
        tools: [explode],
        policies: [policy.allowAll()],
        hooks: [
          hooks.onToolError(({ error }) => {
            order.push('onToolError');
            return `friendly: ${error.message}`;
          }),
          hooks.postToolCall((r) => {
            order.push('postToolCall');
            post.push([r.call.name, r.output, r.error]);
          }),
        ],
      },
    );
    await (await agent.chat('explode')).result();
    expect(order).toEqual(['onToolError', 'postToolCall']);
    expect(post).toEqual([['explode', undefined, { message: expect.stringMatching(/^friendly: .*kaboom/) }]]);
    // The MCP result the agent got carries exactly that message.
    const sent = b.events().find((e) => e.event === 'mcp')?.result as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(sent.isError).toBe(true);
    const seen = post[0]?.[2] as { message: string } | undefined;
    expect(sent.content.map((c) => c.text).join('')).toBe(seen?.message);
  });

  it('a JSON-RPC error with 429 wording ends rate_limited; other errors end error', async () => {
    const b = box();
    await using agent = b.agent({
      turns: [
        { actions: [{ type: 'error', code: 429, message: 'Rate limit exceeded. Try again later.' }] },
        { actions: [{ type: 'error', code: 500, message: 'Unknown stream execution error.' }] },
        { actions: [{ type: 'text', text: 'ok again' }] },
      ],
    });
    expect((await (await agent.chat('a')).result()).status).toBe('rate_limited');
    const second = await (await agent.chat('b')).result();
    expect(second.status).toBe('error');
    expect(second.errorMessage).toContain('Unknown stream execution error');
    expect((await (await agent.chat('c')).result()).status).toBe('success');
  });

  it('the agent crashing mid-prompt ends the turn error (ProcessExitError); the next turn restarts and loads the session', async () => {
    const b = box();
    await using agent = b.agent({
      turns: [
        {
          actions: [
            { type: 'text', text: 'partial' },
            { type: 'crash', code: 3 },
          ],
        },
        { actions: [{ type: 'text', text: 'back' }] },
      ],
    });
    const first = await (await agent.chat('a')).result();
    expect(first.status).toBe('error');
    expect(first.error).toBeInstanceOf(ProcessExitError);
    expect(first.exitCode).toBe(3);
    const second = await (await agent.chat('b')).result();
    expect(second.status).toBe('success');
    expect(b.events().filter((e) => e.event === 'session/load')).toHaveLength(1);
    expect(second.conversationId).toBe(first.conversationId);
  });

  it('images go natively when promptCapabilities.image, else as a file named in a text block', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const b = box();
    await using agent = b.agent({ turns: [{ actions: [{ type: 'text', text: 'seen' }] }] });
    await (await agent.chat(['look', new Image({ data: png, mimeType: 'image/png' })])).result();
    const prompt = (
      b.events().find((e) => e.event === 'prompt')!.params as { prompt: Array<Record<string, unknown>> }
    ).prompt;
    expect(prompt[0]).toEqual({ type: 'text', text: 'look' });
    expect(prompt[1]).toMatchObject({
      type: 'image',
      mimeType: 'image/png',
      data: Buffer.from(png).toString('base64'),
    });

    const c = box();
    await using textOnly = c.agent({
      initialize: { capabilities: { promptCapabilities: {}, mcpCapabilities: {} } },
      turns: [{ actions: [{ type: 'text', text: 'seen' }] }],
    });
    await (await textOnly.chat(['look', new Image({ data: png, mimeType: 'image/png' })])).result();
    const second = (
      c.events().find((e) => e.event === 'prompt')!.params as { prompt: Array<Record<string, unknown>> }
    ).prompt;
    expect(second[1]).toMatchObject({ type: 'text' });
    expect(String(second[1]!.text)).toMatch(/^\[Attached image \(image\/png\) at .*attachments/);
  });
});

describe('ACP backend: permissions', () => {
  const write = (path: string) => ({
    type: 'tool',
    name: 'write_file',
    id: 'w1',
    kind: 'edit',
    permission: { diff: { path, oldText: null, newText: 'hello' } },
  });

  it('a deny policy written with agy tool names rejects Gemini CLI write_file once; the turn ends denied', async () => {
    const b = box();
    const target = join(b.workspace, 'a.txt');
    await using agent = b.agent(
      { turns: [{ actions: [write(target), { type: 'text', text: 'I could not write it.' }] }] },
      { policies: [policy.deny('write_to_file'), policy.allowAll()] },
    );
    const response = await agent.chat('write');
    const calls = await collect(response.toolResults());
    const result = await response.result();
    expect(result.status).toBe('denied');
    expect(result.deniedActions).toMatchObject([
      { action: 'write_file', source: 'sdk', args: { file_path: target } },
    ]);
    expect(calls[0]).toMatchObject({ name: 'write_file', denied: true, state: 'ERROR' });
    const [p] = permissions(b.events());
    expect(chosen(p!)).toEqual({ outcome: 'selected', optionId: 'cancel' });
  });

  it('an allow answer is always the once-only option, never proceed_always', async () => {
    const b = box();
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              write(join(b.workspace, 'a.txt')),
              { ...write(join(b.workspace, 'b.txt')), id: 'w2' },
              { type: 'text', text: 'written' },
            ],
          },
        ],
      },
      { policies: [policy.allowAll()] },
    );
    const result = await (await agent.chat('write')).result();
    expect(result.status).toBe('success');
    const answers = permissions(b.events()).map(chosen);
    expect(answers).toEqual([
      { outcome: 'selected', optionId: 'proceed_once' },
      { outcome: 'selected', optionId: 'proceed_once' },
    ]);
  });

  it('an agent offering only "always" options gets no approval (fail closed)', async () => {
    const b = box();
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              {
                ...write(join(b.workspace, 'a.txt')),
                permission: { diff: { path: 'x', newText: 'y' }, options: 'always-only' },
              },
              { type: 'text', text: 'ok' },
            ],
          },
        ],
      },
      { policies: [policy.allowAll()] },
    );
    const result = await (await agent.chat('write')).result();
    expect(result.status).toBe('denied');
    expect(permissions(b.events()).map(chosen)).toEqual([{ outcome: 'cancelled' }]);
  });

  it('askUser approves, rejects, and a handler that never answers fails closed after askUserTimeoutMs', async () => {
    const answers: Array<boolean | 'never'> = [true, false, 'never'];
    const asked: string[] = [];
    const b = box();
    await using agent = b.agent(
      {
        turns: [0, 1, 2].map((i) => ({
          actions: [
            { ...write(join(b.workspace, `${i}.txt`)), id: `w${i}` },
            { type: 'text', text: `turn ${i}` },
          ],
        })),
      },
      {
        askUserTimeoutMs: 1_000,
        policies: [
          policy.askUser('write_to_file', {
            handler: (call) => {
              asked.push(call.name);
              const a = answers.shift();
              return a === 'never' ? new Promise<boolean>(() => {}) : (a ?? false);
            },
          }),
          policy.allowAll(),
        ],
      },
    );
    const statuses = [];
    for (const p of ['a', 'b', 'c']) statuses.push((await (await agent.chat(p)).result()).status);
    expect(statuses).toEqual(['success', 'denied', 'denied']);
    expect(asked).toEqual(['write_file', 'write_file', 'write_file']);
    expect(permissions(b.events()).map((e) => chosen(e).optionId)).toEqual([
      'proceed_once',
      'cancel',
      'cancel',
    ]);
  });

  it('the SDK’s own tools are approved at the permission request without asking again; the tool runs over MCP', async () => {
    let asked = 0;
    let ran = 0;
    const add = tool(
      { name: 'add', description: 'adds one', input: z.object({ a: z.number() }) },
      ({ a }) => {
        ran++;
        return `${a + 1}`;
      },
    );
    const b = box();
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              {
                type: 'tool',
                name: 'mcp_agy-sdk_tools_add',
                id: 't1',
                kind: 'other',
                permission: { json: { a: 41 } },
                mcp: { server: 'agy-sdk_tools', tool: 'add', args: { a: 41 } },
              },
              { type: 'text', text: 'the answer is 42' },
            ],
          },
        ],
      },
      {
        tools: [add],
        policies: [
          policy.askUser('*', {
            handler: () => {
              asked++;
              return true;
            },
          }),
        ],
      },
    );
    const response = await agent.chat('add');
    const calls = await collect(response.toolResults());
    const result = await response.result();
    expect(result.status).toBe('success');
    expect(ran).toBe(1);
    // Asked once, by the in-process gate when the tool ran; not a second time for the permission request.
    expect(asked).toBe(1);
    expect(calls[0]).toMatchObject({
      name: 'add',
      mcpServer: 'agy-sdk_tools',
      args: { a: 41 },
      output: '42',
    });
  });
});

describe('ACP backend: file system', () => {
  it('serves fs reads and writes inside the workspaces only', async () => {
    const b = box();
    const inside = join(b.workspace, 'in.txt');
    const outside = join(b.dir, 'out.txt');
    writeFileSync(inside, 'line1\nline2\n');
    await using agent = b.agent({
      turns: [
        {
          actions: [
            { type: 'fsRead', path: inside },
            { type: 'fsWrite', path: join(b.workspace, 'sub', 'new.txt'), content: 'written' },
            { type: 'fsWrite', path: outside, content: 'escape' },
            { type: 'fsRead', path: '/etc/hostname' },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
    });
    await (await agent.chat('fs')).result();
    const fs = b.events().filter((e) => e.event === 'fs');
    expect(fs.map((e) => e.ok)).toEqual([true, true, false, false]);
    expect(fs[0]!.res).toEqual({ content: 'line1\nline2\n' });
    expect(readFileSync(join(b.workspace, 'sub', 'new.txt'), 'utf8')).toBe('written');
    expect(existsSync(outside)).toBe(false);
    expect(String(fs[2]!.message)).toMatch(/Invalid params/);
  });

  it("serves reads of the turn's attachment files, outside the workspaces, and nothing else beside them", async () => {
    const b = box();
    const csv = join(b.dir, 'sales.csv');
    writeFileSync(csv, 'month,total\nJan,10\n');
    await using agent = b.agent({
      turns: [
        {
          actions: [
            { type: 'fsReadAttachments' },
            { type: 'fsRead', path: join(b.dir, 'sales.csv') },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
    });
    const png = new Image({ data: Buffer.from('PNG'), mimeType: 'image/png', name: 'pixel.png' });
    const result = await (await agent.chat(['Look:', png, await fromFile(csv)])).result();
    expect(result.status).toBe('success');
    const fs = b.events().filter((e) => e.event === 'fs');
    // The image (a native image block's file:// uri) and the CSV (an embedded resource's uri) are the SDK's
    // copies in its session directory; the original CSV beside the workspace stays out of reach.
    expect(fs.map((e) => [String(e.path ?? '').replace(/^.*\//, ''), e.ok])).toEqual([
      [expect.stringMatching(/^\d+-pixel\.png$/), true],
      [expect.stringMatching(/^\d+-sales\.csv$/), true],
      ['', false],
    ]);
    expect(fs[0]!.res).toEqual({ content: 'PNG' });
    expect(fs[1]!.res).toEqual({ content: 'month,total\nJan,10\n' });
    expect(String(fs[2]!.message)).toMatch(/outside the workspaces/);
  });
});

describe('ACP backend: interrupt, watchdog, model, resume', () => {
  it('interrupt() sends session/cancel; the turn ends interrupted and the same process serves the next turn', async () => {
    const b = box();
    await using agent = b.agent({
      turns: [
        { actions: [{ type: 'text', text: 'working' }, { type: 'hang' }] },
        { actions: [{ type: 'text', text: 'next' }] },
      ],
    });
    const response = await agent.chat('long');
    for await (const delta of response) if (delta === 'working') break;
    const pid = agent.pid;
    await agent.interrupt();
    const result = await response.result();
    expect(result.status).toBe('interrupted');
    expect(b.events().some((e) => e.event === 'cancel')).toBe(true);
    const next = await (await agent.chat('again')).result();
    expect(next.status).toBe('success');
    expect(agent.pid).toBe(pid);
  });

  it('an agent that ignores session/cancel is stopped after interruptGraceMs; the next turn restarts it', async () => {
    const b = box();
    await using agent = b.agent(
      {
        turns: [
          {
            actions: [
              { type: 'text', text: 'working' },
              { type: 'hang', ignoreCancel: true },
            ],
          },
          { actions: [{ type: 'text', text: 'next' }] },
        ],
      },
      { interruptGraceMs: 500 },
    );
    const response = await agent.chat('long');
    for await (const delta of response) if (delta === 'working') break;
    const pid = agent.pid!;
    await agent.interrupt();
    expect((await response.result()).status).toBe('interrupted');
    expect(alive(pid)).toBe(false);
    expect((await (await agent.chat('again')).result()).status).toBe('success');
    expect(agent.pid).not.toBe(pid);
  });

  it('the stall watchdog ends a silent turn timeout with WatchdogTimeoutError', async () => {
    const b = box();
    await using agent = b.agent(
      { turns: [{ actions: [{ type: 'text', text: 'x' }, { type: 'hang' }] }] },
      { idleTimeoutMs: 800 },
    );
    const result = await (await agent.chat('stall')).result();
    expect(result.status).toBe('timeout');
    expect(result.error).toBeInstanceOf(WatchdogTimeoutError);
    expect((result.error as WatchdogTimeoutError).kind).toBe('idle');
  });

  it('a per-turn turnTimeoutMs ends the turn timeout (kind turn); the session serves the next turn', async () => {
    const b = box();
    await using agent = b.agent({
      turns: [
        { actions: [{ type: 'text', text: 'x' }, { type: 'hang' }] },
        { actions: [{ type: 'text', text: 'next' }] },
      ],
    });
    const result = await (await agent.chat('slow', { turnTimeoutMs: 700 })).result();
    expect(result.status).toBe('timeout');
    expect((result.error as WatchdogTimeoutError).kind).toBe('turn');
    expect(b.events().some((e) => e.event === 'cancel')).toBe(true);
    expect((await (await agent.chat('again')).result()).status).toBe('success');
  });

  it('setModel uses session/set_model where the agent lists models, else UnsupportedError', async () => {
    const b = box();
    await using agent = b.agent({ session: { models: true }, turns: [] });
    await agent.start();
    expect(agent.capabilities?.setModel).toBe(true);
    await agent.setModel('m-2');
    expect(b.events().find((e) => e.event === 'session/set_model')?.params).toEqual({
      sessionId: 'sess-1',
      modelId: 'm-2',
    });
    expect(agent.info?.model).toBe('m-2');

    const c = box();
    await using plain = c.agent({ turns: [] });
    await plain.start();
    expect(plain.capabilities?.setModel).toBe(false);
    await expect(plain.setModel('m-2')).rejects.toBeInstanceOf(UnsupportedError);
  });

  it('conversationId resumes through session/load', async () => {
    const b = box();
    await using agent = b.agent(
      { turns: [{ actions: [{ type: 'text', text: 'resumed' }] }] },
      { conversationId: 'sess-old' },
    );
    const result = await (await agent.chat('hi')).result();
    expect(result.status).toBe('success');
    expect(result.conversationId).toBe('sess-old');
    expect(b.events().find((e) => e.event === 'session/load')?.params).toMatchObject({
      sessionId: 'sess-old',
      cwd: b.workspace,
    });
    expect(b.events().some((e) => e.event === 'session/new')).toBe(false);
  });

  it('the history a loaded session replays after answering session/load is not taken for the first answer', async () => {
    const b = box();
    await using agent = b.agent(
      {
        session: { replay: true },
        turns: [
          {
            actions: [
              { type: 'sleep', ms: 500 },
              { type: 'text', text: 'fresh' },
            ],
          },
        ],
      },
      { conversationId: 'sess-old' },
    );
    const result = await (await agent.chat('hi')).result();
    expect(result.text).toBe('fresh');
    expect(b.events().filter((e) => e.event === 'replayed')).toHaveLength(2);
  });

  it('a session that cannot be loaded is a StartError saying why (the same-minute rule included)', async () => {
    const b = box();
    const agent = b.agent({ session: { loadFailures: 1 }, turns: [] }, { conversationId: 'sess-gone' });
    const err = await agent.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartError);
    expect((err as StartError).message).toMatch(/cannot load session sess-gone.*same|minute/);
    await agent.close();
  });

  it('Gemini CLI: resuming a session in a new Agent waits until the minute the session started in has turned', async () => {
    const b = box();
    const scenario = {
      agentName: 'gemini-cli',
      session: { id: `gem-${Date.now()}` },
      turns: [
        { actions: [{ type: 'text', text: 'first' }] },
        { actions: [{ type: 'text', text: 'second' }] },
      ],
    };
    let id: string | undefined;
    {
      await using first = b.agent(scenario);
      expect((await (await first.chat('one')).result()).status).toBe('success');
      id = first.conversationId;
    }
    await using second = b.agent(scenario, { conversationId: id });
    const result = await (await second.chat('two')).result();
    expect(result.status).toBe('success');
    expect(result.conversationId).toBe(id);
    const created = b.events().find((e) => e.event === 'session/new')!.ts as number;
    const loaded = b.events().find((e) => e.event === 'session/load')!.ts as number;
    // docs/reference/acp.md#session-load: a load in the session's own wall-clock minute spoils it.
    expect(Math.floor(loaded / 60_000)).toBeGreaterThan(Math.floor(created / 60_000));
  }, 120_000);

  it('conversationId on an agent without loadSession is an UnsupportedError at start', async () => {
    const b = box();
    const agent = b.agent(
      { initialize: { capabilities: { mcpCapabilities: {} } }, turns: [] },
      { conversationId: 'sess-old' },
    );
    await expect(agent.start()).rejects.toBeInstanceOf(UnsupportedError);
    await agent.close();
  });
});

describe('ACP backend: Gemini CLI setup', () => {
  it('shadow-home: writes Gemini CLI settings in the private HOME, trusts the workspace, never touches the real HOME', async () => {
    const b = box();
    const realHome = join(b.dir, 'real-home');
    await using agent = b.agent(
      { turns: [] },
      {
        backend: { kind: 'acp', preset: 'gemini-cli' },
        isolation: 'shadow-home',
        env: { HOME: realHome, GEMINI_API_KEY: 'k-123' },
        settingsOverrides: { model: { name: 'gemini-x' } },
      },
    );
    await agent.start();
    const start = b.events().find((e) => e.event === 'start')!;
    const home = start.home as string;
    expect(home).not.toBe(realHome);
    expect(home.startsWith(join(b.dir, 'data'))).toBe(true);
    const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'));
    expect(settings).toMatchObject({
      security: { auth: { selectedType: 'gemini-api-key' } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false },
      model: { name: 'gemini-x' },
    });
    expect((start.env as Record<string, string>).GEMINI_CLI_TRUST_WORKSPACE).toBe('true');
    expect(existsSync(realHome)).toBe(false);
    // The agent never called authenticate (it would write the user's settings).
    expect(b.events().some((e) => e.event === 'authenticate')).toBe(false);
  });

  it('provider mode: the agent talks to the SDK gateway (GOOGLE_GEMINI_BASE_URL, per-run token) under a shadow HOME', async () => {
    const b = box();
    await using agent = b.agent(
      { turns: [] },
      {
        backend: { kind: 'acp', preset: 'gemini-cli' },
        provider: {
          kind: 'openai-chat',
          baseUrl: 'http://127.0.0.1:9/v1',
          apiKey: 'sk-upstream-secret',
          model: 'gpt-x',
        },
      },
    );
    await agent.start();
    const start = b.events().find((e) => e.event === 'start')!;
    const env = start.env as Record<string, string>;
    expect(env.GOOGLE_GEMINI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(env.GEMINI_API_KEY).toBeTruthy();
    expect(env.GEMINI_API_KEY).not.toContain('sk-upstream-secret');
    expect(String(start.home).startsWith(join(b.dir, 'data', 'acp-homes'))).toBe(true);
    const settings = JSON.parse(readFileSync(join(String(start.home), '.gemini', 'settings.json'), 'utf8'));
    expect(settings.security.auth.selectedType).toBe('gemini-api-key');
    expect(JSON.stringify(settings)).not.toContain('sk-upstream-secret');
  });
});
