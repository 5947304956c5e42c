import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionListener } from '../../../src/connection/tool-server/listener.js';
import type { ToolCallRecord } from '../../../src/connection/tool-server/mcp-tool-call.js';
import { tool } from '../../../src/tools/tool.js';
import { toolResult } from '../../../src/tools/tool-result.js';
import { activeTimers, captureLogger, connectClient, deferred } from '../../helpers/listener.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

const echo = tool(
  { name: 'echo', description: 'Echoes text', input: z.object({ text: z.string() }) },
  ({ text }) => `echo: ${text}`,
);
const add = tool(
  {
    name: 'add',
    description: 'Adds two numbers',
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
  },
  async ({ a, b }) => {
    await new Promise((resolve) => setImmediate(resolve));
    return { sum: a + b };
  },
);
const boom = tool({ name: 'boom', description: 'Always throws', input: z.object({}) }, () => {
  throw new Error('kaboom');
});
const dotted = tool(
  { name: 'files.read/v2', description: 'A name with dots and slashes', input: z.object({}) },
  () => ({ ok: true }),
);
const rich = tool({ name: 'rich', description: 'Returns a CallToolResult', input: z.object({}) }, () =>
  toolResult([
    { type: 'text', text: 'first' },
    { type: 'text', text: 'second' },
  ]),
);

async function startListener(extra: Parameters<typeof SessionListener.start>[0] = {}) {
  const logger = captureLogger();
  const listener = await SessionListener.start({ logger, ...extra });
  cleanups.push(() => listener.close());
  return { listener, logger };
}

async function client(url: string) {
  const c = await connectClient(url);
  cleanups.push(() => c.close());
  return c;
}

describe('SessionListener MCP route (real SDK client over HTTP)', () => {
  it('nextToolsList resolves at the next tools/list of that server only, not at initialize', async () => {
    const { listener } = await startListener({ mcpServers: { tools: [echo], other: [add] } });
    const seen: string[] = [];
    const first = listener.nextToolsList('tools').then(() => seen.push('tools'));
    void listener.nextToolsList('other').then(() => seen.push('other'));
    const c = await client(listener.mcpUrl('tools'));
    // connect() has sent initialize and notifications/initialized: no tools/list yet.
    await c.ping();
    expect(seen).toEqual([]);
    await c.listTools();
    await first;
    expect(seen).toEqual(['tools']);
    // A waiter made now waits for the next list, not the one before it.
    const again = listener.nextToolsList('tools').then(() => seen.push('tools again'));
    await c.ping();
    expect(seen).toEqual(['tools']);
    await c.listTools();
    await again;
    expect(seen).toEqual(['tools', 'tools again']);
  });

  it('lists tools with provider-safe names and JSON schemas', async () => {
    const { listener } = await startListener({ mcpServers: { tools: [echo, add, dotted] } });
    const c = await client(listener.mcpUrl('tools'));
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add', 'files_read_v2']);
    const addTool = tools.find((t) => t.name === 'add')!;
    expect(addTool.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(addTool.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
    expect(listener.catalog('tools')!.names.resolve('files_read_v2')).toMatchObject({
      server: 'tools',
      originalName: 'files.read/v2',
    });
  });

  it('calls tools: string, async structured output, JSON, CallToolResult as is', async () => {
    const { listener } = await startListener({ mcpServers: { tools: [echo, add, dotted, rich] } });
    const c = await client(listener.mcpUrl('tools'));
    expect(text(await c.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    const sum = (await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(sum.isError).toBeFalsy();
    expect(sum.structuredContent).toEqual({ sum: 5 });
    expect(JSON.parse(text(sum))).toEqual({ sum: 5 });
    expect(text(await c.callTool({ name: 'files_read_v2', arguments: {} }))).toBe('{"ok":true}');
    const r = (await c.callTool({ name: 'rich', arguments: {} })) as CallToolResult;
    expect(r.content).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'second' },
    ]);
  });

  it('awaits a handler that answers with any thenable, not only a Promise, and reports one that rejects', async () => {
    // A handler's value is awaited only when it is thenable (mcp-tool-call.ts); a foreign thenable must count.
    const later = tool({ name: 'later', description: 'A foreign thenable', input: z.object({}) }, () => ({
      // biome-ignore lint/suspicious/noThenProperty: the point of the test is a non-Promise thenable.
      then: (resolve: (v: string) => void) => setImmediate(() => resolve('settled later')),
    }));
    const refuse = tool({ name: 'refuse', description: 'A rejecting thenable', input: z.object({}) }, () => ({
      // biome-ignore lint/suspicious/noThenProperty: the point of the test is a non-Promise thenable.
      then: (_resolve: unknown, reject: (e: Error) => void) => reject(new Error('no, later')),
    }));
    const { listener } = await startListener({ mcpServers: { tools: [later, refuse] } });
    const c = await client(listener.mcpUrl('tools'));
    expect(text(await c.callTool({ name: 'later', arguments: {} }))).toBe('settled later');
    const refused = (await c.callTool({ name: 'refuse', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('Tool "refuse" failed: no, later');
  });

  it('answers invalid arguments, unknown tools and throwing handlers with error results; the session goes on', async () => {
    const records: ToolCallRecord[] = [];
    const { listener } = await startListener({
      mcpServers: { tools: [echo, boom] },
      ownTools: { observer: { onEnd: (record) => void records.push(record) } },
    });
    const c = await client(listener.mcpUrl('tools'));

    const invalid = (await c.callTool({ name: 'echo', arguments: { text: 42 } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^Invalid arguments for tool "echo": text: /);

    const missing = (await c.callTool({ name: 'echo', arguments: {} })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('text:');

    const unknown = (await c.callTool({ name: 'nope', arguments: {} })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe('Unknown tool "nope" on MCP server "tools"; available tools: echo, boom.');

    const thrown = (await c.callTool({ name: 'boom', arguments: {} })) as CallToolResult;
    expect(thrown.isError).toBe(true);
    expect(text(thrown)).toBe('Tool "boom" failed: kaboom');

    // Still usable after all of that.
    expect(text(await c.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe(
      'echo: still here',
    );

    expect(records.map((r) => r.error?.kind)).toEqual([
      'invalid_arguments',
      'invalid_arguments',
      'unknown_tool',
      'handler_error',
      undefined,
    ]);
    const last = records.at(-1)!;
    expect(last).toMatchObject({
      server: 'tools',
      name: 'echo',
      originalName: 'echo',
      args: { text: 'still here' },
    });
    expect(last.parsedArgs).toEqual({ text: 'still here' });
    expect(last.durationMs).toBeGreaterThanOrEqual(0);
    expect(records[3]!.error!.cause).toBeInstanceOf(Error);
  });

  it('runs concurrent calls concurrently', async () => {
    const events: string[] = [];
    const both = deferred();
    let arrived = 0;
    const barrier = tool(
      {
        name: 'barrier',
        description: 'Waits until two calls are inside',
        input: z.object({ id: z.string() }),
      },
      async ({ id }, ctx) => {
        events.push(`start:${id}`);
        arrived += 1;
        if (arrived === 2) both.resolve();
        // Serialized calls would never get here for the first call: the second could not start.
        await Promise.race([
          both.promise,
          new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
        ]);
        events.push(`end:${id}`);
        return id;
      },
    );
    const { listener } = await startListener({ mcpServers: { tools: [barrier] } });
    const c = await client(listener.mcpUrl('tools'));
    const results = await Promise.all([
      c.callTool({ name: 'barrier', arguments: { id: 'a' } }),
      c.callTool({ name: 'barrier', arguments: { id: 'b' } }),
    ]);
    expect(results.map(text).sort()).toEqual(['a', 'b']);
    // Both started before either ended.
    expect(events.slice(0, 2).every((e) => e.startsWith('start:'))).toBe(true);
    expect(events.slice(2).every((e) => e.startsWith('end:'))).toBe(true);
  });

  it('gives handlers a context: session state shared across calls, conversation id, send, signal', async () => {
    const sent: string[] = [];
    let conversationId: string | undefined;
    const counter = tool(
      { name: 'count', description: 'Counts calls', input: z.object({}) },
      (_args, ctx) => {
        const next = ctx.getState('count', 0) + 1;
        ctx.setState('count', next);
        return { count: next, conversationId: ctx.conversationId ?? null, aborted: ctx.signal.aborted };
      },
    );
    const notify = tool(
      { name: 'notify', description: 'Sends a message', input: z.object({ m: z.string() }) },
      async ({ m }, ctx) => {
        await ctx.send(m);
        return 'sent';
      },
    );
    const { listener } = await startListener({
      mcpServers: { tools: [counter, notify] },
      ownTools: {
        host: {
          toolContext: {
            conversationId: () => conversationId,
            send: async (message) => void sent.push(message),
          },
        },
      },
    });
    const c = await client(listener.mcpUrl('tools'));
    expect(JSON.parse(text(await c.callTool({ name: 'count', arguments: {} })))).toEqual({
      count: 1,
      conversationId: null,
      aborted: false,
    });
    conversationId = 'conv-1';
    expect(JSON.parse(text(await c.callTool({ name: 'count', arguments: {} })))).toMatchObject({
      count: 2,
      conversationId: 'conv-1',
    });
    expect(listener.state.get('count')).toBe(2);
    expect(text(await c.callTool({ name: 'notify', arguments: { m: 'hello' } }))).toBe('sent');
    expect(sent).toEqual(['hello']);
  });

  it('applies the own-tool gate: deny, rewrite, and fail closed when it throws', async () => {
    const seen: string[] = [];
    const { listener, logger } = await startListener({
      mcpServers: { tools: [echo] },
      ownTools: {
        host: {
          gateToolCall: async (call, opts) => {
            const value = String(call.args.text);
            // The own-tool server names the call `<server>:<request id>`, and asks as the one running it.
            if (opts?.ownTool !== 'running') throw new Error('not asked as the running own-tool server');
            seen.push(`${call.id.slice(0, call.id.indexOf(':'))}/${call.name}:${value}`);
            if (value === 'forbidden') return { allow: false, reason: 'forbidden word' };
            if (value === 'rewrite') return { allow: true, args: { text: 'rewritten' } };
            if (value === 'bad-rewrite') return { allow: true, args: { text: 1 } };
            if (value === 'throw') throw new Error('policy engine down');
            return { allow: true };
          },
        },
      },
    });
    const c = await client(listener.mcpUrl('tools'));
    const denied = (await c.callTool({ name: 'echo', arguments: { text: 'forbidden' } })) as CallToolResult;
    expect(denied.isError).toBe(true);
    expect(text(denied)).toBe('Tool "echo" was denied: forbidden word');
    expect(text(await c.callTool({ name: 'echo', arguments: { text: 'rewrite' } }))).toBe('echo: rewritten');
    const badRewrite = (await c.callTool({
      name: 'echo',
      arguments: { text: 'bad-rewrite' },
    })) as CallToolResult;
    expect(badRewrite.isError).toBe(true);
    expect(text(badRewrite)).toMatch(/after policy rewrite: text: /);
    const thrown = (await c.callTool({ name: 'echo', arguments: { text: 'throw' } })) as CallToolResult;
    expect(thrown.isError).toBe(true);
    expect(text(thrown)).toBe('Tool "echo" was denied: policy check failed: policy engine down');
    expect(logger.entries.some((e) => e.level === 'warn' && e.message.includes('policy gate threw'))).toBe(
      true,
    );
    expect(text(await c.callTool({ name: 'echo', arguments: { text: 'fine' } }))).toBe('echo: fine');
    // The gate never sees calls with invalid arguments.
    await c.callTool({ name: 'echo', arguments: { text: 3 } });
    expect(seen).toEqual([
      'tools/echo:forbidden',
      'tools/echo:rewrite',
      'tools/echo:bad-rewrite',
      'tools/echo:throw',
      'tools/echo:fine',
    ]);
  });

  it('rejects output that does not match the output schema', async () => {
    const liar = tool(
      { name: 'liar', description: 'Wrong output', input: z.object({}), output: z.object({ n: z.number() }) },
      // @ts-expect-error: the type system already rejects this; the runtime check must too.
      () => ({ n: 'not a number' }),
    );
    const { listener } = await startListener({ mcpServers: { tools: [liar] } });
    const c = await client(listener.mcpUrl('tools'));
    const result = (await c.callTool({ name: 'liar', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Tool "liar" returned a value that does not match its output schema: n: /);
  });

  it('aborts the handler signal when the client cancels the call', async () => {
    const inside = deferred();
    const aborted = deferred<unknown>();
    const wait = tool({ name: 'wait', description: 'Waits for abort', input: z.object({}) }, (_args, ctx) => {
      inside.resolve();
      return new Promise((_, reject) => {
        ctx.signal.addEventListener('abort', () => {
          aborted.resolve(ctx.signal.reason);
          reject(new Error('stopped'));
        });
      });
    });
    const { listener } = await startListener({ mcpServers: { tools: [wait] } });
    const c = await client(listener.mcpUrl('tools'));
    const controller = new AbortController();
    const call = c.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
    await inside.promise;
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    expect(await aborted.promise).toBeInstanceOf(Error);
  });

  it('routes notifications/cancelled to the in-flight call although each POST gets a fresh server', async () => {
    const inside = deferred();
    const wait = tool({ name: 'wait', description: 'Waits for abort', input: z.object({}) }, (_args, ctx) => {
      inside.resolve();
      return new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () =>
          resolve(`aborted: ${(ctx.signal.reason as Error).message}`),
        );
      });
    });
    const { listener } = await startListener({ mcpServers: { tools: [wait] } });
    const post = (body: unknown) =>
      fetch(listener.mcpUrl('tools'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const call = post({
      jsonrpc: '2.0',
      id: 99,
      method: 'tools/call',
      params: { name: 'wait', arguments: {} },
    });
    await inside.promise;
    const cancel = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 99, reason: 'user hit stop' },
    });
    expect(cancel.status).toBe(202);
    const response = await call;
    expect(await response.json()).toMatchObject({
      id: 99,
      result: { content: [{ type: 'text', text: 'aborted: user hit stop' }] },
    });
  });

  // The direct path watches a call's response only once its handler reads ctx.signal (listener-mcp.ts).
  describe('a client that goes away mid-call', () => {
    /** Sends one raw tools/call of `name` on its own socket, which the caller destroys. */
    function rawCall(listener: SessionListener, name: string) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name, arguments: {} },
      });
      const socket = connect(listener.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.end(
        [
          `POST /${listener.token}/mcp/tools HTTP/1.1`,
          `Host: 127.0.0.1:${listener.port}`,
          'Content-Type: application/json',
          'Accept: application/json, text/event-stream',
          `Content-Length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n'),
      );
      return socket;
    }

    /**
     * Resolves once the listener has seen `socket` close: its FIN arrived before a new connection's request,
     * whose whole answer takes further turns of the listener's loop.
     */
    async function closeSeen(listener: SessionListener, socket: ReturnType<typeof connect>) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.destroy();
      });
      const c = await client(listener.mcpUrl('tools'));
      expect(text(await c.callTool({ name: 'echo', arguments: { text: 'after' } }))).toBe('echo: after');
    }

    it('a handler that reads ctx.signal only after its client left finds it aborted', async () => {
      const inside = deferred();
      const release = deferred();
      const seen = deferred<AbortSignal>();
      const late = tool({ name: 'late', description: 'Looks late', input: z.object({}) }, async (_a, ctx) => {
        inside.resolve();
        await release.promise;
        seen.resolve(ctx.signal);
        return 'done';
      });
      const { listener } = await startListener({ mcpServers: { tools: [late, echo] } });
      const socket = rawCall(listener, 'late');
      await inside.promise;
      await closeSeen(listener, socket);
      release.resolve();
      const signal = await seen.promise;
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe('MCP client went away');
    });

    it('a handler that read ctx.signal first sees it abort when its client leaves', async () => {
      const inside = deferred<AbortSignal>();
      const aborted = deferred<unknown>();
      const early = tool({ name: 'early', description: 'Looks early', input: z.object({}) }, (_a, ctx) => {
        ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
        inside.resolve(ctx.signal);
        return new Promise(() => {});
      });
      const { listener } = await startListener({ mcpServers: { tools: [early, echo] } });
      const socket = rawCall(listener, 'early');
      const signal = await inside.promise;
      expect(signal.aborted).toBe(false);
      socket.destroy();
      expect(((await aborted.promise) as Error).message).toBe('MCP client went away');
    });

    it('a call answered before its client left is not aborted', async () => {
      const seen: AbortSignal[] = [];
      const quick = tool(
        { name: 'quick', description: 'Answers at once', input: z.object({}) },
        (_a, ctx) => {
          seen.push(ctx.signal);
          return 'quick';
        },
      );
      const { listener } = await startListener({ mcpServers: { tools: [quick, echo] } });
      const c = await client(listener.mcpUrl('tools'));
      expect(text(await c.callTool({ name: 'quick', arguments: {} }))).toBe('quick');
      await c.close();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.aborted).toBe(false);
    });
  });

  it('serves a factory-built SDK McpServer', async () => {
    const factory = () => {
      const server = new McpServer({ name: 'custom', version: '1.0.0' });
      server.registerTool('ping', { description: 'Pings', inputSchema: { n: z.number() } }, ({ n }) => ({
        content: [{ type: 'text', text: `pong ${n}` }],
      }));
      return server;
    };
    const { listener } = await startListener({ mcpServers: { custom: factory } });
    const c = await client(listener.mcpUrl('custom'));
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
    expect(text(await c.callTool({ name: 'ping', arguments: { n: 7 } }))).toBe('pong 7');
  });

  it('rejects bad server names and duplicate tools at start', async () => {
    await expect(SessionListener.start({ mcpServers: { 'bad.name': [echo] } })).rejects.toThrow(/must match/);
    await expect(SessionListener.start({ mcpServers: { s: [echo, echo] } })).rejects.toThrow(
      /duplicate tool name "echo"/,
    );
  });

  it('close() aborts in-flight calls, frees the port and leaves no timers', async () => {
    const before = activeTimers();
    const inside = deferred();
    const aborted = deferred();
    const hang = tool({ name: 'hang', description: 'Never returns', input: z.object({}) }, (_args, ctx) => {
      inside.resolve();
      ctx.signal.addEventListener('abort', () => aborted.resolve());
      return new Promise(() => {});
    });
    const logger = captureLogger();
    const listener = await SessionListener.start({ logger, mcpServers: { tools: [hang] } });
    const c = await connectClient(listener.mcpUrl('tools'));
    const call = c.callTool({ name: 'hang', arguments: {} });
    call.catch(() => {});
    await inside.promise;
    await listener.close();
    await aborted.promise;
    await expect(call).rejects.toThrow();
    await c.close();
    expect(listener.closed).toBe(true);
    await listener.close(); // idempotent

    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const socket = connect(listener.port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(Object.assign(new Error('connected'), { code: 'CONNECTED' }));
      });
      socket.on('error', resolve);
    });
    expect(error.code).toBe('ECONNREFUSED');
    expect(activeTimers()).toBeLessThanOrEqual(before);
    expect(logger.text()).not.toContain(listener.token);
  });
});
