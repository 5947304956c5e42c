// The running turn's watchdog (active-turn.ts) reports a stall as an event into the process's stream, named by the
// turn, so the connection's one switch ends the turn; a turn already asked to end is not re-labelled a timeout.
import { describe, expect, it } from 'vitest';
import { ActiveTurn } from '../../../../src/connection/agy/stream-json/active-turn.js';
import type { AgyEvent } from '../../../../src/connection/agy/stream-json/agy-event.js';
import { TurnTracker } from '../../../../src/connection/agy/stream-json/turn-tracker.js';
import { WatchdogTimeoutError } from '../../../../src/errors.js';

const newTurn = () => new ActiveTurn(new TurnTracker(new Set(), () => 'c'), { onStep: () => {} });

describe('ActiveTurn watchdog', () => {
  it('pushes an idle stall named by the turn once agy is quiet for the limit', async () => {
    const turn = newTurn();
    const stalled = new Promise<AgyEvent>((resolve) => turn.armWatchdog(20, undefined, { push: resolve }));
    const event = await stalled;
    expect(event).toEqual({ type: 'stall', kind: 'idle', limitMs: 20, turnId: turn.id });
    expect(turn.timedOut('idle', 20, 'tail')).toBe(true);
    expect(turn.requested).toBe('timeout');
    expect(turn.error).toBeInstanceOf(WatchdogTimeoutError);
    turn.clearTimers();
  });

  it('a turn asked to end is not re-labelled by a late stall', () => {
    const turn = newTurn();
    turn.requested = 'interrupted';
    expect(turn.timedOut('turn', 10, '')).toBe(false);
    expect(turn.requested).toBe('interrupted');
    expect(turn.error).toBeUndefined();
  });

  it('each turn has its own id (a stale stall of an ended turn does not match the next)', () => {
    expect(newTurn().id).not.toBe(newTurn().id);
  });

  it('clearTimers stops the watchdog: no stall after it', async () => {
    const turn = newTurn();
    const pushed: AgyEvent[] = [];
    turn.armWatchdog(10, 15, { push: (e) => pushed.push(e) });
    turn.clearTimers();
    await new Promise((r) => setTimeout(r, 60));
    expect(pushed).toEqual([]);
  });
});
