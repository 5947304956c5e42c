/** The one owner of usage above the backend: it prices each turn (the cost stage) and sums what was spent. */
import { describe, expect, it } from 'vitest';
import { Turn } from '../../src/connection/connection.js';
import { UNKNOWN_MODEL, UsageLedger } from '../../src/conversation/usage-ledger.js';
import type { Usage } from '../../src/model/step.js';
import type { TurnResult } from '../../src/model/turn-result.js';

const usage = (input: number, output: number): Usage => ({
  inputTokens: input,
  outputTokens: output,
  thinkingTokens: 0,
  cacheReadTokens: 0,
  totalTokens: input + output,
});
const result = (over: Partial<TurnResult> = {}): TurnResult =>
  ({ status: 'success', usage: usage(1_000_000, 0), totalUsage: null, ...over }) as TurnResult;
const table = {
  cheap: { input: 1, output: 2 },
  billed: { input: 10, output: 20 },
  backend: { input: 5, output: 5 },
};

describe('UsageLedger', () => {
  it('prices at the billed model, else the backend’s once attached, else the configured one', async () => {
    const configured = new UsageLedger({ table, configModel: 'cheap' });
    const finish = configured.stage().finish!;
    expect((await finish(result(), new Turn([]))).usage?.costUsd).toBe(1);
    configured.attach({ info: { model: 'backend' } });
    const priced = await finish(result(), new Turn([]));
    expect(priced.model).toBe('backend');
    expect(priced.usage?.costUsd).toBe(5);
    const billed = new UsageLedger({ table, billedModel: 'billed', configModel: 'cheap' });
    billed.attach({ info: { model: 'backend' } });
    expect(billed.model).toBe('billed');
    expect(billed.cost(usage(1_000_000, 0))).toBe(10);
  });

  it('sums recorded turns by model and subagent, keeps the last turn’s, and hands out copies', () => {
    const ledger = new UsageLedger();
    ledger.record(result({ model: 'm', subagentUsage: { sub: usage(1, 1) } }));
    ledger.record(result({ usage: usage(2, 3), totalUsage: usage(9, 9) }));
    expect(ledger.byModel.m?.inputTokens).toBe(1_000_000);
    expect(ledger.byModel[UNKNOWN_MODEL]?.outputTokens).toBe(3);
    expect(ledger.bySubagent.sub?.totalTokens).toBe(2);
    expect(ledger.total?.inputTokens).toBe(9);
    const last = ledger.lastTurn;
    expect(last?.outputTokens).toBe(3);
    if (last) last.outputTokens = 999;
    expect(ledger.lastTurn?.outputTokens).toBe(3);
    ledger.forgetLastTurn();
    expect(ledger.lastTurn).toBeNull();
    expect(ledger.total?.inputTokens).toBe(9);
  });
});
