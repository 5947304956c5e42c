import { describe, expect, it } from 'vitest';
import { HookRunner, SessionContext } from '../../src/hooks/index.js';

describe('hook contexts', () => {
  it('state flows down (session → turn → operation) and never up', () => {
    const session = new SessionContext({ conversationId: 'conv-1' });
    session.set('user', 'ada');
    const turn = session.startTurn(1);
    const op = turn.startOperation('conv-1:3');

    expect(turn.get('user')).toBe('ada');
    expect(op.get('user')).toBe('ada');

    op.set('opOnly', 1);
    turn.set('turnOnly', 2);
    expect(turn.get('opOnly')).toBeUndefined();
    expect(session.get('turnOnly')).toBeUndefined();
    expect(session.has('opOnly')).toBe(false);
    expect(op.get('turnOnly')).toBe(2);
    expect(op.has('turnOnly')).toBe(true);
  });

  it('a local write shadows the parent without changing it; delete reveals the parent again', () => {
    const session = new SessionContext();
    session.set('mode', 'strict');
    const turn = session.startTurn(1);
    turn.set('mode', 'lax');
    expect(turn.get('mode')).toBe('lax');
    expect(session.get('mode')).toBe('strict');
    expect(turn.delete('mode')).toBe(true);
    expect(turn.get('mode')).toBe('strict');
  });

  it('sibling turns and operations do not share state', () => {
    const session = new SessionContext();
    const t1 = session.startTurn(1);
    const t2 = session.startTurn(2);
    t1.set('x', 1);
    expect(t2.get('x')).toBeUndefined();
    const a = t1.startOperation('a');
    const b = t1.startOperation('b');
    a.set('y', 1);
    expect(b.get('y')).toBeUndefined();
  });

  it('carries ids: conversation id, turn number, tool call id', () => {
    const session = new SessionContext();
    const turn = session.startTurn(7);
    const op = turn.startOperation('conv:9');
    expect(op.conversationId).toBeUndefined();
    session.setConversationId('conv');
    expect(turn.conversationId).toBe('conv');
    expect(op.conversationId).toBe('conv');
    expect(turn.turn).toBe(7);
    expect(op.turn).toBe(7);
    expect(op.toolCallId).toBe('conv:9');
  });

  it('the runner numbers turns from 1 and roots them in its session', () => {
    const runner = new HookRunner({ conversationId: 'c' });
    runner.session.set('k', 'v');
    const t1 = runner.beginTurn();
    const t2 = runner.beginTurn();
    expect([t1.turn, t2.turn]).toEqual([1, 2]);
    expect(t2.get('k')).toBe('v');
    expect(t2.conversationId).toBe('c');
  });
});
