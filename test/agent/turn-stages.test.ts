/** The turn pipeline: each named stage alone, and their composition in order. */
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  budgetStartStage,
  budgetStepStage,
  controlStepStage,
  finishStage,
  materializeStage,
  pendingSteersStage,
  preTurnStage,
  reminderStage,
  transportWarningStage,
} from '../../src/agent/turn-stages.js';
import { Turn } from '../../src/connection/turn.js';
import { AttachmentFiles } from '../../src/content/attachment-files.js';
import { Image } from '../../src/content/content.js';
import { BudgetTracker } from '../../src/conversation/budget.js';
import { composeStages } from '../../src/conversation/stages.js';
import { TurnDeniedError } from '../../src/errors.js';
import type { Step } from '../../src/model/step.js';
import type { TurnResult } from '../../src/model/turn-result.js';
import { spyLogger } from '../helpers/hooks.js';

const step = (over: Partial<Step> = {}): Step => ({
  conversationId: 'c',
  stepIndex: 0,
  state: 'DONE',
  type: 'agent_response',
  raw: {},
  ...over,
});

describe('prepare stages', () => {
  it('run in order on one draft: materialize, pending steers, preTurn, budget, reminder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agy-sdk-stages-'));
    try {
      const seen: string[] = [];
      let budgetStarted = 0;
      const attachments = new AttachmentFiles();
      const { prepare } = composeStages([
        materializeStage(async () => dir, attachments),
        pendingSteersStage(() => ['steer first']),
        preTurnStage(async (text) => {
          seen.push(text);
          return { allow: true };
        }),
        budgetStartStage({ beginTurn: () => budgetStarted++ }),
        reminderStage('be brief'),
      ]);
      const png = new Image({ data: new Uint8Array([1, 2, 3]), mimeType: 'image/png', name: 'x.png' });
      const out = await prepare(new Turn(['look', png]));
      expect(out.text[0]).toBe('<system-reminder>\nbe brief\n</system-reminder>');
      expect(out.text[1]).toBe('steer first');
      expect(out.text[2]).toBe('look');
      const file = /at (\S+x\.png)/.exec(out.text[3] ?? '')?.[1];
      expect(file && (await readFile(file))).toEqual(Buffer.from([1, 2, 3]));
      // Recorded by real path before the prompt goes out, so the workspace confinement admits it to reads.
      expect(attachments.size).toBe(1);
      expect(attachments.has(await realpath(file as string))).toBe(true);
      // preTurn saw the steers and the prompt, not the reminder (it is added after the gate).
      expect(seen).toEqual([`steer first\nlook\n${out.text[3]}`]);
      expect(budgetStarted).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a preTurn deny throws TurnDeniedError and later stages do not run', async () => {
    let later = false;
    const { prepare } = composeStages([
      preTurnStage(async () => ({ allow: false, message: 'no' })),
      {
        name: 'later',
        prepare: () => {
          later = true;
        },
      },
    ]);
    const turn = new Turn(['x']);
    turn.text = ['x'];
    await expect(prepare(turn)).rejects.toThrow(TurnDeniedError);
    expect(later).toBe(false);
  });
});

describe('step stages', () => {
  it('every stage sees every step; the budget stage stops the turn past a limit', () => {
    const seen: number[] = [];
    const logger = spyLogger();
    const stages = composeStages([
      controlStepStage((s) => seen.push(s.stepIndex)),
      transportWarningStage(logger),
      budgetStepStage(new BudgetTracker({ maxModelCalls: 1 })),
      { name: 'after-budget', step: (s) => void seen.push(-s.stepIndex) },
    ]);
    const turn = new Turn([]);
    const onStep = (s: Step) => stages.step(s, turn);
    expect(onStep(step({ stepIndex: 1 }))).toBeUndefined();
    const stop = onStep(step({ stepIndex: 2 }));
    expect(stop).toMatchObject({ status: 'budget_exceeded', budget: 'maxModelCalls' });
    expect(seen).toEqual([1, -1, 2, -2]);
  });
});

describe('finish stages', () => {
  it('run in order, each on the previous result', async () => {
    const { finish } = composeStages([
      finishStage('a', (r) => ({ ...r, text: `${r.text}a` })),
      finishStage('b', async (r) => ({ ...r, text: `${r.text}b` })),
    ]);
    expect((await finish({ text: '' } as TurnResult, new Turn([]))).text).toBe('ab');
  });
});
