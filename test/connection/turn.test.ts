/** One turn object from `chat()` to the backend and back: what the backend receives, and where steps gather. */
import { describe, expect, it } from 'vitest';
import { Turn } from '../../src/connection/turn.js';
import { Agent } from '../../src/index.js';
import type { Step } from '../../src/model/step.js';
import { InMemoryConnection } from '../../src/testing/index.js';

describe('Turn', () => {
  it('the backend receives the turn chat() built (its request and its sink), with the options it carries', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'hi' }] }],
    });
    await using agent = new Agent({ connection: conn.connect, reminder: 'be brief' });
    const controller = new AbortController();
    const response = await agent.chat('hello', { turnTimeoutMs: 5_000, signal: controller.signal });
    await response.result();
    const [turn] = conn.requests;
    expect(turn).toBeInstanceOf(Turn);
    expect((turn as Turn).parts).toEqual(['hello']);
    expect((turn as Turn).signal).toBe(controller.signal);
    expect(turn?.timeoutMs).toBe(5_000);
    expect(turn?.text).toEqual(['<system-reminder>\nbe brief\n</system-reminder>', 'hello']);
  });

  it('gathers each step once: the response reads the turn’s own steps, the same objects the backend delivered', async () => {
    const conn = new InMemoryConnection({
      turns: [
        {
          steps: [
            { type: 'agent_response', textDelta: 'a' },
            { type: 'agent_response', textDelta: 'b' },
          ],
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect });
    const response = await agent.chat('go');
    const seen: Step[] = [];
    for await (const step of response.steps()) seen.push(step);
    const turn = conn.requests[0] as Turn;
    expect(seen).toHaveLength(2);
    expect(turn.steps.items).toHaveLength(2);
    // The very objects, not copies: one buffer, read by the response.
    expect(seen[0]).toBe(turn.steps.items[0]);
    expect(seen[1]).toBe(turn.steps.items[1]);
    expect(agent.conversation.history[0]).toBe(seen[0]);
  });

  it('shows each delivered step to its watcher after gathering it', () => {
    const turn = new Turn(['x']);
    const order: string[] = [];
    turn.watch((step) => order.push(`watch ${step.stepIndex} (gathered ${turn.steps.items.length})`));
    turn.onStep({ conversationId: 'c', stepIndex: 0, state: 'DONE', type: 'agent_response', raw: {} });
    expect(order).toEqual(['watch 0 (gathered 1)']);
  });
});
