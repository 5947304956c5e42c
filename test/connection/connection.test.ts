/** One turn object from `chat()` to the backend and back: what the backend receives, and where steps gather. */
import { describe, expect, it } from 'vitest';
import type { TurnRequest, TurnSink } from '../../src/connection/connection.js';
import { Turn } from '../../src/connection/connection.js';
import { Agent } from '../../src/index.js';
import type { Step } from '../../src/model/step.js';
import { InMemoryConnection } from '../../src/testing/index.js';

describe('Turn', () => {
  it('the backend receives the turn chat() built (its request and its sink), with the options it carries', async () => {
    const conn = new InMemoryConnection({
      turns: [{ steps: [{ type: 'agent_response', textDelta: 'hi' }] }],
    });
    const received: Array<[TurnRequest, TurnSink]> = [];
    const run = conn.runTurn.bind(conn);
    conn.runTurn = (request, sink) => {
      received.push([request, sink]);
      return run(request, sink);
    };
    await using agent = new Agent({ connection: conn.connect, reminder: 'be brief' });
    const controller = new AbortController();
    const response = await agent.chat('hello', { turnTimeoutMs: 5_000, signal: controller.signal });
    await response.result();
    const [[turn, sink] = []] = received;
    expect(turn).toBeInstanceOf(Turn);
    expect(sink).toBe(turn);
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
    let turn: Turn | undefined;
    const run = conn.runTurn.bind(conn);
    conn.runTurn = (request, sink) => {
      turn = request as Turn;
      return run(request, sink);
    };
    await using agent = new Agent({ connection: conn.connect });
    const response = await agent.chat('go');
    const seen: Step[] = [];
    for await (const step of response.steps()) seen.push(step);
    if (!turn) throw new Error('no turn reached the backend');
    expect(seen).toHaveLength(2);
    expect(turn.steps.items).toHaveLength(2);
    // The very objects, not copies: one buffer, read by the response.
    expect(seen[0]).toBe(turn.steps.items[0]);
    expect(seen[1]).toBe(turn.steps.items[1]);
    expect(agent.conversation.history[0]).toBe(seen[0]);
  });

  it('the in-memory connection keeps a plain copy of each request, with only the fields that are set', async () => {
    const conn = new InMemoryConnection({ turns: [{}] });
    await using agent = new Agent({ connection: conn.connect });
    await (await agent.chat('plain')).result();
    expect(conn.requests).toEqual([{ text: ['plain'] }]);
    expect(conn.requests[0]).not.toBeInstanceOf(Turn);
  });

  it('shows each delivered step to its watcher after gathering it', () => {
    const turn = new Turn(['x']);
    const order: string[] = [];
    turn.watch((step) => order.push(`watch ${step.stepIndex} (gathered ${turn.steps.items.length})`));
    turn.onStep({ conversationId: 'c', stepIndex: 0, state: 'DONE', type: 'agent_response', raw: {} });
    expect(order).toEqual(['watch 0 (gathered 1)']);
  });
});
