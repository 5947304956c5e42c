// The lane that paces the synchronous parts of session starts: the first piece of a turn goes at once, every
// other one in a later event-loop turn, oldest first, one per turn.
import { describe, expect, it } from 'vitest';
import { TurnLane } from '../../src/internal/turn-lane.js';
import { countLoopTurns } from '../helpers/loop-turns.js';

describe('TurnLane', () => {
  it('lets the first piece of a turn go at once and the others one per later turn, in order', async () => {
    const loop = countLoopTurns();
    try {
      const lane = new TurnLane();
      const startTurn = loop.turn;
      expect(lane.take()).toBeUndefined();
      const ran: Array<[number, number]> = [[0, loop.turn]];
      const waits = [1, 2, 3, 4].map((i) => {
        const wait = lane.take();
        expect(wait).toBeInstanceOf(Promise);
        return wait!.then(() => ran.push([i, loop.turn]));
      });
      await Promise.all(waits);
      expect(ran.map(([i]) => i)).toEqual([0, 1, 2, 3, 4]);
      const turns = ran.map(([, t]) => t);
      expect(turns[0]).toBe(startTurn);
      for (let i = 1; i < turns.length; i++) expect(turns[i]).toBeGreaterThan(turns[i - 1]!);
      // Once the waiters are done, a later turn's first piece goes at once again.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      expect(lane.take()).toBeUndefined();
    } finally {
      loop.stop();
    }
  });
});
