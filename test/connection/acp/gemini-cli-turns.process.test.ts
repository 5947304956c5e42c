/**
 * The Agent on the ACP backend, end to end against the real Gemini CLI 0.61 (`gemini --acp` under the SDK's
 * shadow HOME, the scripted Gemini endpoint as the model): streamed text and thoughts, an in-process zod
 * `tool()` called through the SDK's MCP listener, interrupt then another prompt on the same session and process,
 * and close leaving no process. One Gemini CLI launch for the file (docs/reference/acp.md#initialize).
 * Facts relied on: docs/reference/acp.md#thoughts-and-text, #usage, #mcp-tools, #cancel, #process-tree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type Agent, tool } from '../../../src/index.js';
import { type AgentBox, agentBox, callOwnTool } from '../../helpers/acp-e2e/agent-kit.js';
import { cliMissingReason, groupMembers, isAlive, waitGroupGone } from '../../helpers/acp-e2e/harness.js';
import { FakeGemini, functionResponses, turns } from '../../helpers/gateway/fake-gemini.js';

const MISSING = cliMissingReason();
const describeCli = MISSING === undefined ? describe : describe.skip;

describeCli(
  MISSING === undefined ? 'Agent on Gemini CLI 0.61 over ACP: turns' : `skipped: ${MISSING}`,
  () => {
    let fake: FakeGemini;
    let box: AgentBox;
    let agent: Agent;
    const lookups: string[] = [];

    beforeAll(async () => {
      fake = await FakeGemini.start({ apiKey: 'acp-agent-turns-key' });
      box = agentBox();
      const lookup = tool(
        {
          name: 'lookup_order',
          description: 'Find the status of an order by id',
          input: z.object({ id: z.string() }),
        },
        async ({ id }) => {
          lookups.push(id);
          return { id, status: `shipped-${id}` };
        },
      );
      agent = box.agent(fake, { tools: [lookup] });
      await agent.start();
    }, 120_000);
    afterAll(async () => {
      await agent?.close();
      await fake?.close();
      box?.cleanup();
    });

    it('streams text deltas and thoughts; usage has input/output and null for what Gemini CLI does not send', async () => {
      fake.enqueue({
        chunks: [[{ text: 'Let me think.', thought: true }], [{ text: 'Hello' }], [{ text: ', world' }]],
        usage: { promptTokenCount: 21, candidatesTokenCount: 5, thoughtsTokenCount: 9 },
      });
      const response = await agent.chat('Say hello');
      const deltas: string[] = [];
      const thoughts: string[] = [];
      const [result] = await Promise.all([
        response.result(),
        (async () => {
          for await (const delta of response) deltas.push(delta);
        })(),
        (async () => {
          for await (const thought of response.thoughts()) thoughts.push(thought);
        })(),
      ]);
      expect(result.status).toBe('success');
      expect(result.text).toBe('Hello, world');
      expect(deltas.join('')).toBe('Hello, world');
      expect(deltas.length).toBeGreaterThanOrEqual(2);
      expect(thoughts.join('')).toContain('Let me think.');
      expect(result.usage).toMatchObject({
        inputTokens: 21,
        outputTokens: 5,
        thinkingTokens: null,
        cacheReadTokens: null,
      });
    });

    it("the model calls an in-process zod tool through the SDK's MCP listener and answers with its result", async () => {
      fake.enqueue(callOwnTool('lookup_order', { id: 'A17' }, 'call-1'), (req) => {
        // The answer is built from what the endpoint received: the tool's result reached the model.
        const response = functionResponses(req.body).find((r) => r.id === 'call-1');
        return turns.text(`Order says: ${JSON.stringify(response?.response)}`);
      });
      const response = await agent.chat('Where is order A17?');
      const result = await response.result();
      expect(lookups).toEqual(['A17']);
      expect(result.status).toBe('success');
      expect(result.text).toContain('shipped-A17');
      const call = result.toolCalls.find((c) => c.name === 'lookup_order');
      expect(call).toBeDefined();
      expect(call?.args).toMatchObject({ id: 'A17' });
      const seen = functionResponses(fake.modelCalls.at(-1)?.body).find((r) => r.id === 'call-1');
      expect(JSON.stringify(seen?.response)).toContain('shipped-A17');
      // Gated in process only: the SDK answered Gemini CLI's permission request for its own tool itself.
      expect(result.deniedActions).toEqual([]);
    });

    it('interrupt mid-turn ends it interrupted; the next prompt runs on the same session and process', async () => {
      const pid = agent.pid;
      const session = agent.conversationId;
      let release = () => {};
      const gate = new Promise<void>((ok) => (release = ok));
      fake.enqueue({ chunks: [[{ text: 'Working on it' }], [{ text: ' — never sent' }]], gate });
      const response = await agent.chat('Start a long answer');
      const iterator = response[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.value).toContain('Working');
      await agent.interrupt();
      const result = await response.result();
      release();
      expect(result.status).toBe('interrupted');
      expect(result.usage).toBeNull();

      fake.enqueue(turns.text('Fresh answer'));
      const next = await (await agent.chat('And now?')).result();
      expect(next.status).toBe('success');
      expect(next.text).toBe('Fresh answer');
      expect(agent.pid).toBe(pid);
      expect(agent.conversationId).toBe(session);
      // docs/reference/acp.md#cancel: the cancelled prompt is not in the history the model gets.
      expect(JSON.stringify(fake.modelCalls.at(-1)?.body?.contents)).not.toContain('Start a long answer');
    });

    it('close during a streaming turn: the turn ends canceled, the host survives, and no process is left', async () => {
      const pid = agent.pid;
      expect(pid).toBeTypeOf('number');
      const tree = groupMembers(pid as number);
      expect(tree).toContain(pid);
      // The relaunched child runs in the launcher's group (docs/reference/acp.md#process-tree).
      expect(tree.length).toBeGreaterThanOrEqual(2);
      // A long stream, so Gemini CLI is still writing updates after the SDK's reader is gone: those lines
      // are dropped (the crash guard of test/setup/crash-guard.ts fails this test on an uncaught
      // ERR_INVALID_STATE from the stdout handler, the crash this reproduced).
      fake.enqueue({
        chunks: Array.from({ length: 400 }, (_, i) => [{ text: `part ${i} ` }]),
        delayMs: 10,
      });
      const response = await agent.chat('A very long answer, please');
      const first = await response[Symbol.asyncIterator]().next();
      expect(first.value).toContain('part');
      await agent.close();
      expect((await response.result()).status).toBe('canceled');
      expect(await waitGroupGone(pid as number, 15_000)).toEqual([]);
      expect(tree.filter(isAlive)).toEqual([]);
    });
  },
);
