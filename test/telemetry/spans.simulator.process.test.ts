/**
 * Spans through the real spawn path: the simulator as agy, its PreToolUse hook through the relay to the
 * policies (docs/reference/hooks.md#hook-payloads), the agent's own tool over MCP on the listener, a
 * subagent. The tracer and meter providers are registered globally, as an app does, with the
 * AsyncLocalStorage context manager, so the own tool handler's spans find their parent.
 */
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { policy, tool } from '../../src/index.js';
import { useSandboxAgents } from '../helpers/agents.js';
import { childrenOf, nanos, one, otelKit, parentOf, point } from '../helpers/otel-kit.js';

const kit = otelKit({ global: true });
afterAll(() => kit.shutdown());
const sb = useSandboxAgents();

const lookup = tool(
  { name: 'lookup', description: 'Looks a key up', input: z.object({ key: z.string() }) },
  async ({ key }) => {
    // What a user's handler traces: a child of the SDK's execute_tool span.
    return trace.getTracer('user-app').startActiveSpan('user.db_query', (span) => {
      span.setAttribute('db.key', key);
      span.end();
      return `value of ${key}`;
    });
  },
);

describe('spans through the simulator', () => {
  it('two tool calls, one denied by a policy: execute_tool spans with outcomes, decision span, own-tool handler child', async () => {
    kit.exporter.reset();
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'run_command', parameters: { CommandLine: 'rm -rf /' }, output: 'gone' } },
              { mcpTool: { server: 'agy-sdk_tools', tool: 'lookup', arguments: { key: 'k1' } } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        tools: [lookup],
        policies: [policy.deny('run_command', { name: 'no-shell' }), policy.allowAll()],
      },
    );
    const result = await (await agent.chat('go')).result();
    await agent.close();
    expect(result.status).toBe('denied');
    const spans = kit.spans();
    const turn = one(spans, 'invoke_agent agy');

    const denied = one(spans, 'execute_tool run_command');
    expect(parentOf(spans, denied)).toBe(turn);
    expect(denied.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'run_command',
      'agy_sdk.tool.outcome': 'denied',
      'agy_sdk.tool.denied_by': 'sdk',
    });
    expect(String(denied.attributes['agy_sdk.tool.denial_reason'])).toContain('no-shell');
    expect(denied.attributes['gen_ai.tool.call.id']).toBe(
      result.toolCalls.find((c) => c.name === 'run_command')?.id,
    );
    const decision = childrenOf(spans, denied).find((s) => s.name === 'agy_sdk.tool_decision');
    expect(decision?.attributes['agy_sdk.decision']).toBe('deny');

    const own = one(spans, 'execute_tool lookup');
    expect(parentOf(spans, own)).toBe(turn);
    expect(own.attributes).toMatchObject({
      'agy_sdk.tool.outcome': 'allowed',
      'agy_sdk.tool.mcp_server': 'agy-sdk_tools',
    });
    const query = one(spans, 'user.db_query');
    expect(parentOf(spans, query)).toBe(own);
    expect(query.spanContext().traceId).toBe(turn.spanContext().traceId);

    // Model steps: each DONE agent_response is a chat span; their usage sums to the turn's.
    const chats = childrenOf(spans, turn).filter((s) => s.name.startsWith('chat '));
    expect(chats.length).toBeGreaterThanOrEqual(2);
    expect(chats.reduce((n, s) => n + Number(s.attributes['gen_ai.usage.input_tokens'] ?? 0), 0)).toBe(
      result.usage?.inputTokens,
    );
    expect(turn.attributes['gen_ai.usage.output_tokens']).toBe(result.usage?.outputTokens);

    const metrics = await kit.collect();
    expect(point(metrics, 'agy_sdk.tool_calls', { 'agy_sdk.tool.outcome': 'denied' })?.sum).toBe(1);
    expect(point(metrics, 'agy_sdk.tool_calls', { 'agy_sdk.tool.outcome': 'allowed' })?.sum).toBe(1);
    expect(point(metrics, 'agy_sdk.turns', { 'agy_sdk.turn.status': 'denied' })?.sum).toBe(1);
  });

  it('an askUser wait is visible as a decision span lasting as long as the human took', async () => {
    kit.exporter.reset();
    let answered = 0;
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/etc/hosts' }, output: 'x' } },
              { text: 'ok' },
            ],
          },
        ],
      },
      {
        policies: [
          policy.askUser('view_file', {
            // The "human" answers after 50 ms.
            handler: () =>
              new Promise((resolve) =>
                setTimeout(() => {
                  answered = performance.now();
                  resolve(true);
                }, 50),
              ),
          }),
        ],
      },
    );
    const result = await (await agent.chat('read')).result();
    await agent.close();
    expect(result.status).toBe('success');
    expect(answered).toBeGreaterThan(0);
    const spans = kit.spans();
    const call = one(spans, 'execute_tool view_file');
    const decision = childrenOf(spans, call).find((s) => s.name === 'agy_sdk.tool_decision');
    expect(decision?.attributes['agy_sdk.decision']).toBe('allow');
    const ms = (decision!.duration[0] * 1e9 + decision!.duration[1]) / 1e6;
    expect(ms).toBeGreaterThanOrEqual(45);
    expect(call.attributes['agy_sdk.tool.outcome']).toBe('allowed');
  });

  it('a subagent: its invoke_agent span under the turn, linked to it, usage equal to subagentUsage', async () => {
    kit.exporter.reset();
    const agent = await sb.agentWith({
      turns: [
        {
          actions: [
            {
              // The reference's streamed shape: the subagent's own steps are what its span is made of.
              subagent: {
                stream: true,
                name: 'research',
                prompt: 'look around',
                actions: [{ text: 'found it' }],
              },
            },
            { text: 'done' },
          ],
        },
      ],
    });
    const result = await (await agent.chat('delegate')).result();
    await agent.close();
    expect(result.status, result.errorMessage).toBe('success');
    const spans = kit.spans();
    const turn = one(spans, 'invoke_agent agy');
    const sub = one(spans, 'invoke_agent research');
    expect(parentOf(spans, sub)).toBe(turn);
    expect(sub.links[0]?.context.spanId).toBe(turn.spanContext().spanId);
    const [id, usage] = Object.entries(result.subagentUsage ?? {})[0] ?? [];
    expect(sub.attributes['gen_ai.conversation.id']).toBe(id);
    expect(sub.attributes['gen_ai.usage.input_tokens']).toBe(usage?.inputTokens);
    expect(sub.attributes['gen_ai.usage.output_tokens']).toBe(usage?.outputTokens);
    expect(childrenOf(spans, sub).some((s) => s.name.startsWith('chat '))).toBe(true);
  });

  it('a crash mid-turn, then recovery in a fresh process: the failed turn and the restart are counted', async () => {
    kit.exporter.reset();
    const before = point(await kit.collect(), 'agy_sdk.restarts')?.sum ?? 0;
    const agent = await sb.agentWith({
      turns: [{ actions: [{ text: 'partial' }, { exit: 1 }] }, { actions: [{ text: 'back' }] }],
    });
    const first = await (await agent.chat('one')).result();
    const second = await (await agent.chat('two')).result();
    await agent.close();
    expect(first.status).toBe('error');
    expect(second.status, second.errorMessage).toBe('success');
    const turns = kit.spans().filter((s) => s.name === 'invoke_agent agy');
    expect(turns.map((s) => s.attributes['agy_sdk.turn.status'])).toEqual(['error', 'success']);
    const metrics = await kit.collect();
    expect((point(metrics, 'agy_sdk.restarts')?.sum ?? 0) - before).toBe(1);
  });

  it("a user MCP server's tool (allowed) and a failing built-in tool (error): their execute_tool spans", async () => {
    kit.exporter.reset();
    // The real third-party MCP server package, over stdio (as test/connection/agy/session/mcp-config.process.test.ts runs it).
    const everything = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-everything/dist/index.js',
    );
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              {
                mcpTool: { server: 'agy-sdk_everything', tool: 'echo', arguments: { message: 'hello mcp' } },
              },
              {
                tool: {
                  name: 'run_command',
                  parameters: { CommandLine: 'false' },
                  error: { type: 'TOOL_ERROR', message: 'exit status 1' },
                },
              },
              { text: 'echoed' },
            ],
          },
        ],
      },
      {
        mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
        policies: [policy.allowAll()],
      },
    );
    const result = await (await agent.chat('echo')).result();
    await agent.close();
    expect(result.status, result.errorMessage).toBe('success');
    const spans = kit.spans();
    const call = one(spans, 'execute_tool echo');
    expect(parentOf(spans, call)).toBe(one(spans, 'invoke_agent agy'));
    expect(call.attributes).toMatchObject({
      'gen_ai.tool.name': 'echo',
      'agy_sdk.tool.mcp_server': result.toolCalls[0]?.mcpServer,
      'agy_sdk.tool.outcome': 'allowed',
      'gen_ai.tool.call.id': result.toolCalls[0]?.id,
    });
    expect(nanos(call).end >= nanos(call).start).toBe(true);
    // A tool that failed: outcome error, with agy's error type and message.
    const failed = one(spans, 'execute_tool run_command');
    expect(failed.attributes).toMatchObject({ 'agy_sdk.tool.outcome': 'error', 'error.type': 'TOOL_ERROR' });
    expect(failed.status).toMatchObject({ code: 2, message: 'exit status 1' });
  });
});
